package io.github.cuckooguard.benchmarks;

import com.github.mgunlogson.cuckoofilter4j.CuckooFilter;
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import io.github.cuckooguard.LongCuckooFilter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;
import org.fastfilter.Filter;
import org.fastfilter.cuckoo.Cuckoo16;
import org.fastfilter.cuckoo.Cuckoo8;
import org.fastfilter.cuckoo.CuckooPlus16;
import org.fastfilter.cuckoo.CuckooPlus8;
import org.fastfilter.utils.Hash;
import org.fastfilter.xor.Xor16;
import org.fastfilter.xor.Xor8;
import org.fastfilter.xor.XorFuse8;

/** The {@link FilterAdapter}s of each library, and how each is built for a given size. */
final class Adapters {

  /** 4-slot buckets at 95 % load: a key is compared with 2 · 4 · 0.95 occupied slots. */
  private static final double SLOTS_COMPARED = 2 * 4 * 0.95;

  /** CuckooFilter4J's load factor constant, used by its tag-width rule. */
  private static final double CF4J_LOAD_FACTOR = 0.955;

  private Adapters() {}

  /** The false-positive rate of an {@code f}-bit, 4-slot cuckoo filter at 95 % load. */
  static double cuckooFpp(int f) {
    return 1 - Math.pow(1 - 1.0 / ((1L << f) - 1), SLOTS_COMPARED);
  }

  /**
   * The fpp for which CuckooFilter4J picks {@code f}-bit tags: it uses {@code ⌈log2(1/fpp + 3) /
   * 0.955⌉}, so aim at the middle of the interval that rounds to f.
   */
  static double cf4jFppForTagBits(int f) {
    return 1 / (Math.pow(2, (f - 0.5) * CF4J_LOAD_FACTOR) - 3);
  }

  static FilterAdapter build(Impl impl, long[] keys) {
    switch (impl) {
      case FF_CUCKOO_8:
      case FF_CUCKOO_16:
      case FF_CUCKOOPLUS_8:
      case FF_CUCKOOPLUS_16:
      case FF_XOR_8:
      case FF_XOR_16:
      case FF_XORFUSE_8:
        // FastFilter's own bulk construction (its cuckoo filters retry with a new seed if full).
        Hash.setSeed(Keys.SEED);
        return new FastFilter(construct(impl, keys), null, impl);
      case CF4J_8:
      case CF4J_12:
      case CF4J_16:
        // Sized for n, CuckooFilter4J can run at up to 95.5 % of its power-of-two table (95.4 % at
        // n = 10^6) and then refuses a key in some builds; each build draws a new random salt, so
        // retry as FastFilter's construct does, and say so in the notes.
        for (int attempt = 1; ; attempt++) {
          try {
            Cf4j filter = (Cf4j) fill(empty(impl, keys.length), keys, impl);
            filter.builds = attempt;
            return filter;
          } catch (IllegalStateException e) {
            if (attempt == CF4J_BUILD_ATTEMPTS) {
              throw e;
            }
          }
        }
      default:
        return fill(empty(impl, keys.length), keys, impl);
    }
  }

  private static final int CF4J_BUILD_ATTEMPTS = 10;

  private static FilterAdapter fill(FilterAdapter filter, long[] keys, Impl impl) {
    for (int i = 0; i < keys.length; i++) {
      if (!filter.add(keys[i])) {
        throw new IllegalStateException(
            impl
                + " refused key #"
                + i
                + " of "
                + keys.length
                + ": full below the capacity it was sized for");
      }
    }
    return filter;
  }

  private static Filter construct(Impl impl, long[] keys) {
    switch (impl) {
      case FF_CUCKOO_8:
        return Cuckoo8.construct(keys);
      case FF_CUCKOO_16:
        return Cuckoo16.construct(keys);
      case FF_CUCKOOPLUS_8:
        return CuckooPlus8.construct(keys);
      case FF_CUCKOOPLUS_16:
        return CuckooPlus16.construct(keys);
      case FF_XOR_8:
        return Xor8.construct(keys);
      case FF_XOR_16:
        return Xor16.construct(keys);
      case FF_XORFUSE_8:
        return XorFuse8.construct(keys);
      default:
        throw new IllegalArgumentException(impl + " is not a FastFilter implementation");
    }
  }

