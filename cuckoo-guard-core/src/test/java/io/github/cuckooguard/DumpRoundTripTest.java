package io.github.cuckooguard;

import static io.github.cuckooguard.DumpBytes.state;
import static io.github.cuckooguard.FilterSubject.dump;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A filter written and read back, as a stream ({@code writeTo}/{@code readFrom}) or in chunks
 * ({@code scanDump}/{@code loader}), answers exactly as the original: same {@code mightContain} and
 * {@code count} for added, removed and never-added keys, same {@code info()}, same bytes when
 * written again, and it keeps working (adds, removes, growth) afterwards.
 */
class DumpRoundTripTest {

  /**
   * A string filter with adds, duplicate adds and removes, grown to several sub-filters unless
   * expansion is 0.
   */
  private static CuckooFilter<CharSequence> populated(int expansion, int capacity) {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.newBuilder(Funnels.stringFunnel())
            .expectedInsertions(capacity)
            .fingerprintBits(12)
            .expansion(expansion)
            .seed(1234)
            .build();
    for (int i = 0; i < 3_000; i++) {
      filter.add("key-" + i);
    }
    for (int i = 0; i < 300; i++) {
      filter.add("key-" + i); // second copies
    }
    for (int i = 0; i < 3_000; i += 3) {
      filter.remove("key-" + i);
    }
    return filter;
  }

  private static void assertSameAnswers(
      CuckooFilter<CharSequence> expected, CuckooFilter<CharSequence> actual) {
    assertThat(actual.info()).isEqualTo(expected.info());
    assertThat(actual.approximateElementCount()).isEqualTo(expected.approximateElementCount());
    assertThat(actual.expectedFpp()).isEqualTo(expected.expectedFpp());
    for (int i = 0; i < 20_000; i++) {
      String key = (i % 2 == 0 ? "key-" : "absent-") + i;
      assertThat(actual.mightContain(key)).as(key).isEqualTo(expected.mightContain(key));
      assertThat(actual.count(key)).as(key).isEqualTo(expected.count(key));
    }
    assertThat(state(actual)).isEqualTo(state(expected));
  }

  @ParameterizedTest(name = "expansion {0}, capacity {1}")
  @CsvSource({"0, 4000", "1, 1000", "2, 500"})
  void writeToReadFromRoundTripAnswersIdentically(int expansion, int capacity) throws IOException {
    CuckooFilter<CharSequence> original = populated(expansion, capacity);
    if (expansion > 0) {
      assertThat(original.info().subFilters()).isGreaterThan(1);
    }
    assertThat(original.info().itemsDeleted()).isEqualTo(1_000);

    CuckooFilter<CharSequence> copy =
        CuckooFilter.readFrom(new ByteArrayInputStream(dump(original)), Funnels.stringFunnel());
    assertSameAnswers(original, copy);
  }

  @ParameterizedTest(name = "expansion {0}, capacity {1}")
  @CsvSource({"0, 4000", "1, 1000", "2, 500"})
  void scanDumpAndLoaderRoundTripAnswersIdentically(int expansion, int capacity)
      throws CorruptDumpException {
    CuckooFilter<CharSequence> original = populated(expansion, capacity);
    List<DumpChunk> chunks = DumpBytes.chunks(original);
    assertThat(chunks)
        .as("the header, then one chunk per sub-filter (each below 8 MiB)")
        .hasSize(1 + original.info().subFilters());
    assertThat(original.scanDump(chunks.get(chunks.size() - 1).cursor())).isEqualTo(DumpChunk.END);

    ChunkLoader<CuckooFilter<CharSequence>> loader = CuckooFilter.loader(Funnels.stringFunnel());
    assertSameAnswers(original, DumpBytes.load(loader, chunks));
  }

