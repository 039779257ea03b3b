package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.AbstractFilterBuilder;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardSpec;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GuardSpecTest {

  @Test
  void parseReadsKebabSnakeAndCamelNamesUnderThePrefix() {
    GuardSpec spec =
        GuardSpec.parse(
            Map.of(
                "app.guard.expected-insertions",
                "5000",
                "app.guard.fpp",
                0.001,
                "app.guard.rebuild_load_threshold",
                "0.8",
                "app.guard.fppDriftFactor",
                "4",
                "app.guard.seed",
                "7",
                "other.fpp",
                "0.5"),
            "app.guard.",
            Set.of());
    assertThat(spec)
        .isEqualTo(
            GuardSpec.newBuilder()
                .expectedInsertions(5000)
                .fpp(0.001)
                .rebuildLoadThreshold(0.8)
                .fppDriftFactor(4)
                .seed(7)
                .build());
  }

  @Test
  void semiSortedIsReadAsABooleanAndReachesTheSpec() {
    GuardSpec on = GuardSpec.parse(Map.of("p.semi-sorted", "true"), "p.", Set.of());
    assertThat(on.semiSorted()).isTrue();
    assertThat(on).isEqualTo(GuardSpec.newBuilder().semiSorted().build());
    assertThat(on.toString()).contains("semiSorted");
    assertThat(GuardSpec.parse(Map.of("p.semiSorted", "false"), "p.", Set.of()).semiSorted())
        .isFalse();
    assertThat(GuardSpec.defaults().semiSorted()).isFalse();
    assertThat(on).isNotEqualTo(GuardSpec.defaults());
    assertThatThrownBy(() -> GuardSpec.parse(Map.of("p.semi_sorted", "yes"), "p.", Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("p.semi_sorted=yes");
  }

  @Test
  void parseRejectsAMisspelledKeyWithTheAcceptedNames() {
    assertThatThrownBy(
            () ->
                GuardSpec.parse(
                    Map.of("hibernate.cuckoo.fpq", "0.01"), "hibernate.cuckoo.", Set.of("enabled")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hibernate.cuckoo.fpq=0.01")
        .hasMessageContaining("fpp")
        .hasMessageContaining("enabled");
  }

  @Test
  void parseLeavesTheAdaptersOwnNamesToTheAdapter() {
    GuardSpec spec =
        GuardSpec.parse(
            Map.of("p.enabled", "false", "p.scan_fetch_size", "10"),
            "p.",
            Set.of("enabled", "scan-fetch-size"));
    assertThat(spec).isEqualTo(GuardSpec.defaults());
  }

  @Test
  void parseNamesTheKeyAndValueOfABadNumber() {
    assertThatThrownBy(() -> GuardSpec.parse(Map.of("p.fpp", "1.5"), "p.", Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("p.fpp")
        .hasMessageContaining("1.5")
        .hasMessageContaining("(0, 1)");
    assertThatThrownBy(() -> GuardSpec.parse(Map.of("p.expansion", "two"), "p.", Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("p.expansion (two) is not a number");
  }

  @Test
  void defaultsAreTheOneConstantEach() {
    GuardSpec d = GuardSpec.defaults();
    assertThat(d.expectedInsertions()).isEqualTo(AbstractFilterBuilder.DEFAULT_EXPECTED_INSERTIONS);
    assertThat(d.targetFpp()).isEqualTo(AbstractFilterBuilder.DEFAULT_FPP);
    assertThat(d.rebuildLoadThreshold()).isEqualTo(GuardSpec.DEFAULT_REBUILD_LOAD_THRESHOLD);
    assertThat(d.fppDriftFactor()).isEqualTo(GuardSpec.DEFAULT_FPP_DRIFT_FACTOR);
  }

  @Test
  void tooLargeACapacityNamesTheValuePassedAndTheMaximum() {
    long passed =
        1L << 40; // accepted by a filter, but the guard sizes for more to stay below its threshold
    assertThatThrownBy(
            () -> CuckooGuard.newBuilder(Funnels.longFunnel()).expectedInsertions(passed).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedInsertions (" + passed + ")")
        .hasMessageContaining("must be in [1, ");
  }

  @Test
  void aCapacityTheHeapCannotHoldNamesTheValuePassed() {
    long passed =
        17_179_869_184L; // 2^34: a valid spec, but its first filter exceeds the memory bound
    assertThatThrownBy(
            () -> CuckooGuard.newBuilder(Funnels.longFunnel()).expectedInsertions(passed).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("expectedInsertions (" + passed + ") is too large for this JVM");
  }

  @Test
  void aSpecAndSingleSettingsAreExclusive() {
    CuckooGuard.Builder<Long> b = CuckooGuard.newBuilder(Funnels.longFunnel()).fpp(0.01);
    assertThatThrownBy(() -> b.spec(GuardSpec.defaults()))
        .isInstanceOf(IllegalStateException.class);
    CuckooGuard.Builder<Long> c =
        CuckooGuard.newBuilder(Funnels.longFunnel()).spec(GuardSpec.defaults());
    assertThatThrownBy(() -> c.fpp(0.01))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already given as a spec");
  }

  @Test
  void theGuardKeepsItsSpec() {
    GuardSpec spec = GuardSpec.newBuilder().expectedInsertions(100).fingerprintBits(12).build();
    assertThat(CuckooGuard.newBuilder(Funnels.longFunnel()).spec(spec).build().spec())
        .isEqualTo(spec);
  }
}
