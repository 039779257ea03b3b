package io.github.cuckooguard;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The operations the model-based and churn tests drive, over either public filter: a {@code
 * CuckooFilter<Long>} (funnel path) or a {@link LongCuckooFilter} (primitive path).
 */
interface FilterSubject {

  boolean add(long key);

  AddResult addIfAbsent(long key);

  boolean remove(long key);

  boolean mightContain(long key);

  int count(long key);

  boolean[] addAll(long[] keys);

  boolean[] mightContainAll(long[] keys);

  FilterInfo info();

  AbstractCuckooFilter filter();

  static FilterSubject of(LongCuckooFilter f) {
    return new FilterSubject() {
      @Override
      public boolean add(long key) {
        return f.add(key);
      }

      @Override
      public AddResult addIfAbsent(long key) {
        return f.addIfAbsent(key);
      }

      @Override
      public boolean remove(long key) {
        return f.remove(key);
      }

      @Override
      public boolean mightContain(long key) {
        return f.mightContain(key);
      }

      @Override
      public int count(long key) {
        return f.count(key);
      }

      @Override
      public boolean[] addAll(long[] keys) {
        return f.addAll(keys);
      }

      @Override
      public boolean[] mightContainAll(long[] keys) {
        return f.mightContainAll(keys);
      }

      @Override
      public FilterInfo info() {
        return f.info();
      }

      @Override
      public AbstractCuckooFilter filter() {
        return f;
      }

      @Override
      public String toString() {
        return "LongCuckooFilter";
      }
    };
  }

  static FilterSubject of(CuckooFilter<Long> f) {
    return new FilterSubject() {
      @Override
      public boolean add(long key) {
        return f.add(key);
      }

      @Override
      public AddResult addIfAbsent(long key) {
        return f.addIfAbsent(key);
      }

      @Override
      public boolean remove(long key) {
        return f.remove(key);
      }

      @Override
      public boolean mightContain(long key) {
        return f.mightContain(key);
      }

      @Override
      public int count(long key) {
        return f.count(key);
      }

      @Override
      public boolean[] addAll(long[] keys) {
        return f.addAll(boxed(keys));
      }

      @Override
      public boolean[] mightContainAll(long[] keys) {
        return f.mightContainAll(boxed(keys));
      }

      @Override
      public FilterInfo info() {
        return f.info();
      }

      @Override
      public AbstractCuckooFilter filter() {
        return f;
      }

      @Override
      public String toString() {
        return "CuckooFilter<Long>";
      }
    };
  }

  private static List<Long> boxed(long[] keys) {
    List<Long> list = new ArrayList<>(keys.length);
    for (long k : keys) {
      list.add(k);
    }
    return list;
  }

  /** The filter's {@code writeTo} bytes: its complete state, for bit-for-bit comparisons. */
  static byte[] dump(AbstractCuckooFilter filter) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      filter.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
