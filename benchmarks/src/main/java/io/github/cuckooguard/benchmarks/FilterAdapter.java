package io.github.cuckooguard.benchmarks;

/**
 * The one interface every benchmarked filter is driven through, so that each benchmark method is
 * written once and the implementation is picked by a JMH {@code @Param} ({@link Impl}). Within one
 * forked JVM only one implementation is loaded, so calls through this interface stay monomorphic
 * and are inlined: the adapter adds no virtual call to what is measured.
 *
 * <p>Keys are primitive {@code long}s; adapters of object-keyed filters (Guava, CuckooFilter4J) box
 * them, which is part of what using those filters with {@code long} keys costs.
 */
public interface FilterAdapter {

  /** False if {@code key} was definitely never added (or was removed). */
  boolean mightContain(long key);

  /**
   * {@link #mightContain} of {@code keys[from .. from + length)} into {@code out[0 .. length)}: a
   * loop of single lookups unless the library has a batch lookup of its own.
   */
  default void mightContainAll(long[] keys, int from, int length, boolean[] out) {
    for (int i = 0; i < length; i++) {
      out[i] = mightContain(keys[from + i]);
    }
  }

  /**
   * Stores {@code key}. Returns false if the filter refused it because it is full.
   *
   * @throws UnsupportedOperationException if the filter is static (built once from all keys)
   */
  boolean add(long key);

  /**
   * {@link #add} of {@code keys[from .. from + length)}, result {@code i} into {@code out[i]}; a
   * loop unless the implementation has a batch add (ours: {@code LongCuckooFilter.addAll}, one
   * writer-lock acquisition per 1,024 keys).
   */
  default void addAll(long[] keys, int from, int length, boolean[] out) {
    for (int i = 0; i < length; i++) {
      out[i] = add(keys[from + i]);
    }
  }

  /**
   * Removes one earlier {@link #add} of {@code key}; call only for keys that were added. Returns
   * false if no copy was found.
   *
   * @throws UnsupportedOperationException if the filter cannot delete
   */
  boolean remove(long key);

  /** Bits of the filter's storage as allocated (table, bit array), not counting object headers. */
  long bitsAllocated();

  /**
   * Anything about this instance a reader of the figures must know (e.g. it had to grow); empty if
   * none.
   */
  default String notes() {
    return "";
  }
}