  static FilterAdapter empty(Impl impl, int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity (" + capacity + ") must be >= 1");
    }
    Hash.setSeed(Keys.SEED);
    switch (impl) {
      case OURS_8:
      case OURS_12:
      case OURS_13:
      case OURS_16:
        return new Ours(
            LongCuckooFilter.newBuilder()
                .expectedInsertions(capacity)
                .fingerprintBits(impl.width())
                .seed(Keys.SEED)
                .build());
      case FF_CUCKOO_8:
        {
          Cuckoo8 f = new Cuckoo8((int) (capacity / 0.95));
          return new FastFilter(f, f::insert, impl);
        }
      case FF_CUCKOO_16:
        {
          Cuckoo16 f = new Cuckoo16((int) (capacity / 0.95));
          return new FastFilter(f, f::insert, impl);
        }
      case FF_CUCKOOPLUS_8:
        {
          CuckooPlus8 f = new CuckooPlus8((int) (capacity / 0.94));
          return new FastFilter(f, f::insert, impl);
        }
      case FF_CUCKOOPLUS_16:
        {
          CuckooPlus16 f = new CuckooPlus16((int) (capacity / 0.94));
          return new FastFilter(f, f::insert, impl);
        }
      case GUAVA_8:
      case GUAVA_12:
      case GUAVA_16:
        return new Guava(
            BloomFilter.create(Funnels.longFunnel(), capacity, cuckooFpp(impl.width())));
      case CF4J_8:
      case CF4J_12:
      case CF4J_16:
        return new Cf4j(
            new CuckooFilter.Builder<>(Funnels.longFunnel(), capacity)
                .withFalsePositiveRate(cf4jFppForTagBits(impl.width()))
                .build());
      default:
        throw new UnsupportedOperationException(
            impl
                + " is static: it is built once from all keys"
                + " (Impl.build) and cannot add keys one by one");
    }
  }

  /** Ours: {@link LongCuckooFilter}, primitive keys, thread-safe, deletes. */
  static final class Ours implements FilterAdapter {
    final LongCuckooFilter filter;

    Ours(LongCuckooFilter filter) {
      this.filter = filter;
    }

    @Override
    public boolean mightContain(long key) {
      return filter.mightContain(key);
    }

    /** The library's batch lookup: one validation per group of keys, no allocation. */
    @Override
    public void mightContainAll(long[] keys, int from, int length, boolean[] out) {
      filter.mightContainAll(keys, from, length, out);
    }

    @Override
    public boolean add(long key) {
      return filter.add(key);
    }

    /** The library's batch add: the writer lock once per 1,024 keys. */
    @Override
    public void addAll(long[] keys, int from, int length, boolean[] out) {
      filter.addAll(keys, from, length, out);
    }

    @Override
    public boolean remove(long key) {
      return filter.remove(key);
    }

    @Override
    public long bitsAllocated() {
      return filter.sizeInBytes() * 8;
    }

    /** Sub-filters appear when an add found no place within the kick budget (expansion 2). */
    @Override
    public String notes() {
      int tables = filter.info().subFilters();
      return tables == 1
          ? ""
          : tables + " sub-filters: the first refused a key before holding all it was sized for";
    }
  }

  /** FastFilter: any {@link Filter}; {@code insert} is null for a filter built once. */
  static final class FastFilter implements FilterAdapter {
    final Filter filter;
    private final LongConsumer insert;
    private final Impl impl;

    FastFilter(Filter filter, LongConsumer insert, Impl impl) {
      this.filter = filter;
      this.insert = insert;
      this.impl = impl;
    }

    @Override
    public boolean mightContain(long key) {
      return filter.mayContain(key);
    }

    /** FastFilter's cuckoo inserts throw IllegalStateException("Table full") instead of failing. */
    @Override
    public boolean add(long key) {
      if (insert == null) {
        throw new UnsupportedOperationException(
            impl + " is static: built once from all keys, it cannot add");
      }
      insert.accept(key);
      return true;
    }

    @Override
    public boolean remove(long key) {
      throw new UnsupportedOperationException(impl + " (FastFilter 1.0.2) has no remove");
    }

    @Override
    public long bitsAllocated() {
      return filter.getBitCount();
    }
  }

  /** Guava's {@link BloomFilter} of boxed longs. */
  static final class Guava implements FilterAdapter {
    final BloomFilter<Long> filter;
    private final long bits;

    Guava(BloomFilter<Long> filter) {
      this.filter = filter;
      this.bits = guavaBits(filter);
    }

    @Override
    public boolean mightContain(long key) {
      return filter.mightContain(key);
    }

    /** Guava's put answers whether bits changed; the key is stored either way. */
    @Override
    public boolean add(long key) {
      filter.put(key);
      return true;
    }

    @Override
    public boolean remove(long key) {
      throw new UnsupportedOperationException("Guava's BloomFilter cannot remove");
    }

    @Override
    public long bitsAllocated() {
      return bits;
    }
  }

  /**
   * The bit array's size from Guava's documented serial form: strategy (1 byte), hash count (1
   * byte), number of longs (int, big-endian), the longs.
   */
  static long guavaBits(BloomFilter<?> filter) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      filter.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    byte[] bytes = out.toByteArray();
    int longs = ByteBuffer.wrap(bytes, 2, 4).getInt();
    if (bytes.length != 6 + 8L * longs) {
      throw new IllegalStateException(
          "unexpected Guava BloomFilter serial form: "
              + bytes.length
              + " bytes for "
              + longs
              + " longs");
    }
    return 64L * longs;
  }

  /** CuckooFilter4J's {@link CuckooFilter} of boxed longs. */
  static final class Cf4j implements FilterAdapter {
    final CuckooFilter<Long> filter;
    int builds = 1;

    Cf4j(CuckooFilter<Long> filter) {
      this.filter = filter;
    }

    @Override
    public boolean mightContain(long key) {
      return filter.mightContain(key);
    }

    @Override
    public boolean add(long key) {
      return filter.put(key);
    }

    @Override
    public boolean remove(long key) {
      return filter.delete(key);
    }

    @Override
    public long bitsAllocated() {
      return filter.getStorageSize();
    }

    @Override
    public String notes() {
      return builds == 1 ? "" : "built " + builds + " times: earlier builds refused a key";
    }
  }
}
