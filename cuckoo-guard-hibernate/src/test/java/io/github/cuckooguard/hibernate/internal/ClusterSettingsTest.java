package io.github.cuckooguard.hibernate.internal;

import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_INSTANCE;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_LEASE_MILLIS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_MINIMUM_MEMBERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code hibernate.cuckoo.cluster.*} values are checked against the cluster module's bounds
 * when the settings are read, and the error names the setting, the value and the accepted range.
 */
class ClusterSettingsTest {

  @Test
  void valuesAtTheBoundsAreKept() {
    ClusterSettings low =
        ClusterSettings.from(
            Map.of(
                CLUSTER_INSTANCE, "m", CLUSTER_LEASE_MILLIS, "30", CLUSTER_MINIMUM_MEMBERS, "1"));
    ClusterSettings high =
        ClusterSettings.from(Map.of(CLUSTER_INSTANCE, "m", CLUSTER_MINIMUM_MEMBERS, " 1000 "));

    assertThat(low.leaseMillis()).isEqualTo(30);
    assertThat(low.minimumMembers()).isEqualTo(1);
    assertThat(high.minimumMembers()).isEqualTo(1000);
    assertThat(high.leaseMillis()).as("unset: the engine's default").isZero();
  }

  @Test
  void minimumMembersOutOfRangeNamesTheSettingAndTheRange() {
    for (String bad : new String[] {"0", "1001", "-2"}) {
      assertThatThrownBy(
              () ->
                  ClusterSettings.from(Map.of(CLUSTER_INSTANCE, "m", CLUSTER_MINIMUM_MEMBERS, bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(CLUSTER_MINIMUM_MEMBERS + " = " + bad.trim())
          .hasMessageContaining("[1, 1000]");
    }
    assertThatThrownBy(
            () ->
                ClusterSettings.from(Map.of(CLUSTER_INSTANCE, "m", CLUSTER_MINIMUM_MEMBERS, "two")))
        .hasMessageContaining("'two' is not a whole number of members");
  }

  @Test
  void leaseBelowTheEnginesBoundNamesTheBound() {
    assertThatThrownBy(
            () -> ClusterSettings.from(Map.of(CLUSTER_INSTANCE, "m", CLUSTER_LEASE_MILLIS, "29")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(CLUSTER_LEASE_MILLIS + " = 29 must be at least 30 ms");
  }
}
