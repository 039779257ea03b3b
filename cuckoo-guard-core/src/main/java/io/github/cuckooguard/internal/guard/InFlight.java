package io.github.cuckooguard.internal.guard;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The transitions of one kind (enters, or leaves) that have begun and not ended, as a multiset of
 * keys that the guard's write calls change without allocating.
 *
 * <pre>
 * Layout. A fixed array of slots, one per transition: begin claims a free slot by CAS
 * (null -> key) and returns its index, which the caller's handle keeps; end clears that slot (its
 * owner is the only writer of a claimed slot). A thread starts probing at a line of 16 slots
 * chosen from its id, so threads writing at once mostly touch different cache lines. When none
 * of PROBES slots is free (many transitions of one thread in flight at once, e.g. a transaction's
 * pending deletes), the transition is counted in a map instead (SPILLED; allocates, still exact).
 *
 * Why install sees every transition in flight, exactly once. Every begin and every end runs under
 * FilterState's read lock, and install under its write lock, so install runs between whole
 * begins and ends and sees all their writes (the lock orders them). A transition in flight
 * occupies exactly one place: its slot (claimed at begin, cleared only by its own end, which its
 * handle makes happen once) or one count in the spill map (added at begin, taken at its end).
 * The multiset install reads is therefore the same as FilterState's former per-key counts.
 * </pre>
 *
 * <p>Thread safety: {@link #begin} and {@link #end} may run concurrently with each other; {@link
 * #forEach} only while no begin or end runs (under the write lock); {@link #count} at any time
 * (approximate while writes run).
 *
 * @param <K> the key type
 */
final class InFlight<K> {

  /** The slot of a transition counted in the spill map. */
  static final int SPILLED = -1;

  private static final int SLOTS = 512;
  private static final int LINE = 16;
  private static final int PROBES = 2 * LINE;
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

  private final Object[] slots = new Object[SLOTS];

  /** Per key, the transitions that found no free slot. */
  private final ConcurrentHashMap<K, Integer> spilled = new ConcurrentHashMap<>();

  /**
   * Records a transition of {@code key}.
   *
   * @return its slot, or {@link #SPILLED}; pass it to {@link #end}
   */
  int begin(K key) {
    int start = lineOf(Thread.currentThread().getId());
    for (int i = 0; i < PROBES; i++) {
      int s = (start + i) & (SLOTS - 1);
      if (SLOT.getOpaque(slots, s) == null && SLOT.compareAndSet(slots, s, null, key)) {
        return s;
      }
    }
    spilled.merge(key, 1, Integer::sum);
    return SPILLED;
  }

  /** Ends the transition of {@code key} that {@link #begin} recorded in {@code slot}. */
  void end(K key, int slot) {
    if (slot >= 0) {
      SLOT.setRelease(slots, slot, null);
    } else {
      spilled.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
    }
  }

  /** Calls {@code action} once per transition in flight. Only while no begin or end runs. */
  void forEach(Consumer<? super K> action) {
    for (Object o : slots) {
      if (o != null) {
        @SuppressWarnings("unchecked")
        K key = (K) o;
        action.accept(key);
      }
    }
    spilled.forEach(
        (key, n) -> {
          for (int i = n; i > 0; i--) {
            action.accept(key);
          }
        });
  }

  /** Transitions in flight. */
  long count() {
    long n = 0;
    for (int s = 0; s < SLOTS; s++) {
      if (SLOT.getAcquire(slots, s) != null) {
        n++;
      }
    }
    for (int c : spilled.values()) {
      n += c;
    }
    return n;
  }

  /** The first slot of the line a thread starts at (a multiplicative hash of its id). */
  private static int lineOf(long threadId) {
    int h = (int) ((threadId * 0x9E3779B97F4A7C15L) >>> 32);
    return (h & (SLOTS - 1)) & ~(LINE - 1);
  }
}
