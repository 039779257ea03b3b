package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Funnel ids are checked when a filter or guard is built (length), and when a dump is written (a
 * lambda's default id, valid in one JVM run only, is refused); filters of lambda funnels that are
 * never dumped keep working.
 */
class FunnelIdTest {

  /** A funnel of longs with the given id. */
  private static Funnel<Long> withId(String id) {
    return new Funnel<>() {
      @Override
      public void funnel(Long key, KeySink sink) {
        sink.putLong(key);
      }

      @Override
      public String id() {
        return id;
      }
    };
  }

  @Test
  void anIdOfMoreThan255Utf8BytesIsRefusedWhenTheFilterOrGuardIsBuilt() {
    String ascii256 = "x".repeat(256);
    String twoByte256 = "\u00e9".repeat(128); // 128 chars, 256 UTF-8 bytes
    for (String id : new String[] {ascii256, twoByte256}) {
      assertThatThrownBy(() -> CuckooFilter.newBuilder(withId(id)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("256 UTF-8 bytes long; at most 255");
      assertThatThrownBy(() -> CuckooGuard.newBuilder(withId(id)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("at most 255");
    }
  }

  @Test
  void anIdOfExactly255Utf8BytesIsAcceptedAndItsDumpReadsBack() throws IOException {
    Funnel<Long> funnel = withId("\u00e9".repeat(127) + "x"); // 255 bytes
    CuckooFilter<Long> filter =
        CuckooFilter.newBuilder(funnel).expectedInsertions(100).seed(1).build();
    filter.add(5L);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    assertThat(
            CuckooFilter.readFrom(new ByteArrayInputStream(out.toByteArray()), funnel)
                .mightContain(5L))
        .isTrue();
    assertThat(filter.scanDump(0).isEnd()).isFalse();
  }

  @Test
  void aNullIdIsRefusedWhenTheFilterIsBuilt() {
    assertThatThrownBy(() -> CuckooFilter.newBuilder(withId(null)))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("returned null");
  }

  @Test
  void lambdaFunnelsBuildWorkingFiltersAndGuardsButTheirDumpsAreRefused() {
    Funnel<Long> lambda = (key, sink) -> sink.putLong(key);
    CuckooFilter<Long> filter = CuckooFilter.newBuilder(lambda).expectedInsertions(100).build();
    assertThat(filter.add(42L)).isTrue();
    assertThat(filter.mightContain(42L)).isTrue();
    assertThat(filter.remove(42L)).isTrue();
    CuckooGuard<Long> guard = CuckooGuard.newBuilder(lambda).expectedInsertions(100).build();
    guard.keyEntered(7L);
    assertThat(guard.mightContain(7L)).isTrue();

    assertThatThrownBy(() -> filter.writeTo(new ByteArrayOutputStream()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is a lambda")
        .hasMessageContaining("give the funnel a stable id()");
    assertThatThrownBy(() -> filter.scanDump(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("give the funnel a stable id()");
  }

  @Test
  void aMethodReferenceFunnelIsALambdaToo() {
    CuckooFilter<Long> filter =
        CuckooFilter.newBuilder(FunnelIdTest::putLong).expectedInsertions(10).build();
    assertThatThrownBy(() -> filter.scanDump(0)).isInstanceOf(IllegalStateException.class);
  }

  private static void putLong(Long key, KeySink sink) {
    sink.putLong(key);
  }

  /** A named class keeps its default id (its class name), stable across JVMs: dumps are allowed. */
  static final class NamedFunnel implements Funnel<Long> {
    @Override
    public void funnel(Long key, KeySink sink) {
      sink.putLong(key);
    }
  }

  @Test
  void aNamedClassWithTheDefaultIdMayStillDump() throws IOException {
    CuckooFilter<Long> filter =
        CuckooFilter.newBuilder(new NamedFunnel()).expectedInsertions(10).seed(2).build();
    filter.add(3L);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    assertThat(
            CuckooFilter.readFrom(new ByteArrayInputStream(out.toByteArray()), new NamedFunnel())
                .mightContain(3L))
        .isTrue();
  }
}
