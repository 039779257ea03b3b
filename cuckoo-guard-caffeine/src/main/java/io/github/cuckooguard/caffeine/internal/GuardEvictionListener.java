package io.github.cuckooguard.caffeine.internal;

import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.RemovalListener;
import io.github.cuckooguard.CuckooGuard;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * The eviction listener the guard installs on the Caffeine builder. Caffeine calls it inside the
 * atomic removal of an evicted entry (size, weight, expiry), serialised with every other write to
 * that key: the leave is begun and ended there ({@code beginLeave(key).gone()}), before the removal
 * can be seen. Not {@code keyLeft}: an enter of the same key by a plain put may be in flight at
 * that moment (a put over an expired entry evicts it inside the put), and a {@code keyLeft} during
 * a rebuild would release the copy the rebuild holds for that enter (cuckoo-guard-core {@code
 * RebuildState.left}), while a leave with its own handle only ever releases its own. It then calls
 * the user's eviction listener, if any; an exception from that is logged and does not affect the
 * guard.
 *
 * <p>Until {@link #attach} no key can have entered, so events are only forwarded.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GuardEvictionListener<K, V> implements RemovalListener<K, V> {

  private static final Logger LOGGER = System.getLogger(GuardEvictionListener.class.getName());

  private final String name;
  private final @Nullable RemovalListener<? super K, ? super V> user;
  private volatile @Nullable CuckooGuard<K> guard;

  public GuardEvictionListener(String name, @Nullable RemovalListener<? super K, ? super V> user) {
    this.name = name;
    this.user = user;
  }

  /** Starts driving {@code guard}; called once, before the cache is handed out. */
  public void attach(CuckooGuard<K> guard) {
    this.guard = guard;
  }

  @Override
  public void onRemoval(@Nullable K key, @Nullable V value, RemovalCause cause) {
    CuckooGuard<K> g = guard;
    if (g != null) {
      if (key != null) {
        g.beginLeave(key).gone();
      } else {
        // Only weak keys produce this, and the guard refuses them; a leak is the safe outcome.
        LOGGER.log(
            Level.WARNING,
            () ->
                "Cuckoo guard '"
                    + name
                    + "': "
                    + cause
                    + " eviction without a key; its fingerprint stays until the next rebuild");
      }
    }
    if (user != null) {
      try {
        user.onRemoval(key, value, cause);
      } catch (RuntimeException e) {
        LOGGER.log(
            Level.WARNING, "Cuckoo guard '" + name + "': the user's eviction listener threw", e);
      }
    }
  }

  @Override
  public String toString() {
    return "CuckooGuard[" + name + "].evictionListener";
  }
}
