package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.alt;
import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static io.github.cuckooguard.internal.CraftedHashes.require;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hiding move of {@link FourSlotCollidingChurnScenario} under the group lookups of the 16- and
 * 8-bit plain tables ({@link Table#contains4}, which for those kinds loads all eight buckets before
 * testing any and returns a group of four matches unvalidated). Resident key K sits in one group
 * with other resident keys that no write moves: a reader that read K's bucket A before add(J) and
 * its bucket B after remove(J) found no F for K but a match for every other key, so only the stamps
 * stop it answering 14 instead of 15. A second group mixes K with a key never added, so every
 * answer goes through the validation (expected 11: lanes 0, 1 and 3).
 *
 * <pre>
 *   start        A = [_, X2, X3, X4]   B = [F(K), Y1, Y2, Y3]
 *   add(J)       B is full, so F goes to A           A = [F, X2, X3, X4]
 *   remove(J)    J's first bucket is B: B's F goes   B = [_, Y1, Y2, Y3]
 * </pre>
 *
 * Lincheck's model checker explores the interleavings; the sequential specification always answers
 * 15 and 11.
 */
public abstract class FourSlotGroupHidingMoveScenario {

  static final int BUCKETS = 4;
  static final long F = 0x5A;
  static final int A = 0;
  static final int B = alt(A, F, BUCKETS);
  static final long K = hash(A, F, BUCKETS);
  static final long J = hash(B, F, BUCKETS);
  static final long X2 = hash(A, 0x12, BUCKETS);
  static final long X3 = hash(A, 0x13, BUCKETS);
  static final long Y1 = hash(B, 0x21, BUCKETS);
  static final long Y2 = hash(B, 0x22, BUCKETS);

  /** Never added: primary A, a fingerprint no key of the scenario has. */
  static final long ABSENT = hash(A, 0x77, BUCKETS);

  private final FilterCore core;

  FourSlotGroupHidingMoveScenario(int bits) {
    require(alt(B, F, BUCKETS) == A, "J's alternate bucket is A");
    FilterCore c = new FilterCore(bits, 4, BUCKETS, 8, 0, 1);
    require(c.tables()[0].kind != PackedBuckets.GENERAL, "a specialised table");
    for (int i = 1; i <= 4; i++) {
      require(c.add(hash(A, 0x10 + i, BUCKETS)), "fill A");
    }
    require(c.add(K), "K into B");
    for (int i = 1; i <= 3; i++) {
      require(c.add(hash(B, 0x20 + i, BUCKETS)), "fill B");
    }
    require(c.remove(hash(A, 0x11, BUCKETS)), "one free slot in A");
    Table t = c.tables()[0];
    require(t.slotOf(B, F) >= 0 && t.slotOf(A, F) < 0, "F in B");
    require(t.freeSlot(A) >= 0 && t.freeSlot(B) < 0, "A has room, B is full");
    require(!c.contains(ABSENT), "ABSENT is absent");
    require(c.contains4(K, X2, Y1, K) == 15, "all four resident");
    require(c.contains4(X3, K, ABSENT, Y2) == 11, "lane 2 absent");
    this.core = c;
  }

  @Operation
  public int groupAllResident() {
    return core.contains4(K, X2, Y1, K);
  }

  @Operation
  public int groupWithAbsent() {
    return core.contains4(X3, K, ABSENT, Y2);
  }

  @Operation
  public boolean addColliding() {
    return core.add(J);
  }

  @Operation
  public boolean removeColliding() {
    return core.remove(J);
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void groupsHoldingTheResidentKeyFindItWhileACollidingKeyIsAddedAndRemoved() {
    new ModelCheckingOptions()
        .iterations(0)
        .addCustomScenario(
            CraftedHashes.parallel(
                getClass(),
                List.of(
                    List.of("groupAllResident", "groupWithAbsent"),
                    List.of("addColliding", "removeColliding"))))
        .invocationsPerIteration(1_000)
        .check(getClass());
  }
}
