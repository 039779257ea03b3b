package io.github.cuckooguard;

import static io.github.cuckooguard.DumpBytes.state;
import static io.github.cuckooguard.FilterSubject.dump;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Damaged input is rejected with the one documented exception, {@link CorruptDumpException}, on
 * every path ({@code readFrom}, {@code loadChunk}, {@code complete}), and never becomes a filter
 * that differs from the one written. A loader that rejected a chunk still completes when given the
 * right one.
 */
class CorruptDumpTest {

  private static LongCuckooFilter original;
  private static byte[] stream;
  private static List<DumpChunk> chunks;

  @BeforeAll
  static void writeAFilter() {
    // Three sub-filters: three data chunks after the header.
    original = LongCuckooFilter.newBuilder().expectedInsertions(60).expansion(1).seed(9).build();
    LongStream.range(0, 170).forEach(original::add);
    original.remove(3);
    assertThat(original.info().subFilters()).isEqualTo(3);
    stream = dump(original);
    chunks = DumpBytes.chunks(original);
    assertThat(chunks).hasSize(4);
  }

  /**
   * Reads {@code bytes}; any outcome but a CorruptDumpException (or an identical filter for
   * identical bytes) fails.
   */
  private static void assertRejected(byte[] bytes, String what) {
    Throwable thrown =
        catchThrowable(() -> LongCuckooFilter.readFrom(new ByteArrayInputStream(bytes)));
    if (thrown == null) {
      fail("%s was accepted as a filter", what);
    }
    assertThat(thrown).as(what).isInstanceOf(CorruptDumpException.class);
    assertThat(thrown.getMessage()).as(what).isNotBlank();
  }

  @Test
  void everyTruncationOfAStreamDumpIsRejected() {
    for (int length = 0; length < stream.length; length++) {
      assertRejected(Arrays.copyOf(stream, length), "a dump truncated to " + length + " bytes");
    }
  }

  @Test
  void randomBitFlipsAndByteChangesAreRejected() {
    SplittableRandom random = new SplittableRandom(2024);
    for (int trial = 0; trial < 4_000; trial++) {
      byte[] bytes = stream.clone();
      int changes = 1 + random.nextInt(4);
      for (int c = 0; c < changes; c++) {
        int at = random.nextInt(bytes.length);
        if (trial % 2 == 0) {
          bytes[at] ^= (byte) (1 << random.nextInt(8));
        } else {
          bytes[at] = (byte) (bytes[at] + 1 + random.nextInt(255));
        }
      }
      if (!Arrays.equals(bytes, stream)) {
        assertRejected(bytes, "trial " + trial);
      }
    }
  }

  /**
   * A fresh loader gets the chunks before {@code index} intact, then {@code bad}, then the rest
   * intact.
   */
  private static void assertLoaderRejectsThenRecovers(int index, DumpChunk bad, String what)
      throws CorruptDumpException {
    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    for (int i = 0; i < index; i++) {
      loader.loadChunk(chunks.get(i));
    }
    assertThatThrownBy(() -> loader.loadChunk(bad.cursor(), bad.data()))
        .as(what)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageFindingMatch("\\w");
    for (int i = index; i < chunks.size(); i++) {
      loader.loadChunk(chunks.get(i));
    }
    assertThat(state(loader.complete()))
        .as("filter loaded after %s", what)
        .isEqualTo(state(stream));
  }

