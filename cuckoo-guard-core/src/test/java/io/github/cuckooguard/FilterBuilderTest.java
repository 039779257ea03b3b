package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.internal.Sizing;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The builder fails fast: each setter checks its value (the message names the value and the
 * accepted range) and may be called once; build() rejects what cannot be built, naming what to do.
 */
class FilterBuilderTest {

  private static LongCuckooFilter.Builder builder() {
    return LongCuckooFilter.newBuilder();
  }

  @ParameterizedTest(name = "{0}({1})")
  @CsvSource(
      delimiter = '|',
      value = {
        "expectedInsertions | 0 | expectedInsertions (0) must be in [1, 1099511627776]",
        "expectedInsertions | -5 | expectedInsertions (-5) must be in [1, 1099511627776]",
        "expectedInsertions | 1099511627777 | expectedInsertions (1099511627777) must be in [1, 1099511627776]",
        "fpp | 0 | fpp (0.0) must be in (0, 1)",
        "fpp | 1 | fpp (1.0) must be in (0, 1)",
        "fpp | -0.5 | fpp (-0.5) must be in (0, 1)",
        "fpp | NaN | fpp (NaN) must be in (0, 1)",
        "fingerprintBits | 3 | fingerprintBits (3) must be in [4, 16]",
        "fingerprintBits | 17 | fingerprintBits (17) must be in [4, 16]",
        "bucketSize | 1 | bucketSize (1) must be 2, 4 or 8",
        "bucketSize | 3 | bucketSize (3) must be 2, 4 or 8",
        "bucketSize | 16 | bucketSize (16) must be 2, 4 or 8",
        "maxKicks | 0 | maxKicks (0) must be in [1, 65535]",
        "maxKicks | 65536 | maxKicks (65536) must be in [1, 65535]",
        "expansion | -1 | expansion (-1) must be in [0, 32768]",
        "expansion | 32769 | expansion (32769) must be in [0, 32768]",
        "maxBytes | 0 | maxBytes (0) must be >= 1",
        "maxBytes | -1 | maxBytes (-1) must be >= 1"
      })
  void settersRejectValuesOutsideTheirRangeNamingValueAndRange(
      String setter, String value, String message) {
    assertThatThrownBy(() -> set(builder(), setter, value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @ParameterizedTest(name = "{0}({1})")
  @CsvSource({
    "expectedInsertions, 1",
    "expectedInsertions, 1099511627776",
    "fpp, 0.5",
    "fingerprintBits, 4",
    "fingerprintBits, 16",
    "bucketSize, 2",
    "bucketSize, 8",
    "maxKicks, 1",
    "maxKicks, 65535",
    "expansion, 0",
    "expansion, 32768",
    "seed, -1"
  })
  void settersAcceptTheirBounds(String setter, String value) {
    set(builder(), setter, value);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "expectedInsertions, 10, 10",
    "fpp, 0.5, 0.5",
    "fingerprintBits, 8, 8",
    "bucketSize, 8, 8",
    "maxKicks, 9, 9",
    "expansion, 2, 2",
    "seed, 42, 42",
    "maxBytes, 4096, 4096"
  })
  void eachSetterMayBeCalledOnlyOnce(String setter, String value, String shown) {
    LongCuckooFilter.Builder b = builder();
    set(b, setter, value);
    assertThatThrownBy(() -> set(b, setter, value))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(setter + " was already set to " + shown);
  }

  @Test
  void fppAndFingerprintBitsAreExclusive() {
    assertThatThrownBy(() -> builder().fpp(0.01).fingerprintBits(8))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("fingerprintBits cannot be set together with fpp (0.01); set one of them");
    assertThatThrownBy(() -> builder().fingerprintBits(8).fpp(0.01))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("fpp cannot be set together with fingerprintBits (8); set one of them");
  }

  private static void set(LongCuckooFilter.Builder b, String setter, String value) {
    Consumer<LongCuckooFilter.Builder> call =
        switch (setter) {
          case "expectedInsertions" -> x -> x.expectedInsertions(Long.parseLong(value));
          case "fpp" -> x -> x.fpp(Double.parseDouble(value));
          case "fingerprintBits" -> x -> x.fingerprintBits(Integer.parseInt(value));
          case "bucketSize" -> x -> x.bucketSize(Integer.parseInt(value));
          case "maxKicks" -> x -> x.maxKicks(Integer.parseInt(value));
          case "expansion" -> x -> x.expansion(Integer.parseInt(value));
          case "seed" -> x -> x.seed(Long.parseLong(value));
          case "maxBytes" -> x -> x.maxBytes(Long.parseLong(value));
          default -> throw new IllegalArgumentException(setter);
        };
    call.accept(b);
  }

  @ParameterizedTest(name = "bucket size {0}")
  @CsvSource({"2, 5.126953125E-5", "4, 1.15966796875E-4", "8, 2.392578125E-4"})
  void fppBelowWhatSixteenBitFingerprintsReachIsRejectedNamingTheSmallest(
      int bucketSize, double smallest) {
    assertThatThrownBy(() -> builder().bucketSize(bucketSize).fpp(smallest * 0.99).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fpp (" + smallest * 0.99 + ")")
        .hasMessageContaining("the smallest is " + smallest);
    assertThat(builder().bucketSize(bucketSize).fpp(smallest).build().info().fingerprintBits())
        .as("the smallest named fpp is accepted")
        .isEqualTo(16);
  }

  @ParameterizedTest(name = "{0} keys at b = {1}, f = {2}")
  @CsvSource({"1099511627776, 4, 8", "8600000000, 8, 16", "8200000000, 4, 16"})
  void capacityBeyondAJavaArrayIsRejectedAtBuildNamingIt(long expected, int bucketSize, int bits) {
    assertThatThrownBy(
            () ->
                builder()
                    .expectedInsertions(expected)
                    .bucketSize(bucketSize)
                    .fingerprintBits(bits)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedInsertions (" + expected + ")")
        .hasMessageContaining("shard keys over several filters");
  }

  /**
   * {@code expectedInsertions(8e9)} passed validation and build() then threw an OutOfMemoryError
   * (about 10.5 GB asked); now build() refuses it at once, naming the value passed and the accepted
   * range at these settings.
   */
  @Test
  void expectedInsertionsTheHeapCannotHoldFailAtBuildNamingTheValueAndTheAcceptedRange() {
    long bound = (long) (Runtime.getRuntime().maxMemory() * 0.5);
    // The value (a 10.5 GB table at the default 10-bit fingerprints) on any heap below
    // 21 GB; on a larger one, the smallest count whose table exceeds half of it.
    long expected =
        Sizing.firstTableBytes(8_000_000_000L, 10, 4) > bound
            ? 8_000_000_000L
            : Sizing.maxExpectedInsertions(
                    10, 4, bound, AbstractFilterBuilder.MAX_EXPECTED_INSERTIONS)
                + 1;
    assertThatThrownBy(() -> builder().expectedInsertions(expected).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedInsertions (" + expected + ") needs ")
        .hasMessageContaining("by default 0.5 of Runtime.maxMemory()")
        .hasMessageContaining("the accepted range at these settings is [1, ");
  }

  /** The accepted maximum named in the message is exact: it builds, one more does not. */
  @Test
  void theAcceptedMaximumNamedForAMemoryBoundIsExact() {
    long bound = 1 << 20;
    Throwable t =
        org.assertj.core.api.Assertions.catchThrowable(
            () ->
                builder()
                    .expectedInsertions(10_000_000)
                    .fingerprintBits(12)
                    .maxBytes(bound)
                    .build());
    assertThat(t)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedInsertions (10000000) needs ")
        .hasMessageContaining("maxBytes (1048576)");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("is \\[1, (\\d+)\\]").matcher(t.getMessage());
    assertThat(m.find()).as(t.getMessage()).isTrue();
    long max = Long.parseLong(m.group(1));
    LongCuckooFilter largest =
        builder().expectedInsertions(max).fingerprintBits(12).maxBytes(bound).build();
    assertThat(largest.sizeInBytes()).isLessThanOrEqualTo(bound);
    assertThatThrownBy(
            () -> builder().expectedInsertions(max + 1).fingerprintBits(12).maxBytes(bound).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedInsertions (" + (max + 1) + ")");
  }

  /** Above what one array indexes, the message gave no accepted range before. */
  @Test
  void capacityBeyondAJavaArrayNamesTheAcceptedRange() {
    assertThatThrownBy(
            () ->
                builder()
                    .expectedInsertions(8_200_000_000L)
                    .fingerprintBits(16)
                    .maxBytes(Long.MAX_VALUE)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "expectedInsertions (8200000000) needs a table larger than a Java array can index")
        .hasMessageContaining("the accepted range at these settings is [1, 8160437");
  }

  @Test
  void aMaxBytesBelowTheSmallestTableIsRejectedAtBuildNamingIt() {
    assertThatThrownBy(() -> builder().expectedInsertions(1).maxBytes(8).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBytes (8) is smaller than");
  }

  @Test
  void fppPicksTheFingerprintWidthFromTheSizingFormula() {
    // f = ceil(log2(2 * 4 * 0.95 / fpp)), at least 4.
    assertThat(builder().fpp(0.01).build().info().fingerprintBits()).isEqualTo(10);
    assertThat(builder().fpp(0.001).build().info().fingerprintBits()).isEqualTo(13);
    assertThat(builder().fpp(0.5).build().info().fingerprintBits()).isEqualTo(4);
    assertThat(builder().fpp(0.01).bucketSize(2).build().info().fingerprintBits()).isEqualTo(9);
  }

  @Test
  void defaultsAreRedisBloomsAndTheDocumentedConstants() {
    FilterInfo info = builder().build().info();
    assertThat(info.bucketSize()).isEqualTo(AbstractFilterBuilder.DEFAULT_BUCKET_SIZE).isEqualTo(4);
    assertThat(info.maxKicks()).isEqualTo(AbstractFilterBuilder.DEFAULT_MAX_KICKS).isEqualTo(1000);
    assertThat(info.expansion()).isEqualTo(AbstractFilterBuilder.DEFAULT_EXPANSION).isEqualTo(2);
    assertThat(info.fingerprintBits()).as("fpp 0.01").isEqualTo(10);
    assertThat(info.buckets()).as("1024 keys at 0.95 load, rounded up to even").isEqualTo(270);
  }

  @Test
  void aBuilderBuildsIndependentFiltersWithFreshSeedsUnlessOneIsSet() {
    LongCuckooFilter.Builder random = builder();
    LongCuckooFilter a = random.build();
    LongCuckooFilter b = random.build();
    a.add(1);
    assertThat(b.mightContain(1)).isFalse();
    assertThat(FilterSubject.dump(a)).isNotEqualTo(FilterSubject.dump(b));

    LongCuckooFilter.Builder seeded = builder().seed(5);
    assertThat(DumpBytes.state(seeded.build())).isEqualTo(DumpBytes.state(seeded.build()));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4, 8})
  void bucketSizeAndExpectedInsertionsGiveAnEvenBucketCountForTheDesignLoad(int bucketSize) {
    double load = bucketSize == 2 ? 0.84 : bucketSize == 4 ? 0.95 : 0.98;
    for (long n : new long[] {1, 7, 100, 999, 12_345}) {
      long buckets =
          builder().expectedInsertions(n).bucketSize(bucketSize).build().info().buckets();
      assertThat(buckets % 2).isZero();
      assertThat(buckets)
          .isGreaterThanOrEqualTo(2)
          .isBetween(
              (long) Math.ceil(n / (bucketSize * load)),
              (long) Math.ceil(n / (bucketSize * load)) + 1);
    }
  }
}
