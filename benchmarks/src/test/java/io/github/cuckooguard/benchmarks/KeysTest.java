package io.github.cuckooguard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeysTest {

  @Test
  void presentKeysAreDistinctAndNeverAbsentKeys() {
    int n = 200_000;
    Set<Long> present = new HashSet<>();
    for (long key : Keys.presentKeys(n)) {
      present.add(key);
    }
    assertThat(present).hasSize(n);
    for (long i = 0; i < n; i++) {
      assertThat(present.contains(Keys.absentKey(i))).isFalse();
    }
  }

  @Test
  void keysAreTheSameInEveryRun() {
    // Pinned: a change here changes every published figure.
    assertThat(Keys.presentKey(0)).isEqualTo(Keys.mix(0));
    assertThat(Keys.presentRange(5, 8))
        .containsExactly(Keys.presentKey(5), Keys.presentKey(6), Keys.presentKey(7));
    assertThat(Keys.probes(1000, 50, 64, 7)).containsExactly(Keys.probes(1000, 50, 64, 7));
  }

  @Test
  void probesHaveExactlyThePositiveShare() {
    int stored = 10_000;
    Set<Long> present = new HashSet<>();
    for (long key : Keys.presentKeys(stored)) {
      present.add(key);
    }
    for (int share : new int[] {0, 50, 100}) {
      long[] probes = Keys.probes(stored, share, 4096, 1);
      long positives = java.util.Arrays.stream(probes).filter(present::contains).count();
      assertThat(positives).as("share %d", share).isEqualTo(4096L * share / 100);
    }
  }

  @Test
  void probesAreShuffled() {
    long[] probes = Keys.probes(10_000, 50, 4096, 1);
    Set<Long> firstHalf = new HashSet<>();
    for (int i = 0; i < 2048; i++) {
      firstHalf.add(probes[i]);
    }
    Set<Long> present = new HashSet<>();
    for (long key : Keys.presentKeys(10_000)) {
      present.add(key);
    }
    long positivesInFirstHalf = firstHalf.stream().filter(present::contains).count();
    // Unshuffled, the first half would be all positives; shuffled it is ~1024 (sd 23).
    assertThat(positivesInFirstHalf).isBetween(850L, 1200L);
  }

  @Test
  void rejectsAShareOutsidePercent() {
    assertThatThrownBy(() -> Keys.probes(10, 101, 16, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("101")
        .hasMessageContaining("[0, 100]");
  }
}
