package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The two documented ways to create a false negative, pinned so that the warnings on {@link
 * CuckooFilter#remove} and {@link CuckooFilter#addIfAbsent} stay true: removing a key that was
 * never added, and de-duplicating keys with add-if-absent. Both need two keys with the same
 * fingerprint and bucket pair; a 2-bucket table with 4-bit fingerprints makes such pairs common,
 * and {@code count} finds them (a key's count includes every copy of its fingerprint in its
 * buckets, which can only belong to keys with the same fingerprint and bucket pair).
 */
class CollisionHazardTest {

  /** A key other than {@code key} that shares its fingerprint and buckets in {@code filter}. */
  private static long collidingKey(LongCuckooFilter filter, long key) {
    assertThat(filter.count(key)).isEqualTo(1);
    for (long other = key + 1; ; other++) {
      if (filter.count(other) == 1) {
        return other;
      }
    }
  }

  private static LongCuckooFilter tiny() {
    return LongCuckooFilter.newBuilder()
        .expectedInsertions(1)
        .bucketSize(4)
        .fingerprintBits(4)
        .expansion(0)
        .seed(7)
        .build();
  }

  @Test
  void removingANeverAddedCollidingKeyCreatesAFalseNegative() {
    LongCuckooFilter filter = tiny();
    assertThat(filter.add(1000)).isTrue();
    long stranger = collidingKey(filter, 1000);

    assertThat(filter.remove(stranger)).as("remove of a key never added succeeds...").isTrue();
    assertThat(filter.mightContain(1000))
        .as("...and the added key is gone: a false negative")
        .isFalse();
  }

  @Test
  void deduplicatingWithAddIfAbsentThenRemovingOneKeyHidesTheOther() {
    LongCuckooFilter filter = tiny();
    assertThat(filter.addIfAbsent(1000)).isEqualTo(AddResult.ADDED);
    long twin = collidingKey(filter, 1000);
    assertThat(filter.addIfAbsent(twin))
        .as("ADDNX of a different key")
        .isEqualTo(AddResult.ALREADY_PRESENT);

    assertThat(filter.remove(1000)).isTrue();
    assertThat(filter.mightContain(twin))
        .as("the twin was never stored: a false negative")
        .isFalse();
  }

  @Test
  void keyLevelAddOfBothCollidingKeysSurvivesEitherRemove() {
    LongCuckooFilter filter = tiny();
    assertThat(filter.add(1000)).isTrue();
    long twin = collidingKey(filter, 1000);
    assertThat(filter.add(twin)).isTrue();
    assertThat(filter.count(twin)).isEqualTo(2);

    assertThat(filter.remove(1000)).isTrue();
    assertThat(filter.mightContain(twin)).isTrue();
    assertThat(filter.remove(twin)).isTrue();
    assertThat(filter.count(twin)).isZero();
  }
}
