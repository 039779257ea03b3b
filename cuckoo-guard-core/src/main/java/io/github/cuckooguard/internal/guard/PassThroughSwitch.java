package io.github.cuckooguard.internal.guard;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The pass-through flag of a guard together with the epoch of the last reason to go stale, in one
 * atomic word, so that a rebuild clears the flag only if no reason arrived since it started
 * (compare-and-set on the pair; a flag and a separate counter could interleave and lose a mark).
 *
 * <p>Bit 0 is the flag; the bits above count reasons to go stale.
 */
public final class PassThroughSwitch {

  private final AtomicLong state = new AtomicLong();

  /** Whether pass-through is on. One volatile read. */
  public boolean isOn() {
    return (state.get() & 1) != 0;
  }

  /**
   * A reason to go stale: pass-through on, and rebuilds that started before cannot clear it.
   *
   * @return whether this call switched it on
   */
  public boolean goStale() {
    return (state.getAndUpdate(s -> (s | 1) + 2) & 1) == 0;
  }

  /**
   * Pass-through on without a new epoch: the running rebuild, which already covers the cause, may
   * still clear it.
   *
   * @return whether this call switched it on
   */
  public boolean holdUntilSwap() {
    return (state.getAndUpdate(s -> s | 1) & 1) == 0;
  }

  /** The epoch to hand to {@link #clearIfUnchangedSince}, taken when a rebuild starts. */
  public long epoch() {
    return state.get() >>> 1;
  }

  /**
   * Turns pass-through off if no reason to go stale arrived since {@code epoch}.
   *
   * @return whether pass-through is off afterwards
   */
  public boolean clearIfUnchangedSince(long epoch) {
    while (true) {
      long s = state.get();
      if ((s >>> 1) != epoch) {
        return false;
      }
      if ((s & 1) == 0 || state.compareAndSet(s, s & ~1L)) {
        return true;
      }
    }
  }
}