  @Test
  void corruptedAndTruncatedChunksAreRejectedAndTheLoaderRecovers() throws CorruptDumpException {
    SplittableRandom random = new SplittableRandom(7);
    for (int trial = 0; trial < 2_000; trial++) {
      int index = random.nextInt(chunks.size());
      DumpChunk good = chunks.get(index);
      byte[] bytes = good.data().clone();
      String what;
      switch (trial % 3) {
        case 0 -> {
          bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
          what = "a bit flip in chunk " + index;
        }
        case 1 -> {
          int at = random.nextInt(bytes.length);
          bytes[at] = (byte) (bytes[at] + 1 + random.nextInt(255));
          what = "a changed byte in chunk " + index;
        }
        default -> {
          bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length));
          what = "chunk " + index + " truncated to " + bytes.length + " bytes";
        }
      }
      assertLoaderRejectsThenRecovers(index, new DumpChunk(good.cursor(), bytes), what);
    }
  }

  @Test
  void chunksOutOfOrderDuplicatedOrSkippedAreRejectedAndTheLoaderRecovers()
      throws CorruptDumpException {
    for (int index = 0; index < chunks.size(); index++) {
      for (int other = 0; other < chunks.size(); other++) {
        if (other != index) {
          assertLoaderRejectsThenRecovers(
              index, chunks.get(other), "chunk " + other + " where " + index + " belongs");
        }
      }
      DumpChunk good = chunks.get(index);
      assertLoaderRejectsThenRecovers(
          index,
          new DumpChunk(good.cursor() + 1, good.data()),
          "chunk " + index + " with a wrong cursor");
    }
  }

  @Test
  void completeBeforeTheLastChunkFailsAndTheLoaderCanStillFinish() throws CorruptDumpException {
    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    assertThatThrownBy(loader::complete)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("header");
    for (int i = 0; i < chunks.size() - 1; i++) {
      loader.loadChunk(chunks.get(i));
      assertThatThrownBy(loader::complete)
          .isInstanceOf(CorruptDumpException.class)
          .hasMessageContaining("incomplete");
    }
    loader.loadChunk(chunks.get(chunks.size() - 1));
    assertThat(state(loader.complete())).isEqualTo(state(stream));
    assertThatThrownBy(loader::complete).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> loader.loadChunk(chunks.get(0)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aChunkTakenAfterTheFilterChangedIsRejected() throws CorruptDumpException {
    LongCuckooFilter live =
        LongCuckooFilter.newBuilder().expectedInsertions(60).expansion(1).seed(9).build();
    LongStream.range(0, 170).forEach(live::add);
    DumpChunk header = live.scanDump(0);
    DumpChunk first = live.scanDump(header.cursor());
    live.remove(5); // a writer between the chunks
    DumpChunk second = live.scanDump(first.cursor());

    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    loader.loadChunk(header);
    loader.loadChunk(first);
    assertThatThrownBy(() -> loader.loadChunk(second))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("taken after the filter changed")
        .hasMessageContaining("cursor 0");
    assertThatThrownBy(loader::complete).isInstanceOf(CorruptDumpException.class);
  }

  @Test
  void aChunkOfAnotherFiltersDumpIsRejected() throws CorruptDumpException {
    LongCuckooFilter other =
        LongCuckooFilter.newBuilder().expectedInsertions(60).expansion(1).seed(10).build();
    LongStream.range(0, 170).forEach(other::add);
    other.remove(3);
    List<DumpChunk> otherChunks = DumpBytes.chunks(other);
    assertThat(otherChunks).hasSize(chunks.size());
    for (int index = 1; index < chunks.size(); index++) {
      assertLoaderRejectsThenRecovers(
          index, otherChunks.get(index), "chunk " + index + " of a filter with another seed");
    }
    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    loader.loadChunk(chunks.get(0));
    assertThatThrownBy(() -> loader.loadChunk(otherChunks.get(1)))
        .hasMessageContaining("another filter");
  }

  @ParameterizedTest(name = "version {0}")
  @CsvSource({"1", "2"})
  void dumpsOfEarlierFormatVersionsAreRefusedNamingTheVersions(int version)
      throws CorruptDumpException {
    byte[] old = new DumpBytes(stream).set(new DumpBytes(stream).at("version"), 1, version).bytes();
    assertThatThrownBy(() -> LongCuckooFilter.readFrom(new ByteArrayInputStream(old)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("unsupported format version " + version)
        .hasMessageContaining("reads versions 3 to 5")
        .hasMessageContaining("versions 1 and 2");
    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    assertThatThrownBy(
            () ->
                loader.loadChunk(new DumpChunk(1, Arrays.copyOf(old, chunks.get(0).data().length))))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("unsupported format version " + version);
  }

  /**
   * A checksum-valid header that declares sub-filters of 2^31 − 2 buckets (about 11 GB each, more
   * than the test JVM's heap) followed by the original, small body: rejected as truncated, while
   * only the words really supplied are allocated (plus at most DumpFormat.EAGER_WORDS per
   * sub-filter), instead of an OutOfMemoryError on the declared size.
   */
  @Test
  void aHeaderDeclaringHugeTablesCostsOnlyTheBytesSupplied() throws CorruptDumpException {
    DumpBytes huge = new DumpBytes(stream);
    huge.set(huge.at("buckets"), 4, Integer.MAX_VALUE - 1);
    assertThatThrownBy(huge::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("truncated");

    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    loader.loadChunk(new DumpChunk(1, Arrays.copyOf(huge.bytes(), huge.headerLength())));
    // the original first chunk fits the declared (larger) first sub-filter, but is not all of it
    loader.loadChunk(chunks.get(1));
    assertThatThrownBy(() -> loader.loadChunk(chunks.get(2)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("out of order");
    assertThatThrownBy(loader::complete)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("incomplete");
  }

  @Test
  void theEndMarkerIsNotAChunk() throws CorruptDumpException {
    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    for (DumpChunk c : chunks) {
      loader.loadChunk(c);
    }
    assertThatThrownBy(() -> loader.loadChunk(DumpChunk.END))
        .isInstanceOf(CorruptDumpException.class);
    assertThat(state(loader.complete())).isEqualTo(state(stream));
  }

  @Test
  void aDumpReadWithAnotherFunnelIsRejectedNamingBothFunnels() {
    assertThatThrownBy(
            () -> CuckooFilter.readFrom(new ByteArrayInputStream(stream), Funnels.stringFunnel()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'long'")
        .hasMessageContaining("'string-utf8'");
    ChunkLoader<CuckooFilter<Integer>> loader = CuckooFilter.loader(Funnels.integerFunnel());
    assertThatThrownBy(() -> loader.loadChunk(chunks.get(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'int'");
  }

  /**
   * Valid dumps of the same shape, seed and write count as {@link #original}: the original, another
   * filter with other keys, and two replicas of the original loaded and written (an add and a
   * remove each, of different keys). All bodies differ; headers, bodies and chunks can be swapped
   * position for position, which is what the structural mixes below do.
   */
  private static List<AbstractCuckooFilter> sameShapeSeedAndWriteCount() throws IOException {
    LongCuckooFilter other =
        LongCuckooFilter.newBuilder().expectedInsertions(60).expansion(1).seed(9).build();
    LongStream.range(10_000, 10_170).forEach(other::add);
    other.remove(10_003);
    LongCuckooFilter replica = LongCuckooFilter.readFrom(new ByteArrayInputStream(stream));
    replica.add(20_000);
    replica.remove(7);
    LongCuckooFilter replica2 = LongCuckooFilter.readFrom(new ByteArrayInputStream(stream));
    replica2.add(30_000);
    replica2.remove(1);
    List<AbstractCuckooFilter> pool = List.of(original, other, replica, replica2);
    for (AbstractCuckooFilter f : pool) {
      assertThat(f.info().subFilters()).isEqualTo(3);
      assertThat(DumpBytes.chunks(f)).hasSize(chunks.size());
      assertThat(f.info().buckets()).isEqualTo(original.info().buckets());
    }
    assertThat(new DumpBytes(dump(other)).longAt("writes"))
        .isEqualTo(new DumpBytes(stream).longAt("writes"));
    for (int i = 0; i < pool.size(); i++) {
      for (int j = i + 1; j < pool.size(); j++) {
        assertThat(new DumpBytes(dump(pool.get(i))).longAt("digest"))
            .as("bodies %s and %s differ", i, j)
            .isNotEqualTo(new DumpBytes(dump(pool.get(j))).longAt("digest"));
      }
    }
    return pool;
  }

  private static boolean acceptedAsAFilter(byte[] bytes) {
    try {
      LongCuckooFilter.readFrom(new ByteArrayInputStream(bytes));
      return true;
    } catch (CorruptDumpException e) {
      return false;
    } catch (IOException e) {
      throw new AssertionError("not the documented exception", e);
    }
  }

  /**
   * Structural mixes of valid dumps, each part intact, none of them a dump: the header of one with
   * the body of another (as written, and with both checksums recomputed, so that only the dump's
   * identity can tell), a run of body words of one dump in another (checksums recomputed), and a
   * piece of any bytes of one dump over another. Bound: 0 accepted of all the pairs and of 3,000
   * random mixes (seed 12).
   */
  @Test
  void structuralMixesOfValidStreamDumpsAreNeverAccepted() throws IOException {
    List<byte[]> dumps = new java.util.ArrayList<>();
    for (AbstractCuckooFilter f : sameShapeSeedAndWriteCount()) {
      dumps.add(dump(f));
    }
    int mixes = 0;
    int accepted = 0;
    for (int x = 0; x < dumps.size(); x++) {
      for (int y = 0; y < dumps.size(); y++) {
        if (x != y) {
          byte[] spliced = DumpBytes.splice(dumps.get(x), dumps.get(y));
          byte[] resealed = new DumpBytes(spliced).checksummed().bytes();
          accepted += (acceptedAsAFilter(spliced) ? 1 : 0) + (acceptedAsAFilter(resealed) ? 1 : 0);
          mixes += 2;
        }
      }
    }
    SplittableRandom random = new SplittableRandom(12);
    int words = new DumpBytes(stream).words();
    int head = new DumpBytes(stream).headerLength();
    for (int trial = 0; trial < 3_000; trial++) {
      byte[] into = dumps.get(random.nextInt(dumps.size()));
      byte[] from = dumps.get(random.nextInt(dumps.size()));
      byte[] mixed = into.clone();
      if (trial % 2 == 0) {
        int a = random.nextInt(words);
        int b = a + 1 + random.nextInt(words - a);
        System.arraycopy(from, head + 8 * a, mixed, head + 8 * a, 8 * (b - a));
        mixed = new DumpBytes(mixed).checksummed().bytes();
      } else {
        int length = 1 + random.nextInt(from.length);
        int src = random.nextInt(from.length - length + 1);
        int dst = random.nextInt(into.length - length + 1);
        System.arraycopy(from, src, mixed, dst, length);
      }
      boolean isADump = false;
      for (byte[] d : dumps) {
        isADump |= Arrays.equals(d, mixed);
      }
      if (!isADump) {
        mixes++;
        accepted += acceptedAsAFilter(mixed) ? 1 : 0;
      }
    }
    assertThat(mixes).isGreaterThan(2_000);
    assertThat(accepted).as("mixes accepted of %s", mixes).isZero();
  }

  /**
   * Chunks of dumps with the same shape, seed and write count, mixed position by position under one
   * header: every load that took a chunk of another dump is refused (at that chunk or at
   * complete()), every load of one dump's own chunks completes as that dump. Bound: 0 accepted of
   * 1,000 random mixes (seed 13).
   */
  @Test
  void chunksOfFiltersWithTheSameSeedAndWriteCountNeverLoadTogether() throws IOException {
    List<List<DumpChunk>> all = new java.util.ArrayList<>();
    List<AbstractCuckooFilter> pool = sameShapeSeedAndWriteCount();
    for (AbstractCuckooFilter f : pool) {
      all.add(DumpBytes.chunks(f));
    }
    SplittableRandom random = new SplittableRandom(13);
    int foreignLoads = 0;
    int accepted = 0;
    for (int trial = 0; trial < 1_000; trial++) {
      int owner = random.nextInt(all.size());
      ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
      boolean foreign = false;
      boolean refused = false;
      for (int i = 0; i < chunks.size() && !refused; i++) {
        int source = i == 0 ? owner : random.nextInt(3) == 0 ? random.nextInt(all.size()) : owner;
        DumpChunk c = all.get(source).get(i);
        foreign |= !Arrays.equals(c.data(), all.get(owner).get(i).data());
        try {
          loader.loadChunk(c);
        } catch (CorruptDumpException e) {
          refused = true;
        }
      }
      if (!refused) {
        try {
          LongCuckooFilter loaded = loader.complete();
          if (foreign) {
            accepted++;
          } else {
            assertThat(state(loaded)).isEqualTo(state(pool.get(owner)));
          }
        } catch (CorruptDumpException e) {
          refused = true;
        }
      }
      if (foreign) {
        foreignLoads++;
        assertThat(refused || accepted > 0).isTrue();
      } else {
        assertThat(refused).as("a load of one dump's own chunks").isFalse();
      }
    }
    assertThat(foreignLoads).isGreaterThan(300);
    assertThat(accepted).as("mixed loads accepted of %s", foreignLoads).isZero();
  }

  /**
   * Dumps whose checksums are valid but whose fields are not (a writer bug or a crafted file): each
   * range check rejects them with a CorruptDumpException that names the field.
   */
  @ParameterizedTest(name = "{0} = {2}")
  @CsvSource({
    "magic, 4, 0x12345678, not a cuckoo filter dump",
    "version, 1, 6, unsupported format version 6",
    "scheme, 1, 0x41, hash scheme 'Axh3-64'",
    "fingerprintBits, 1, 3, fingerprint bits 3",
    "fingerprintBits, 1, 17, fingerprint bits 17",
    "bucketSize, 1, 3, bucket size 3",
    "maxKicks, 4, 0, max kicks 0",
    "maxKicks, 4, 65536, max kicks 65536",
    "expansion, 4, -1, expansion -1",
    "expansion, 4, 0, a fixed-size filter (expansion 0) has 3 sub-filters",
    "buckets, 4, 0, bucket count 0",
    "buckets, 4, 33, bucket count 33",
    "items, 8, 1, item count 1 differs",
    "deletes, 8, -1, deleted count -1",
    "writes, 8, -1, write count -1",
    "subFilterCount, 2, 0, sub-filter count 0",
    "subFilterCount, 2, 33, sub-filter count 33",
    "growthBits, 1, 10, growth fingerprint bits 10",
    "growthBits, 1, 33, growth fingerprint bits 33"
  })
  void headerFieldsOutOfRangeAreRejectedEvenWithValidChecksums(
      String field, int width, String value, String message) {
    DumpBytes dump = new DumpBytes(stream);
    dump.set(dump.at(field), width, Long.decode(value));
    assertThatThrownBy(dump::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining(message);
  }

  @Test
  void subFilterShapesAndCountsThatDisagreeAreRejectedEvenWithValidChecksums() {
    DumpBytes segments = new DumpBytes(stream);
    segments.set(segments.segmentsAt(1), 4, 2);
    assertThatThrownBy(segments::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("sub-filter 1 has 2 segments, expected 1");

    DumpBytes tooMany = new DumpBytes(stream);
    tooMany.set(tooMany.segmentsAt(0) + 4, 8, 1_000_000);
    assertThatThrownBy(tooMany::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("claims 1000000 items");

    // Move one item from sub-filter 0's count to the last one's: sums still match, slots do not.
    DumpBytes shifted = new DumpBytes(stream);
    long items0 = ByteBuffer.wrap(stream).getLong(shifted.segmentsAt(0) + 4);
    long items2 = ByteBuffer.wrap(stream).getLong(shifted.segmentsAt(2) + 4);
    shifted
        .set(shifted.segmentsAt(0) + 4, 8, items0 - 1)
        .set(shifted.segmentsAt(2) + 4, 8, items2 + 1);
    assertThatThrownBy(shifted::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining(
            "holds " + items0 + " fingerprints but its header says " + (items0 - 1));
  }

  @Test
  void subFilterWidthsThatShrinkOrDisagreeWithTheHeaderAreRejectedEvenWithValidChecksums() {
    DumpBytes first = new DumpBytes(stream);
    first.set(first.tableBitsAt(0), 1, 11);
    assertThatThrownBy(first::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("sub-filter 0 has 11-bit fingerprints, the header says 10");

    // A newer sub-filter narrower than an older one would break removes across sub-filters.
    DumpBytes narrower = new DumpBytes(stream);
    int bits1 = stream[narrower.tableBitsAt(1)];
    narrower.set(narrower.tableBitsAt(2), 1, bits1 - 1);
    assertThatThrownBy(narrower::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("sub-filter 2 has " + (bits1 - 1) + "-bit fingerprints");

    DumpBytes tooWide = new DumpBytes(stream);
    tooWide.set(tooWide.tableBitsAt(2), 1, 33);
    assertThatThrownBy(tooWide::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("sub-filter 2 has 33-bit fingerprints");
  }

  @Test
  void dumpsOfANewerFormatVersionAreRefusedNamingIt() {
    byte[] newer = new DumpBytes(stream).set(new DumpBytes(stream).at("version"), 1, 6).bytes();
    assertThatThrownBy(() -> LongCuckooFilter.readFrom(new ByteArrayInputStream(newer)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("unsupported format version 6")
        .hasMessageContaining("written by a newer build");
  }

  @Test
  void bitsSetPastTheLastBucketAreRejectedEvenWithValidChecksums() {
    // The last word of each sub-filter is the spare word, always zero in a real dump.
    DumpBytes dump = new DumpBytes(stream);
    // Sub-filter 0: n buckets of b slots of f bits, then the spare word (later ones are wider).
    FilterInfo info = original.info();
    long bits = info.buckets() / 3 * info.bucketSize() * info.fingerprintBits();
    int wordsPerSubFilter = (int) ((bits + 63) / 64 + 1);
    assertThat(dump.word(wordsPerSubFilter - 1)).isZero();
    dump.setWord(wordsPerSubFilter - 1, 1L << 40);
    assertThatThrownBy(dump::read)
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("sub-filter 0 has bits set past its last bucket");
  }
}