  @Test
  void subFilterLargerThanEightMebibytesIsSplitIntoBoundedChunks() throws CorruptDumpException {
    LongCuckooFilter original =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(4_500_000)
            .fingerprintBits(16)
            .seed(5)
            .build();
    LongStream.range(0, 10_000).forEach(original::add);
    List<DumpChunk> chunks = DumpBytes.chunks(original);
    assertThat(chunks).hasSize(3);
    // dump id, seed, writes, sub-filter, first word, word count; 2^20 words; checksum
    assertThat(chunks.get(1).data().length).isEqualTo(8 + 8 + 8 + 4 + 4 + 4 + 8 * (1 << 20) + 4);
    assertThat(chunks.get(2).data().length).isLessThan(chunks.get(1).data().length);

    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    LongCuckooFilter copy = DumpBytes.load(loader, chunks);
    assertThat(copy.info()).isEqualTo(original.info());
    assertThat(state(copy)).isEqualTo(state(original));
  }

  /**
   * The class comment of LongCuckooFilter: keys hash exactly as longFunnel keys, either dump reads
   * as the other.
   */
  @Test
  void longFilterAndCuckooFilterOfLongsReadEachOthersDumps() throws IOException {
    LongCuckooFilter primitive =
        LongCuckooFilter.newBuilder().expectedInsertions(2_000).seed(77).build();
    CuckooFilter<Long> boxed =
        CuckooFilter.newBuilder(Funnels.longFunnel()).expectedInsertions(2_000).seed(77).build();
    for (long k = 0; k < 2_000; k++) {
      primitive.add(k * 31);
      boxed.add(k * 31);
    }
    assertThat(state(primitive))
        .as("same seed and keys give the same table")
        .isEqualTo(state(boxed));

    CuckooFilter<Long> fromPrimitive =
        CuckooFilter.readFrom(new ByteArrayInputStream(dump(primitive)), Funnels.longFunnel());
    LongCuckooFilter fromBoxed = LongCuckooFilter.readFrom(new ByteArrayInputStream(dump(boxed)));
    ChunkLoader<CuckooFilter<Long>> loader = CuckooFilter.loader(Funnels.longFunnel());
    CuckooFilter<Long> chunked = DumpBytes.load(loader, DumpBytes.chunks(primitive));
    for (long k = 0; k < 20_000; k++) {
      boolean expected = primitive.mightContain(k);
      assertThat(fromPrimitive.mightContain(k)).as("key %s", k).isEqualTo(expected);
      assertThat(chunked.mightContain(k)).as("key %s", k).isEqualTo(expected);
      assertThat(fromBoxed.mightContain(k)).as("key %s", k).isEqualTo(expected);
      assertThat(fromBoxed.count(k)).isEqualTo(primitive.count(k));
    }
  }

  @Test
  void aRestoredFilterKeepsWorkingAndGrowing() throws IOException {
    LongCuckooFilter original =
        LongCuckooFilter.newBuilder().expectedInsertions(500).seed(3).build();
    LongStream.range(0, 500).forEach(original::add);
    LongCuckooFilter copy = LongCuckooFilter.readFrom(new ByteArrayInputStream(dump(original)));
    for (long k = 500; k < 5_000; k++) {
      assertThat(copy.add(k)).isTrue();
    }
    assertThat(copy.info().subFilters()).isGreaterThan(1);
    for (long k = 0; k < 5_000; k += 2) {
      assertThat(copy.remove(k)).isTrue();
    }
    for (long k = 1; k < 5_000; k += 2) {
      assertThat(copy.mightContain(k)).as("key %s", k).isTrue();
    }
    assertThat(copy.info().itemsDeleted()).isEqualTo(2_500);
  }

  @Test
  void readFromConsumesExactlyOneDumpFromTheStream() throws IOException {
    LongCuckooFilter a = LongCuckooFilter.newBuilder().expectedInsertions(100).seed(1).build();
    LongCuckooFilter b = LongCuckooFilter.newBuilder().expectedInsertions(300).seed(2).build();
    a.add(1);
    b.add(2);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    a.writeTo(out);
    b.writeTo(out);
    out.write(42);
    ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
    assertThat(state(LongCuckooFilter.readFrom(in))).isEqualTo(state(a));
    assertThat(state(LongCuckooFilter.readFrom(in))).isEqualTo(state(b));
    assertThat(in.read()).isEqualTo(42);
  }
}
