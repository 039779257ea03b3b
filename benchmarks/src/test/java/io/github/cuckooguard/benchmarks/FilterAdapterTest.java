package io.github.cuckooguard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every adapter answers as the filter it wraps must: no false negatives, a false-positive rate near
 * its setting, the allocated size the setting implies, and removes that work (or refuse loudly
 * where the library has none). Keys and probes come from the fixed seed of {@link Keys};
 * CuckooFilter4J draws its own random salt, so its bounds leave dozens of standard deviations.
 */
class FilterAdapterTest {

  private static final int N = 20_000;
  private static final int PROBES = 200_000;

  @ParameterizedTest
  @EnumSource(Impl.class)
  void builtFilterHasNoFalseNegatives(Impl impl) {
    long[] keys = Keys.presentKeys(N);
    FilterAdapter filter = impl.build(keys);
    for (long key : keys) {
      assertThat(filter.mightContain(key)).as("%s lost key %s", impl, key).isTrue();
    }
  }

  /**
   * The batch call answers as single lookups (ours: LongCuckooFilter's own batch; others: a loop).
   */
  @ParameterizedTest
  @EnumSource(Impl.class)
  void batchLookupsAnswerAsSingleLookups(Impl impl) {
    FilterAdapter filter = impl.build(Keys.presentKeys(N));
    long[] probes = Keys.probes(N, 50, 4096, Keys.SEED);
    boolean[] out = new boolean[1023];
    filter.mightContainAll(probes, 7, out.length, out);
    for (int i = 0; i < out.length; i++) {
      assertThat(out[i])
          .as("%s probe %s", impl, 7 + i)
          .isEqualTo(filter.mightContain(probes[7 + i]));
    }
  }

  @ParameterizedTest
  @EnumSource(Impl.class)
  void measuredFppAndSizeMatchTheSetting(Impl impl) {
    SpaceAccuracyReport.Row row = SpaceAccuracyReport.measure(impl, Keys.presentKeys(N), PROBES);
    assertThat(row.falseNegatives()).isZero();
    double expected = expectedFpp(impl);
    // Binomial with PROBES trials: for p >= 1e-4 the expected count is >= 20 and these bounds are
    // more than 5 standard deviations away.
    assertThat(row.fpp()).as("%s fpp", impl).isBetween(expected / 3, expected * 2);
    assertThat(row.bitsPerItem())
        .as("%s bits/item", impl)
        .isBetween(minBits(impl), minBits(impl) * 1.75);
  }

  @ParameterizedTest
  @EnumSource(
      value = Impl.class,
      mode = EnumSource.Mode.EXCLUDE,
      names = {"FF_XOR_8", "FF_XOR_16", "FF_XORFUSE_8"})
  void addedKeysAreFoundAndRemovedKeysLeave(Impl impl) {
    assertThat(impl.canAdd()).isTrue();
    long[] keys = Keys.presentKeys(N);
    FilterAdapter filter = impl.empty(N);
    for (long key : keys) {
      assertThat(filter.add(key)).isTrue();
    }
    for (long key : keys) {
      assertThat(filter.mightContain(key)).isTrue();
    }
    if (!impl.canRemove()) {
      assertThatThrownBy(() -> filter.remove(keys[0]))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("remove");
      return;
    }
    for (long key : keys) {
      assertThat(filter.remove(key)).as("%s remove of an added key", impl).isTrue();
    }
    int stillFound = 0;
    for (long key : keys) {
      stillFound += filter.mightContain(key) ? 1 : 0;
    }
    assertThat(stillFound).as("%s answers for removed keys from an empty filter", impl).isZero();
  }

  @ParameterizedTest
  @EnumSource(
      value = Impl.class,
      names = {"FF_XOR_8", "FF_XOR_16", "FF_XORFUSE_8"})
  void staticFiltersRefuseAdds(Impl impl) {
    assertThat(impl.isStatic()).isTrue();
    assertThatThrownBy(() -> impl.empty(N))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("static");
    FilterAdapter built = impl.build(Keys.presentKeys(100));
    assertThatThrownBy(() -> built.add(1)).isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest
  @EnumSource(
      value = Impl.class,
      names = {"CF4J_8", "CF4J_12", "CF4J_16"})
  void cuckooFilter4jStoresTheSameTagWidth(Impl impl) {
    Adapters.Cf4j filter = (Adapters.Cf4j) impl.empty(N);
    assertThat(filter.filter.getStorageSize() / filter.filter.getActualCapacity())
        .isEqualTo(impl.width());
  }

  @ParameterizedTest
  @EnumSource(
      value = Impl.class,
      names = {"GUAVA_8", "GUAVA_12", "GUAVA_16"})
  void guavaBitsFollowItsSizingFormula(Impl impl) {
    double p = Adapters.cuckooFpp(impl.width());
    long optimal = (long) (-N * Math.log(p) / (Math.log(2) * Math.log(2)));
    long bits = impl.empty(N).bitsAllocated();
    assertThat(bits).isBetween(optimal, optimal + 64);
  }

  @org.junit.jupiter.api.Test
  void oursReportsWhenItHadToGrow() {
    FilterAdapter filter = Impl.OURS_12.empty(1000);
    for (int i = 0; i < 1000; i++) {
      filter.add(Keys.presentKey(i));
    }
    assertThat(filter.notes()).isEmpty();
    for (int i = 1000; i < 2000; i++) {
      assertThat(filter.add(Keys.presentKey(i))).isTrue();
    }
    assertThat(filter.notes()).startsWith("2 sub-filters");
  }

  /** What each filter's own documentation or sizing rule predicts at N keys. */
  private static double expectedFpp(Impl impl) {
    int f = impl.width();
    return switch (impl) {
      case FF_XOR_8, FF_XORFUSE_8 -> 1.0 / 256;
      case FF_XOR_16 -> 1.0 / 65536;
      case FF_CUCKOOPLUS_8 -> 2 * 0.95 / (1 << 6); // one 6-bit fingerprint per bucket, two buckets
      case FF_CUCKOOPLUS_16 -> 2 * 0.95 / (1 << 14);
      // CuckooFilter4J rounds buckets up to a power of two: 20 000 keys fill 4 · 8192 slots to 61
      // %.
      case CF4J_8, CF4J_12, CF4J_16 -> 2 * 4 * (N / 32768.0) / ((1L << f) - 1);
      default -> Adapters.cuckooFpp(f);
    };
  }

  /** The fewest bits per key each filter can allocate at N keys. */
  private static double minBits(Impl impl) {
    int f = impl.width();
    return switch (impl.library()) {
      case GUAVA -> -Math.log(Adapters.cuckooFpp(f)) / (Math.log(2) * Math.log(2));
      default ->
          switch (impl) {
            case FF_XOR_8, FF_XOR_16, FF_XORFUSE_8 -> f * 1.13;
            default -> f / 0.955;
          };
    };
  }
}
