package io.github.cuckooguard.hibernate.internal;

import static io.github.cuckooguard.hibernate.CuckooGuardSettings.ENABLED;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.ENTITIES;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.EXPECTED_INSERTIONS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.FINGERPRINT_BITS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.FPP;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.REBUILD_LOAD_THRESHOLD;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.SCAN_FETCH_SIZE;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.SEED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.AbstractFilterBuilder;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GuardSettingsTest {

  @Test
  void defaultsComeFromTheConstants() {
    GuardSettings settings = GuardSettings.from(Map.of());
    assertThat(settings.enabled()).isEqualTo(CuckooGuardSettings.DEFAULT_ENABLED);
    assertThat(settings.entities()).isEmpty();
    assertThat(settings.spec().expectedInsertions())
        .isEqualTo(CuckooGuardSettings.DEFAULT_EXPECTED_INSERTIONS);
    assertThat(settings.spec().targetFpp()).isEqualTo(AbstractFilterBuilder.DEFAULT_FPP);
    assertThat(settings.spec().rebuildLoadThreshold())
        .isEqualTo(GuardSpec.DEFAULT_REBUILD_LOAD_THRESHOLD);
    assertThat(settings.scanFetchSize()).isEqualTo(CuckooGuardSettings.DEFAULT_SCAN_FETCH_SIZE);
  }

  @Test
  void parsesStringsAndNumbersInAnySpelling() {
    GuardSettings settings =
        GuardSettings.from(
            Map.of(
                ENABLED,
                "FALSE",
                ENTITIES,
                " a.B , C ,",
                EXPECTED_INSERTIONS,
                "1_000",
                FPP,
                0.001,
                REBUILD_LOAD_THRESHOLD,
                "0.5",
                "hibernate.cuckoo.scan-fetch-size",
                64,
                SEED,
                7,
                "hibernate.cuckoo.fppDriftFactor",
                "4",
                "unrelated.setting",
                "x"));
    assertThat(settings.enabled()).isFalse();
    assertThat(settings.entities()).isEqualTo(Set.of("a.B", "C"));
    assertThat(settings.spec().expectedInsertions()).isEqualTo(1000);
    assertThat(settings.spec().fpp()).isEqualTo(0.001);
    assertThat(settings.spec().rebuildLoadThreshold()).isEqualTo(0.5);
    assertThat(settings.spec().seed()).isEqualTo(7L);
    assertThat(settings.spec().fppDriftFactor()).isEqualTo(4.0);
    assertThat(settings.scanFetchSize()).isEqualTo(64);
  }

  @Test
  void misspelledNamesFailWithTheAcceptedOnes() {
    for (String typo : new String[] {"hibernate.cuckoo.fpq", "hibernate.cuckoo.enable"}) {
      assertThatThrownBy(() -> GuardSettings.from(Map.of(typo, "1")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(typo)
          .hasMessageContaining("fpp")
          .hasMessageContaining("expected-insertions")
          .hasMessageContaining("enabled")
          .hasMessageContaining("entities")
          .hasMessageContaining("scan-fetch-size");
    }
  }

  @Test
  void oldNamesStillWork() {
    GuardSettings settings =
        GuardSettings.from(
            Map.of(
                "hibernate.cuckoo.expected_rows",
                "500",
                "hibernate.cuckoo.rebuild_threshold",
                "0.6"));
    assertThat(settings.spec().expectedInsertions()).isEqualTo(500);
    assertThat(settings.spec().rebuildLoadThreshold()).isEqualTo(0.6);
    assertThatThrownBy(
            () ->
                GuardSettings.from(
                    Map.of(
                        "hibernate.cuckoo.expected_rows",
                        "500",
                        "hibernate.cuckoo.expectedInsertions",
                        "600")))
        .hasMessageContaining("name the same setting");
  }

  @Test
  void badValuesNameTheSettingAndTheValue() {
    assertThatThrownBy(() -> GuardSettings.from(Map.of(FPP, "1.5")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(FPP)
        .hasMessageContaining("1.5")
        .hasMessageContaining("(0, 1)");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(EXPECTED_INSERTIONS, "0")))
        .hasMessageContaining(EXPECTED_INSERTIONS)
        .hasMessageContaining("(0)");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(EXPECTED_INSERTIONS, "many")))
        .hasMessageContaining(EXPECTED_INSERTIONS)
        .hasMessageContaining("many")
        .hasMessageContaining("not a number");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(REBUILD_LOAD_THRESHOLD, 1.5)))
        .hasMessageContaining(REBUILD_LOAD_THRESHOLD)
        .hasMessageContaining("1.5");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(FPP, "0.01", FINGERPRINT_BITS, "8")))
        .hasMessageContaining("fingerprintBits")
        .hasMessageContaining("fpp");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(ENABLED, "yes")))
        .hasMessageContaining("use true or false");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(SCAN_FETCH_SIZE, -3)))
        .hasMessageContaining(SCAN_FETCH_SIZE)
        .hasMessageContaining("-3");
  }

  @Test
  void annotationValuesOverrideCapacityAndFppOnly() {
    GuardSpec base =
        GuardSettings.from(Map.of(FINGERPRINT_BITS, 6, SEED, 3, REBUILD_LOAD_THRESHOLD, 0.7))
            .spec();
    assertThat(GuardSettings.withOverrides(base, 0, 0, "here")).isSameAs(base);
    GuardSpec sized = GuardSettings.withOverrides(base, 42, 0, "here");
    assertThat(sized.expectedInsertions()).isEqualTo(42);
    assertThat(sized.fingerprintBits()).isEqualTo(6);
    assertThat(sized.seed()).isEqualTo(3L);
    assertThat(sized.rebuildLoadThreshold()).isEqualTo(0.7);
    GuardSpec precise = GuardSettings.withOverrides(base, 0, 0.001, "here");
    assertThat(precise.fpp()).isEqualTo(0.001);
    assertThat(precise.expectedInsertions()).isEqualTo(base.expectedInsertions());
    assertThatThrownBy(() -> GuardSettings.withOverrides(base, -1, 0, "@GuardedEntity on X"))
        .hasMessageContaining("@GuardedEntity on X")
        .hasMessageContaining("-1");
  }
}
