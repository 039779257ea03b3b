package io.github.cuckooguard;

import static io.github.cuckooguard.DumpBytes.state;
import static io.github.cuckooguard.FilterSubject.dump;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The parts of one dump are bound together and to nothing else. Before, a chunk's identity was only
 * (seed, write count) and a stream body was checked only by its own CRC, so parts of different
 * dumps whose counts agreed loaded silently and keys then answered false.
 */
class DumpIdentityTest {

  private static LongCuckooFilter seeded42(long firstKey) {
    LongCuckooFilter f = LongCuckooFilter.newBuilder().expectedInsertions(1_000).seed(42).build();
    LongStream.range(firstKey, firstKey + 500).forEach(f::add);
    return f;
  }

  @Test
  void aChunkOfAnotherFilterWithTheSameSeedAndWriteCountIsRefusedAndTheLoaderStaysUsable()
      throws CorruptDumpException {
    LongCuckooFilter x = seeded42(0);
    LongCuckooFilter y = seeded42(1_000_000);
    List<DumpChunk> xs = DumpBytes.chunks(x);
    List<DumpChunk> ys = DumpBytes.chunks(y);
    assertThat(xs).hasSize(2);
    assertThat(ys.get(1).cursor()).isEqualTo(xs.get(1).cursor());

    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    loader.loadChunk(xs.get(0));
    assertThatThrownBy(() -> loader.loadChunk(ys.get(1)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("belongs to another dump")
        .hasMessageContaining("same seed and write count");
    // the refusal changed nothing: X's own chunk completes the load, and every key of X answers
    // true
    loader.loadChunk(xs.get(1));
    LongCuckooFilter loaded = loader.complete();
    for (long k = 0; k < 500; k++) {
      assertThat(loaded.mightContain(k)).as("key %s", k).isTrue();
    }
  }

  @Test
  void chunksOfTwoReplicasRestoredFromOneDumpAndWrittenOnceEachAreRefused() throws IOException {
    LongCuckooFilter origin = seeded42(0);
    byte[] d = dump(origin);
    LongCuckooFilter r1 = LongCuckooFilter.readFrom(new ByteArrayInputStream(d));
    LongCuckooFilter r2 = LongCuckooFilter.readFrom(new ByteArrayInputStream(d));
    r1.add(7_000_001);
    r2.add(7_000_002);
    assertThat(r1.info()).isEqualTo(r2.info());
    List<DumpChunk> c1 = DumpBytes.chunks(r1);
    List<DumpChunk> c2 = DumpBytes.chunks(r2);

    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    loader.loadChunk(c1.get(0));
    assertThatThrownBy(() -> loader.loadChunk(c2.get(1)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("another dump");
  }

  @Test
  void chunksOfOneFilterTakenAtDifferentTimesAreRefusedEvenAfterTheCountsComeBack()
      throws CorruptDumpException {
    LongCuckooFilter f = seeded42(0);
    List<DumpChunk> before = DumpBytes.chunks(f);
    f.add(9_999_999);
    f.remove(9_999_999); // same items, same deletes + 1, write count + 2
    List<DumpChunk> after = DumpBytes.chunks(f);
    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    loader.loadChunk(after.get(0));
    assertThatThrownBy(() -> loader.loadChunk(before.get(1)))
        .isInstanceOf(CorruptDumpException.class);
    loader.loadChunk(after.get(1));
    assertThat(state(loader.complete())).isEqualTo(state(f));
  }

  /** A torn in-place overwrite: the newer header, then the older body, item counts equal. */
  @Test
  void aNewerHeaderWithAnOlderBodyIsRefusedEvenWhenTheItemCountsAgree() throws IOException {
    LongCuckooFilter f = seeded42(0);
    byte[] older = dump(f);
    List<DumpChunk> olderChunks = DumpBytes.chunks(f);
    f.add(123_456_789); // the key added in between
    f.remove(3); // so that the counts agree again
    byte[] newer = dump(f);
    assertThat(new DumpBytes(newer).headerLength()).isEqualTo(new DumpBytes(older).headerLength());
    byte[] torn = DumpBytes.splice(newer, older);
    assertThat(torn).hasSameSizeAs(newer);

    assertThatThrownBy(() -> LongCuckooFilter.readFrom(new ByteArrayInputStream(torn)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("body digest")
        .hasMessageContaining("not the one this header was written with");
    // the chunk path refuses the same mix at the first body chunk
    ChunkLoader<LongCuckooFilter> loader = LongCuckooFilter.loader();
    loader.loadChunk(DumpBytes.chunks(f).get(0));
    assertThatThrownBy(() -> loader.loadChunk(olderChunks.get(1)))
        .isInstanceOf(CorruptDumpException.class);
  }

  @Test
  void aHeaderSplicedOntoTheBodyOfAFilterWithAnotherSeedIsRefused() {
    LongCuckooFilter a = LongCuckooFilter.newBuilder().expectedInsertions(1_000).seed(1).build();
    LongCuckooFilter b = LongCuckooFilter.newBuilder().expectedInsertions(1_000).seed(2).build();
    LongStream.range(0, 500).forEach(a::add);
    LongStream.range(0, 500).forEach(b::add);
    byte[] mixed = new DumpBytes(DumpBytes.splice(dump(a), dump(b))).checksummed().bytes();
    assertThatThrownBy(() -> LongCuckooFilter.readFrom(new ByteArrayInputStream(mixed)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("body digest");
  }

  @Test
  void dumpsOfOneUnchangedStateAreIdenticalAndEachNewStateGetsANewId() {
    LongCuckooFilter f = seeded42(0);
    byte[] first = dump(f);
    assertThat(dump(f)).as("same instance, same state: same dump").isEqualTo(first);
    assertThat(f.scanDump(0).data())
        .isEqualTo(Arrays.copyOf(first, new DumpBytes(first).headerLength()));
    long id = new DumpBytes(first).longAt("dumpId");
    f.add(1_000_000_007L);
    assertThat(new DumpBytes(dump(f)).longAt("dumpId")).isNotEqualTo(id);
  }

  /**
   * The stream form's documented end: a reader stops after the dump's last byte. What follows, such
   * as the stale tail of a longer dump overwritten in place, is neither read nor refused, and
   * cannot change the filter read.
   */
  @Test
  void aStreamDumpFollowedByTheStaleTailOfALongerOneReadsAsItselfAndLeavesTheTail()
      throws IOException {
    LongCuckooFilter big = LongCuckooFilter.newBuilder().expectedInsertions(5_000).seed(5).build();
    LongStream.range(0, 4_000).forEach(big::add);
    LongCuckooFilter small = seeded42(0);
    byte[] longer = dump(big);
    byte[] shorter = dump(small);
    byte[] file = longer.clone();
    System.arraycopy(shorter, 0, file, 0, shorter.length);
    ByteArrayInputStream in = new ByteArrayInputStream(file);
    assertThat(state(LongCuckooFilter.readFrom(in))).isEqualTo(state(small));
    assertThat(in.available()).isEqualTo(longer.length - shorter.length);
    ByteArrayOutputStream rest = new ByteArrayOutputStream();
    in.transferTo(rest);
    assertThat(rest.toByteArray())
        .isEqualTo(Arrays.copyOfRange(longer, shorter.length, longer.length));
  }
}
