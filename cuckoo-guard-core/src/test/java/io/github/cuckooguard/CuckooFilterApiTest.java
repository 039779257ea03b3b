package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.dynatrace.hash4j.hashing.Hashing;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The public operations at their edges: nulls, results, info() fields, CF.INSERT semantics. */
class CuckooFilterApiTest {

  private static CuckooFilter<CharSequence> strings() {
    return CuckooFilter.newBuilder(Funnels.stringFunnel()).expectedInsertions(100).seed(1).build();
  }

  @Test
  void nullKeysAreRejectedNamingTheArgument() {
    CuckooFilter<CharSequence> filter = strings();
    List<ThrowingCallable> calls =
        List.of(
            () -> filter.add(null),
            () -> filter.addIfAbsent(null),
            () -> filter.mightContain(null),
            () -> filter.count(null),
            () -> filter.remove(null));
    for (ThrowingCallable call : calls) {
      assertThatThrownBy(call).isInstanceOf(NullPointerException.class).hasMessage("key");
    }
    assertThat(filter.approximateElementCount()).isZero();
  }

  @Test
  void nullCollectionsAndNullElementsAreRejectedBeforeAnyKeyIsTouched() {
    CuckooFilter<CharSequence> filter = strings();
    List<CharSequence> withNull = Arrays.asList("a", null, "c");
    assertThatThrownBy(() -> filter.addAll(withNull))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keys[1] is null");
    assertThatThrownBy(() -> filter.addAllIfAbsent(withNull))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keys[1] is null");
    assertThatThrownBy(() -> filter.mightContainAll(withNull))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keys[1] is null");
    assertThat(filter.mightContain("a"))
        .as("nothing was added before the null was found")
        .isFalse();
    assertThatThrownBy(() -> filter.addAll(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keys");
    assertThatThrownBy(() -> filter.mightContainAll(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keys");

    LongCuckooFilter longs = LongCuckooFilter.newBuilder().build();
    assertThatThrownBy(() -> longs.addAll((long[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keys");
    assertThatThrownBy(() -> longs.mightContainAll((long[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keys");
  }

  @Test
  void otherNullArgumentsAreRejectedByName() {
    CuckooFilter<CharSequence> filter = strings();
    assertThatThrownBy(() -> CuckooFilter.newBuilder(null)).hasMessage("funnel");
    assertThatThrownBy(() -> filter.writeTo(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("out");
    assertThatThrownBy(() -> CuckooFilter.readFrom(null, Funnels.longFunnel())).hasMessage("in");
    assertThatThrownBy(() -> CuckooFilter.readFrom(new ByteArrayInputStream(new byte[0]), null))
        .hasMessage("funnel");
    assertThatThrownBy(() -> LongCuckooFilter.readFrom(null)).hasMessage("in");
    assertThatThrownBy(() -> CuckooFilter.loader(null)).hasMessage("funnel");
    assertThatThrownBy(() -> LongCuckooFilter.loader().loadChunk(null)).hasMessage("chunk");
    assertThatThrownBy(() -> LongCuckooFilter.loader().loadChunk(1, null)).hasMessage("data");
    assertThatThrownBy(() -> new DumpChunk(1, null)).hasMessage("data");
  }

  @Test
  void negativeCursorsAreRejected() {
    assertThatThrownBy(() -> strings().scanDump(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cursor (-1) must be >= 0");
    assertThatThrownBy(() -> new DumpChunk(-2, new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cursor (-2) must be >= 0");
  }

  @Test
  void infoReportsShapeAndFillAfterAddsAndRemoves() {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(1000)
            .expansion(0)
            .maxKicks(300)
            .seed(8)
            .build();
    FilterInfo empty = filter.info();
    assertThat(empty.itemsInserted()).isZero();
    assertThat(empty.expectedFpp()).isZero();
    assertThat(empty.bitsPerItem()).isNaN();

    for (long k = 0; k < 100; k++) {
      assertThat(filter.add(k)).isTrue();
    }
    assertThat(filter.add(7)).as("a second copy").isTrue();
    for (long k = 0; k < 30; k++) {
      assertThat(filter.remove(k)).isTrue();
    }
    assertThat(filter.remove(-1)).as("a key never added, with no colliding copy").isFalse();

    FilterInfo info = filter.info();
    long buckets = 264; // ceil(1000 / 3.8) rounded up to even
    long words =
        (buckets * 4 * 10 + 63) / 64 + 1; // bit-packed slots, rounded up, plus the spare word
    assertThat(info.buckets()).isEqualTo(buckets);
    assertThat(info.subFilters()).isEqualTo(1);
    assertThat(info.itemsInserted()).isEqualTo(71);
    assertThat(info.itemsDeleted()).isEqualTo(30);
    assertThat(info.bucketSize()).isEqualTo(4);
    assertThat(info.expansion()).isZero();
    assertThat(info.maxKicks()).isEqualTo(300);
    assertThat(info.fingerprintBits()).isEqualTo(10);
    assertThat(info.sizeInBytes()).isEqualTo(words * 8).isEqualTo(filter.sizeInBytes());
    assertThat(info.loadFactor()).isEqualTo(71.0 / (buckets * 4)).isEqualTo(filter.loadFactor());
    assertThat(info.expectedFpp())
        .isCloseTo(1 - Math.pow(1 - 1.0 / 1023, 8 * 71.0 / (buckets * 4)), within(1e-15))
        .isEqualTo(filter.expectedFpp());
    assertThat(info.bitsPerItem()).isEqualTo(words * 64.0 / 71);
    assertThat(filter.approximateElementCount()).isEqualTo(71);
    assertThat(filter.toString()).startsWith("LongCuckooFilter").contains("itemsInserted=71");
  }

  @Test
  void addIfAbsentAnswersAddedAlreadyPresentOrFull() {
    // Two buckets of four slots: every key has the same bucket pair, eight slots in all.
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder().expectedInsertions(1).expansion(0).seed(4).build();
    assertThat(filter.info().buckets()).isEqualTo(2);
    assertThat(filter.addIfAbsent(100)).isEqualTo(AddResult.ADDED);
    assertThat(filter.addIfAbsent(100)).isEqualTo(AddResult.ALREADY_PRESENT);
    assertThat(filter.count(100)).isEqualTo(1);
    long key = 101;
    while (filter.approximateElementCount() < 8) {
      filter.add(key++);
    }
    while (filter.mightContain(key)) {
      key++;
    }
    assertThat(filter.addIfAbsent(key)).isEqualTo(AddResult.FULL);
    assertThat(filter.mightContain(key)).isFalse();
    assertThat(filter.addIfAbsent(100))
        .as("present beats full")
        .isEqualTo(AddResult.ALREADY_PRESENT);
  }

  /**
   * CF.INSERT: one result per key, and a failure does not stop the keys after it (RedisBloom's
   * {@code CF.INSERT cf2 ITEMS 1 1 1 1} on a 2-slot filter gives 1 1 -1 -1). Here key A fills its
   * two 2-slot buckets, the fifth copy fails, and key B, whose buckets still have room, is stored.
   */
  @Test
  void addAllContinuesAfterAFailedKey() {
    CuckooFilter.Builder<Long> builder =
        CuckooFilter.newBuilder(Funnels.longFunnel())
            .expectedInsertions(6)
            .bucketSize(2)
            .expansion(0)
            .seed(12);
    long a = 1;
    CuckooFilter<Long> probe = builder.build();
    for (int i = 0; i < 4; i++) {
      assertThat(probe.add(a)).isTrue();
    }
    assertThat(probe.add(a)).isFalse();
    long b = 2;
    while (!probe.add(b)) {
      b++;
    }

    CuckooFilter<Long> filter =
        CuckooFilter.newBuilder(Funnels.longFunnel())
            .expectedInsertions(6)
            .bucketSize(2)
            .expansion(0)
            .seed(12)
            .build();
    assertThat(filter.addAll(List.of(a, a, a, a, a, b)))
        .containsExactly(true, true, true, true, false, true);
    assertThat(filter.count(a)).isEqualTo(4);
    assertThat(filter.mightContainAll(List.of(a, b, 123_456_789L)))
        .containsExactly(true, true, filter.mightContain(123_456_789L));

    CuckooFilter<Long> nx =
        CuckooFilter.newBuilder(Funnels.longFunnel())
            .expectedInsertions(6)
            .bucketSize(2)
            .expansion(0)
            .seed(12)
            .build();
    assertThat(nx.addAllIfAbsent(List.of(a, a, b)))
        .containsExactly(AddResult.ADDED, AddResult.ALREADY_PRESENT, AddResult.ADDED);

    LongCuckooFilter longs =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(6)
            .bucketSize(2)
            .expansion(0)
            .seed(12)
            .build();
    assertThat(longs.addAll(a, a, a, a, a, b)).containsExactly(true, true, true, true, false, true);
    assertThat(longs.mightContainAll(a, b)).containsExactly(true, true);
  }

  @Test
  void everyFunnelTracksItsKeysUnderItsStableId() {
    assertThat(Funnels.longFunnel().id()).isEqualTo("long");
    assertThat(Funnels.integerFunnel().id()).isEqualTo("int");
    assertThat(Funnels.stringFunnel().id()).isEqualTo("string-utf8");
    assertThat(Funnels.byteArrayFunnel().id()).isEqualTo("bytes");
    assertThat(Funnels.uuidFunnel().id()).isEqualTo("uuid");

    CuckooFilter<Integer> ints = CuckooFilter.newBuilder(Funnels.integerFunnel()).seed(1).build();
    CuckooFilter<byte[]> bytes = CuckooFilter.newBuilder(Funnels.byteArrayFunnel()).seed(1).build();
    CuckooFilter<UUID> uuids = CuckooFilter.newBuilder(Funnels.uuidFunnel()).seed(1).build();
    CuckooFilter<CharSequence> strings =
        CuckooFilter.newBuilder(Funnels.stringFunnel()).seed(1).build();
    for (int i = 0; i < 500; i++) {
      ints.add(i);
      bytes.add(("k" + i).getBytes(StandardCharsets.UTF_8));
      uuids.add(new UUID(i, -i));
      strings.add(new StringBuilder("s").append(i));
    }
    for (int i = 0; i < 500; i++) {
      assertThat(ints.mightContain(i)).isTrue();
      assertThat(bytes.mightContain(("k" + i).getBytes(StandardCharsets.UTF_8)))
          .as("equal bytes, other array")
          .isTrue();
      assertThat(uuids.mightContain(new UUID(i, -i))).isTrue();
      assertThat(strings.mightContain("s" + i))
          .as("a String finds the StringBuilder's key")
          .isTrue();
    }
  }

  /**
   * The hash scheme the dump header names ("xxh3-64"), recomputed independently: the key's
   * fingerprint is the low f bits of XXH3-64(seed) over the funnel's bytes (0 read as 1), its first
   * bucket the multiply-shift of the high 32 bits, and in an empty table it lands in slot 0 of that
   * bucket. Dumps must keep reading back into the same answers, so this pins the format.
   */
  @Test
  void keysHashWithSeededXxh3OfTheFunnelBytesIntoTheDocumentedBucket() {
    int bits = 12;
    for (int i = 0; i < 200; i++) {
      long seed = 1000 + i;
      String key = "golden-" + i;
      CuckooFilter<CharSequence> filter =
          CuckooFilter.newBuilder(Funnels.stringFunnel())
              .expectedInsertions(100)
              .fingerprintBits(bits)
              .seed(seed)
              .build();
      filter.add(key);
      long buckets = filter.info().buckets();

      long h = Hashing.xxh3_64(seed).hashBytesToLong(key.getBytes(StandardCharsets.UTF_8));
      long fp = h & ((1 << bits) - 1);
      fp = fp == 0 ? 1 : fp;
      long bucket = ((h >>> 32) * buckets) >>> 32;

      DumpBytes dump = new DumpBytes(FilterSubject.dump(filter));
      long bitPos = bucket * 4 * bits;
      int word = (int) (bitPos >>> 6);
      int off = (int) (bitPos & 63);
      long slot =
          (dump.word(word) >>> off | (off + bits > 64 ? dump.word(word + 1) << (64 - off) : 0))
              & ((1 << bits) - 1);
      assertThat(slot).as("slot 0 of bucket %s for key %s", bucket, key).isEqualTo(fp);
    }
  }

  @Test
  void dumpChunksAreValuesAndTheEndMarkerHasCursorZero() {
    DumpChunk a = new DumpChunk(5, new byte[] {1, 2, 3});
    DumpChunk b = new DumpChunk(5, new byte[] {1, 2, 3});
    assertThat(a)
        .isEqualTo(b)
        .hasSameHashCodeAs(b)
        .isNotEqualTo(new DumpChunk(5, new byte[] {1, 2}))
        .isNotEqualTo(new DumpChunk(6, new byte[] {1, 2, 3}));
    assertThat(a.toString()).isEqualTo("DumpChunk[cursor=5, bytes=3]");
    assertThat(a.isEnd()).isFalse();
    assertThat(DumpChunk.END.isEnd()).isTrue();
    assertThat(DumpChunk.END.data()).isEmpty();
  }
}
