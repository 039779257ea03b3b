package io.github.cuckooguard.jcache.internal;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Which calls through the guarded cache saw a Created event for their key while they were open.
 * JCache's {@code put}, {@code putAll} and {@code invoke} do not say whether they created the
 * entry; the provider's Created event does, and this tells a call whether one ran during it, so
 * that the call can end its key's {@code PendingEnter} as visible (the call, or one racing it,
 * created the entry) or abort it (a replace, a read, a failed write). It is not a registry of keys
 * in flight for lookups or rebuilds: the guard keeps those itself.
 *
 * <p>A call {@link #open}s its key before the provider call and {@link #close}s it after; the
 * listener {@link #created reports} each Created event, which counts for every call of the key open
 * at that moment (concurrent writes of one key then all end visible: a spare copy, never a missing
 * one), and returns false if none was open: the event is then the key's only enter.
 *
 * <p>Thread safety: all methods may be called concurrently; one key's counts change inside {@link
 * ConcurrentHashMap#compute}, atomically.
 *
 * @param <K> the key type
 */
final class CreatedEvents<K> {

  private static final class Calls {
    int open;
    long events;
  }

  private final ConcurrentHashMap<K, Calls> calls = new ConcurrentHashMap<>();

  /** Opens a call of {@code key}; returns the token for {@link #close}. */
  long open(K key) {
    long[] token = new long[1];
    calls.compute(
        key,
        (k, existing) -> {
          Calls current = existing != null ? existing : new Calls();
          current.open++;
          token[0] =
              current.events; // inside the compute: an event that counted for this call changes it
          return current;
        });
    return token[0];
  }

  /**
   * A Created event for {@code key} ran.
   *
   * @return whether a call of the key was open (it ends visible); false: no call of this cache
   *     wrote the key
   */
  boolean created(K key) {
    return calls.computeIfPresent(
            key,
            (k, c) -> {
              c.events++;
              return c;
            })
        != null;
  }

  /**
   * Closes a call of {@code key} opened with {@code token}; returns whether a Created event ran
   * since.
   */
  boolean close(K key, long token) {
    boolean[] created = new boolean[1];
    calls.computeIfPresent(
        key,
        (k, c) -> {
          created[0] = c.events != token;
          return --c.open == 0 ? null : c;
        });
    return created[0];
  }
}
