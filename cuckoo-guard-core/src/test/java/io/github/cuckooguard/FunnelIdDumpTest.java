package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A funnel id longer than a dump holds made writeTo and scanDump(0) throw IllegalArgumentException
 * (writeTo documents only IOException), and a lambda funnel's default id names a hidden class, so
 * its dumps could not be read in another JVM run. Ids are now checked when a filter is built or
 * read, and a lambda funnel's filter refuses to dump, saying to give the funnel an id.
 */
class FunnelIdDumpTest {

  private record IdFunnel(String id) implements Funnel<CharSequence> {
    @Override
    public void funnel(CharSequence key, KeySink sink) {
      sink.putBytes(key.toString().getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void aFunnelIdLongerThanADumpHoldsIsRefusedWhenTheFilterIsBuiltOrRead() {
    IdFunnel tooLong = new IdFunnel("x".repeat(40_000));
    assertThatThrownBy(() -> CuckooFilter.newBuilder(tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is 40000 UTF-8 bytes long")
        .hasMessageContaining("at most 255");
    assertThatThrownBy(() -> CuckooFilter.readFrom(new ByteArrayInputStream(new byte[0]), tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 255");
    assertThatThrownBy(() -> CuckooFilter.loader(tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 255");
    // 255 bytes is the limit (here 85 three-byte characters), one more is refused
    assertThat(CuckooFilter.newBuilder(new IdFunnel("€".repeat(85))).build()).isNotNull();
    assertThatThrownBy(() -> CuckooFilter.newBuilder(new IdFunnel("€".repeat(85) + "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is 256 UTF-8 bytes long");
  }

  @Test
  void aFunnelWithALongestIdDumpsAndReadsBack() throws Exception {
    IdFunnel longest = new IdFunnel("f".repeat(255));
    CuckooFilter<String> f = CuckooFilter.newBuilder(longest).seed(1).build();
    f.add("a");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    CuckooFilter<String> back =
        CuckooFilter.readFrom(new ByteArrayInputStream(out.toByteArray()), longest);
    assertThat(back.mightContain("a")).isTrue();
    assertThat(f.scanDump(0).data()).isNotEmpty();
  }

  @Test
  void aLambdaFunnelWorksButItsFilterRefusesToDumpSayingToGiveAnId() {
    Funnel<String> lambda = (key, sink) -> sink.putBytes(key.getBytes(StandardCharsets.UTF_8));
    CuckooFilter<String> f = CuckooFilter.newBuilder(lambda).build();
    assertThat(f.add("a")).isTrue();
    assertThat(f.mightContain("a")).isTrue();
    assertThatThrownBy(() -> f.writeTo(new ByteArrayOutputStream()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lambda")
        .hasMessageContaining("give the funnel a stable id()");
    assertThatThrownBy(() -> f.scanDump(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("give the funnel a stable id()");
  }
}
