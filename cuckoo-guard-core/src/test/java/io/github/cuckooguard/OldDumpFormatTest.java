package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Dumps of format version 3 (every sub-filter at the first one's fingerprint width), written by the
 * build before wider sub-filters, still read: the keys they held are found, their shape is kept,
 * and growth after reading appends sub-filters of the wider widths. Resources: {@code
 * v3-long-grown.bin}, a long filter sized for 60 keys (expansion 1, seed 9) that held keys 0 .. 599
 * and removed 0 .. 99 (10 sub-filters of 10-bit fingerprints); {@code v3-string.bin}, a string
 * filter sized for 1,000 keys (fpp 0.01, seed 5) holding "k0" .. "k499".
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OldDumpFormatTest {

  private static InputStream resource(String name) {
    InputStream in = OldDumpFormatTest.class.getResourceAsStream("/dumps/" + name);
    assertThat(in).as(name).isNotNull();
    return in;
  }

  @Test
  void aGrownVersion3DumpReadsBackWithItsKeysAndGrowsWithWiderSubFilters() throws IOException {
    LongCuckooFilter filter;
    try (InputStream in = resource("v3-long-grown.bin")) {
      filter = LongCuckooFilter.readFrom(in);
    }
    FilterInfo info = filter.info();
    assertThat(info.subFilters()).isEqualTo(10);
    assertThat(info.itemsInserted()).isEqualTo(500);
    assertThat(info.itemsDeleted()).isEqualTo(100);
    assertThat(info.fingerprintBits()).isEqualTo(10);
    for (long k = 100; k < 600; k++) {
      assertThat(filter.mightContain(k)).as("key %s", k).isTrue();
    }
    for (long k = 100; k < 200; k++) {
      assertThat(filter.remove(k)).as("remove %s", k).isTrue();
    }
    for (long k = 600; k < 2_000; k++) {
      assertThat(filter.add(k)).as("add %s", k).isTrue();
    }
    assertThat(filter.info().subFilters()).isGreaterThan(10);
    for (long k = 200; k < 2_000; k++) {
      assertThat(filter.mightContain(k)).as("key %s", k).isTrue();
    }
    // Rewritten as version 4: the read sub-filters keep 10 bits, the appended ones are wider.
    byte[] v4 = FilterSubject.dump(filter);
    DumpBytes d = new DumpBytes(v4);
    assertThat(v4[d.at("version")]).isEqualTo((byte) 4);
    for (int i = 0; i < 10; i++) {
      assertThat(v4[d.tableBitsAt(i)]).as("sub-filter %s", i).isEqualTo((byte) 10);
    }
    int subFilters = filter.info().subFilters();
    for (int i = 10; i < subFilters; i++) {
      assertThat((int) v4[d.tableBitsAt(i)]).as("sub-filter %s", i).isGreaterThan(10);
    }
    LongCuckooFilter again = LongCuckooFilter.readFrom(new ByteArrayInputStream(v4));
    for (long k = 200; k < 2_000; k++) {
      assertThat(again.mightContain(k)).as("key %s after rewriting", k).isTrue();
    }
  }

  @Test
  void aVersion3DumpOfStringKeysReadsBack() throws IOException {
    CuckooFilter<String> filter;
    try (InputStream in = resource("v3-string.bin")) {
      filter = CuckooFilter.readFrom(in, Funnels.stringFunnel());
    }
    assertThat(filter.info().subFilters()).isEqualTo(1);
    assertThat(filter.approximateElementCount()).isEqualTo(500);
    for (int k = 0; k < 500; k++) {
      assertThat(filter.mightContain("k" + k)).as("k%s", k).isTrue();
    }
  }
}
