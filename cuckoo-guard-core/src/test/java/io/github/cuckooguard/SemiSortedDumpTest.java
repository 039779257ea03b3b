package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Dumps of semi-sorted filters: they are written as format version 5 with layout byte 1 (a plain
 * filter stays version 4), read back through both dump forms with the same answers and the same
 * size, including a grown filter whose wider sub-filters are plain; a build that reads only version
 * 4 refuses them by version, and a header that claims the other layout is refused.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SemiSortedDumpTest {

  private static LongCuckooFilter filled(int expected, int keys, int expansion, long seed) {
    LongCuckooFilter f =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(expected)
            .fpp(0.01)
            .expansion(expansion)
            .semiSorted()
            .seed(seed)
            .build();
    for (long k = 0; k < keys; k++) {
      assertThat(f.add(k)).isTrue();
    }
    for (long k = 0; k < keys; k += 7) {
      assertThat(f.remove(k)).isTrue();
    }
    return f;
  }

  /** Offset of the version-5 layout byte: right after the growth-bits byte. */
  private static int layoutAt(byte[] dump) {
    int at = new DumpBytes(dump).at("layout");
    assertThat(at).isEqualTo(new DumpBytes(dump).at("growthBits") + 1);
    return at;
  }

  private static void assertSameAnswers(LongCuckooFilter a, LongCuckooFilter b, int keys) {
    assertThat(b.info()).isEqualTo(a.info());
    SplittableRandom random = new SplittableRandom(3);
    for (long k = 0; k < keys; k++) {
      if (k % 7 != 0) {
        assertThat(b.mightContain(k)).as("key %s", k).isTrue();
      }
      assertThat(b.count(k)).isEqualTo(a.count(k));
    }
    for (int i = 0; i < 200_000; i++) {
      long k = random.nextLong();
      assertThat(b.mightContain(k)).isEqualTo(a.mightContain(k));
    }
  }

  @Test
  void aSemiSortedDumpIsVersion5WithItsLayoutAndReadsBackThroughBothForms() throws IOException {
    LongCuckooFilter filter = filled(50_000, 50_000, 2, 11);
    assertThat(filter.info().subFilters()).isEqualTo(1);
    byte[] dump = FilterSubject.dump(filter);
    assertThat(dump[new DumpBytes(dump).at("version")]).isEqualTo((byte) 5);
    assertThat(dump[layoutAt(dump)]).isEqualTo((byte) 1);

    LongCuckooFilter read = LongCuckooFilter.readFrom(new ByteArrayInputStream(dump));
    assertSameAnswers(filter, read, 50_000);
    LongCuckooFilter loaded = DumpBytes.load(LongCuckooFilter.loader(), DumpBytes.chunks(filter));
    assertSameAnswers(filter, loaded, 50_000);
    // The read filter keeps the layout: its next dump is semi-sorted again, of the same state.
    assertThat(DumpBytes.state(read)).isEqualTo(DumpBytes.state(dump));
    // And it keeps working as one: removes and adds.
    for (long k = 1; k < 50_000; k += 7) {
      assertThat(read.remove(k)).isTrue();
      assertThat(read.add(k + 1_000_000)).isTrue();
    }
    for (long k = 2; k < 50_000; k += 7) {
      assertThat(read.mightContain(k)).isTrue();
    }
  }

  @Test
  void aGrownSemiSortedFilterWithPlainWiderSubFiltersRoundTrips() throws IOException {
    // fpp(0.01): 10-bit first sub-filter, then 13, 14, 15, 16 (semi-sorted) and 17, ... (plain).
    LongCuckooFilter filter = filled(1_000, 70_000, 2, 12);
    assertThat(filter.info().subFilters()).isGreaterThanOrEqualTo(7);
    byte[] dump = FilterSubject.dump(filter);
    DumpBytes d = new DumpBytes(dump);
    int count = ByteBuffer.wrap(dump).getShort(d.at("subFilterCount"));
    assertThat(count).isEqualTo(filter.info().subFilters());
    int last = dump[d.tableBitsAt(count - 1)];
    assertThat(last).as("widest sub-filter's bits").isGreaterThan(16);
    assertThat(dump[d.at("version")]).isEqualTo((byte) 5);
    LongCuckooFilter read = LongCuckooFilter.readFrom(new ByteArrayInputStream(dump));
    assertSameAnswers(filter, read, 70_000);
    LongCuckooFilter loaded = DumpBytes.load(LongCuckooFilter.loader(), DumpBytes.chunks(filter));
    assertSameAnswers(filter, loaded, 70_000);
  }

  @Test
  void aPlainFilterIsStillWrittenAsVersion4() {
    LongCuckooFilter plain =
        LongCuckooFilter.newBuilder().expectedInsertions(1_000).seed(1).build();
    plain.add(1);
    byte[] dump = FilterSubject.dump(plain);
    assertThat(dump[new DumpBytes(dump).at("version")]).isEqualTo((byte) 4);
  }

  /**
   * The same dump with the layout byte taken out and the version set to 4, checksums fixed: what a
   * reader that ignored the layout would see. Its body has fewer words than plain buckets need, so
   * it is refused, never read as plain buckets.
   */
  @Test
  void aSemiSortedBodyUnderAPlainHeaderIsRefused() {
    LongCuckooFilter filter = filled(5_000, 5_000, 0, 13);
    byte[] dump = FilterSubject.dump(filter);
    int at = layoutAt(dump);
    byte[] plain = new byte[dump.length - 1];
    System.arraycopy(dump, 0, plain, 0, at);
    System.arraycopy(dump, at + 1, plain, at, dump.length - at - 1);
    plain[4] = 4;
    byte[] sealed = new DumpBytes(plain).checksummed().bytes();
    assertThatThrownBy(() -> LongCuckooFilter.readFrom(new ByteArrayInputStream(sealed)))
        .isInstanceOf(CorruptDumpException.class);
  }

  @Test
  void anUnknownLayoutByteIsRefusedByName() {
    LongCuckooFilter filter = filled(1_000, 1_000, 0, 14);
    byte[] dump = FilterSubject.dump(filter);
    dump[layoutAt(dump)] = 2;
    byte[] sealed = new DumpBytes(dump).checksummed().bytes();
    assertThatThrownBy(() -> LongCuckooFilter.readFrom(new ByteArrayInputStream(sealed)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("bucket layout 2");
  }

  /** What a build that reads versions 3 and 4 only says, checked here by a newer version byte. */
  @Test
  void aVersionBeyondThisBuildIsRefusedAsNewer() {
    LongCuckooFilter filter = filled(1_000, 1_000, 0, 15);
    byte[] dump = FilterSubject.dump(filter);
    dump[4] = 6;
    assertThatThrownBy(() -> LongCuckooFilter.readFrom(new ByteArrayInputStream(dump)))
        .isInstanceOf(CorruptDumpException.class)
        .hasMessageContaining("unsupported format version 6")
        .hasMessageContaining("newer build");
  }
}
