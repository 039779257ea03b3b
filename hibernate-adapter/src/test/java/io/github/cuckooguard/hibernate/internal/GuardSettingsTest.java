package io.github.cuckooguard.hibernate.internal;

import static io.github.cuckooguard.hibernate.CuckooGuardSettings.ENABLED;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.ENTITIES;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.EXPECTED_ROWS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.FPP;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.REBUILD_THRESHOLD;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.SCAN_FETCH_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    assertThat(settings.expectedRows()).isEqualTo(CuckooGuardSettings.DEFAULT_EXPECTED_ROWS);
    assertThat(settings.fpp()).isEqualTo(CuckooGuardSettings.DEFAULT_FPP);
    assertThat(settings.rebuildThreshold()).isEqualTo(CuckooGuardSettings.DEFAULT_REBUILD_THRESHOLD);
    assertThat(settings.scanFetchSize()).isEqualTo(CuckooGuardSettings.DEFAULT_SCAN_FETCH_SIZE);
  }

  @Test
  void parsesStringsAndNumbers() {
    GuardSettings settings = GuardSettings.from(Map.of(ENABLED, "FALSE", ENTITIES, " a.B , C ,",
        EXPECTED_ROWS, "1_000", FPP, 0.001, REBUILD_THRESHOLD, "0.5", SCAN_FETCH_SIZE, 64));
    assertThat(settings.enabled()).isFalse();
    assertThat(settings.entities()).isEqualTo(Set.of("a.B", "C"));
    assertThat(settings.expectedRows()).isEqualTo(1000);
    assertThat(settings.fpp()).isEqualTo(0.001);
    assertThat(settings.rebuildThreshold()).isEqualTo(0.5);
    assertThat(settings.scanFetchSize()).isEqualTo(64);
  }

  @Test
  void badValuesNameTheSettingTheValueAndTheRange() {
    assertThatThrownBy(() -> GuardSettings.from(Map.of(FPP, "1.5")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(FPP).hasMessageContaining("1.5").hasMessageContaining("> 0 and < 1");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(EXPECTED_ROWS, "0")))
        .hasMessageContaining(EXPECTED_ROWS).hasMessageContaining("at least 1");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(EXPECTED_ROWS, "many")))
        .hasMessageContaining("'many' is not a whole number");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(REBUILD_THRESHOLD, 1.0)))
        .hasMessageContaining(REBUILD_THRESHOLD).hasMessageContaining("1.0");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(ENABLED, "yes")))
        .hasMessageContaining("use true or false");
    assertThatThrownBy(() -> GuardSettings.from(Map.of(SCAN_FETCH_SIZE, -3)))
        .hasMessageContaining(SCAN_FETCH_SIZE).hasMessageContaining("-3");
  }
}
