package io.github.cuckooguard.benchmarks;

/**
 * The implementations under comparison, as JMH {@code @Param} values. Each carries the setting that
 * makes it comparable with the others at one accuracy class:
 *
 * <ul>
 *   <li>{@code OURS_f}: {@code LongCuckooFilter} with {@code f}-bit fingerprints, sized with {@code
 *       expectedInsertions(n)}, a fixed seed, and the library's defaults otherwise (4-slot buckets,
 *       a 500-node kick search, expansion 1: a filter that cannot place a key within the kick
 *       budget grows a second sub-filter, which {@link FilterAdapter#notes()} reports and the space
 *       report shows as bits per item).
 *   <li>{@code FF_CUCKOO_f}, {@code FF_CUCKOOPLUS_f}: FastFilter 1.0.2's cuckoo filters, sized as
 *       their own {@code construct} does ({@code n / 0.95}, resp. {@code n / 0.94}). {@code
 *       FF_XOR_f}, {@code FF_XORFUSE_8}: its static xor and fuse filters (built once from all keys;
 *       lookups and space only).
 *   <li>{@code GUAVA_f}: Guava's {@code BloomFilter} created with the false-positive rate that an
 *       {@code f}-bit, 4-slot cuckoo filter has at 95 % load, {@code 1 − (1 − 1/(2^f − 1))^7.6}
 *       (2.94 %, 0.186 %, 0.0116 %): "the same fpp" as {@code OURS_f}.
 *   <li>{@code CF4J_f}: CuckooFilter4J 1.0.2 configured with the false-positive rate for which its
 *       sizing rule ({@code ⌈log2(1/fpp + 3) / 0.955⌉}) picks {@code f}-bit tags, so that it stores
 *       the same fingerprint width; its bucket count is a power of two.
 * </ul>
 *
 * The width of an implementation is the fingerprint (tag) width of the cuckoo filters and Xor/Fuse
 * filters, and the accuracy class for Guava.
 */
public enum Impl {
  OURS_8(Library.OURS, 8),
  OURS_12(Library.OURS, 12),
  OURS_13(Library.OURS, 13),
  OURS_16(Library.OURS, 16),
  FF_CUCKOO_8(Library.FASTFILTER, 8),
  FF_CUCKOO_16(Library.FASTFILTER, 16),
  FF_CUCKOOPLUS_8(Library.FASTFILTER, 8),
  FF_CUCKOOPLUS_16(Library.FASTFILTER, 16),
  FF_XOR_8(Library.FASTFILTER, 8),
  FF_XOR_16(Library.FASTFILTER, 16),
  FF_XORFUSE_8(Library.FASTFILTER, 8),
  GUAVA_8(Library.GUAVA, 8),
  GUAVA_12(Library.GUAVA, 12),
  GUAVA_16(Library.GUAVA, 16),
  CF4J_8(Library.CF4J, 8),
  CF4J_12(Library.CF4J, 12),
  CF4J_16(Library.CF4J, 16);

  /** Where an implementation comes from. */
  public enum Library {
    OURS,
    FASTFILTER,
    GUAVA,
    CF4J
  }

  private final Library library;
  private final int width;

  Impl(Library library, int width) {
    this.library = library;
    this.width = width;
  }

  /** The library this implementation comes from. */
  public Library library() {
    return library;
  }

  /** Fingerprint width in bits, or the accuracy class (8, 12, 16) for Guava. */
  public int width() {
    return width;
  }

  /** True if keys can be added one at a time to a filter made by {@link #empty}. */
  public boolean canAdd() {
    return !isStatic();
  }

  /** True if {@link FilterAdapter#remove} is supported. */
  public boolean canRemove() {
    return library == Library.OURS || library == Library.CF4J;
  }

  /** True if lookups may run concurrently with adds and removes. */
  public boolean threadSafe() {
    return library != Library.FASTFILTER;
  }

  /** Xor and fuse filters: built once from all keys, no add, no remove. */
  public boolean isStatic() {
    return this == FF_XOR_8 || this == FF_XOR_16 || this == FF_XORFUSE_8;
  }

  /** A filter holding every key of {@code keys}, sized for {@code keys.length}. */
  public FilterAdapter build(long[] keys) {
    return Adapters.build(this, keys);
  }

  /**
   * An empty filter sized for {@code capacity} keys: for cuckoo filters, {@code capacity} keys fill
   * it to its design load (95 %, CuckooPlus 94 %, CuckooFilter4J up to 95.5 % of a power-of-two
   * table); for Guava, {@code capacity} keys reach the configured fpp.
   *
   * @throws UnsupportedOperationException for a static filter ({@link #isStatic()})
   */
  public FilterAdapter empty(int capacity) {
    return Adapters.empty(this, capacity);
  }
}
