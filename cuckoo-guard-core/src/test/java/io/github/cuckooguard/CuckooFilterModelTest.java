package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-based test: random sequences of every operation, checked after each step against a multiset
 * of keys (the model). Fingerprints of 4 and 8 bits in small tables make different keys share
 * fingerprints and buckets all the time, and the fill/drain phases push the table to full (kicks,
 * failed adds, growth) and back.
 *
 * <p>What must hold for a key the model holds {@code c > 0} times: {@code mightContain} is true,
 * {@code count} is at least {@code c}, {@code addIfAbsent} answers {@code ALREADY_PRESENT}, and
 * {@code remove} succeeds. The filter's item count equals the model's size at every step. A failed
 * add happens only when the filter cannot grow or the key's bucket pairs already hold 2·b copies of
 * its fingerprint, and loses nothing. Only keys the model holds are removed (removing others may
 * legitimately create false negatives; see {@link CollisionHazardTest}).
 *
 * <p>130,000 operations per shape, 10 shapes: 1.3 million operations, fixed seeds.
 */
class CuckooFilterModelTest {

  private static final int OPERATIONS = 130_000;

  /** A fill phase ends after this many failed adds; a drain phase at half load. */
  private static final int FAILURES_PER_FILL = 10;

  private static final int MAX_PHASE = 8_000;
  private static final int FULL_CHECK_EVERY = 2_000;
  private static final int MAX_COPIES = 3;

  static Stream<Arguments> shapes() {
    // fingerprint bits, bucket size, expansion, capacity, max kicks, primitive filter?, seed
    return Stream.of(
        arguments(4, 2, 0, 300, 64, false, 11L),
        arguments(4, 4, 1, 300, 64, true, 12L),
        arguments(4, 8, 0, 300, 64, false, 13L),
        arguments(8, 2, 1, 500, 500, true, 14L),
        arguments(8, 4, 0, 500, 500, false, 15L),
        arguments(8, 8, 1, 500, 64, true, 16L),
        arguments(4, 4, 0, 40, 64, true, 17L),
        arguments(8, 2, 0, 40, 64, false, 18L),
        // Expansion 2: sub-filter t has 2^t segments; a remove searches the newest first.
        arguments(4, 2, 2, 200, 64, true, 19L),
        arguments(8, 4, 2, 300, 64, false, 20L));
  }

  /**
   * Semi-sorted filters (4-slot buckets): fingerprints of 4 to 16 bits, and growth from 4 or 8
   * bits, whose sub-filters are semi-sorted up to 16 bits and plain beyond (a filter of both
   * layouts).
   */
  static Stream<Arguments> semiSortedShapes() {
    return Stream.of(
        arguments(4, 4, 0, 300, 64, true, 31L),
        arguments(4, 4, 1, 300, 64, false, 32L),
        arguments(5, 4, 0, 300, 500, false, 33L),
        arguments(8, 4, 1, 500, 500, true, 34L),
        arguments(8, 4, 2, 300, 64, false, 35L),
        arguments(13, 4, 0, 500, 500, true, 36L),
        arguments(16, 4, 0, 40, 64, false, 37L));
  }

  @ParameterizedTest(
      name = "f={0} b={1} expansion={2} capacity={3} maxKicks={4} primitive={5} seed={6}")
  @MethodSource("shapes")
  void filterNeverDisagreesWithTheMultisetModel(
      int f, int b, int expansion, int capacity, int maxKicks, boolean primitive, long seed) {
    runModel(f, b, expansion, capacity, maxKicks, primitive, seed, false);
  }

  @ParameterizedTest(
      name =
          "semi-sorted f={0} b={1} expansion={2} capacity={3} maxKicks={4} primitive={5} seed={6}")
  @MethodSource("semiSortedShapes")
  void semiSortedFilterNeverDisagreesWithTheMultisetModel(
      int f, int b, int expansion, int capacity, int maxKicks, boolean primitive, long seed) {
    runModel(f, b, expansion, capacity, maxKicks, primitive, seed, true);
  }

  private static void runModel(
      int f,
      int b,
      int expansion,
      int capacity,
      int maxKicks,
      boolean primitive,
      long seed,
      boolean semiSorted) {
    FilterSubject filter;
    if (primitive) {
      LongCuckooFilter.Builder builder =
          LongCuckooFilter.newBuilder()
              .fingerprintBits(f)
              .bucketSize(b)
              .expansion(expansion)
              .expectedInsertions(capacity)
              .maxKicks(maxKicks)
              .seed(seed);
      filter = FilterSubject.of((semiSorted ? builder.semiSorted() : builder).build());
    } else {
      CuckooFilter.Builder<Long> builder =
          CuckooFilter.newBuilder(Funnels.longFunnel())
              .fingerprintBits(f)
              .bucketSize(b)
              .expansion(expansion)
              .expectedInsertions(capacity)
              .maxKicks(maxKicks)
              .seed(seed);
      filter = FilterSubject.of((semiSorted ? builder.semiSorted() : builder).build());
    }
    Run run = new Run(filter, new SplittableRandom(seed), 3 * capacity);
    for (int i = 0; i < OPERATIONS; i++) {
      run.step();
      if (i % FULL_CHECK_EVERY == 0) {
        run.checkEveryHeldKey();
      }
    }
    run.checkEveryHeldKey();
    run.drainAndCheckEmpty();

    // The run must have reached the states it is meant to test.
    assertThat(run.fillPhases).as("fill/drain cycles").isGreaterThanOrEqualTo(5);
    if (expansion == 0) {
      assertThat(run.maxLoad).as("highest load reached").isGreaterThan(0.9);
      assertThat(run.failedAdds).as("adds rejected by the full fixed-size filter").isPositive();
    } else {
      assertThat(run.maxSubFilters).as("sub-filters grown").isGreaterThan(1);
    }
    if (f < 16) {
      // 16-bit fingerprints in the small table collide too rarely to count on one.
      assertThat(run.collisionsSeen)
          .as("ADDNX answers ALREADY_PRESENT for keys the model lacks")
          .isPositive();
    }
  }

  /** One model-based run: the filter, the model and the bookkeeping of what was exercised. */
  private static final class Run {
    final FilterSubject filter;
    final SplittableRandom random;
    final long[] universe;
    final Map<Long, Integer> model = new HashMap<>();

    /** One entry per stored copy, so that a uniform pick is a uniform copy to remove. */
    final List<Long> copies = new ArrayList<>();

    long failedAdds;
    long collisionsSeen;
    double maxLoad;
    int maxSubFilters = 1;
    boolean filling = true;
    int phaseOps;
    long phaseFailures;
    int fillPhases;

    Run(FilterSubject filter, SplittableRandom random, int universeSize) {
      this.filter = filter;
      this.random = random;
      this.universe = random.longs(universeSize).toArray();
    }

    long anyKey() {
      return universe[random.nextInt(universe.length)];
    }

    int held(long key) {
      return model.getOrDefault(key, 0);
    }

    void step() {
      int op = random.nextInt(100);
      int adds = filling ? 55 : 20;
      int removes = filling ? 15 : 50;
      if (op < adds) {
        int kind = random.nextInt(4);
        if (kind == 0) {
          addIfAbsent(anyKey());
        } else if (kind == 1) {
          addAll();
        } else {
          add(anyKey());
        }
      } else if (op < adds + removes) {
        removeHeld();
      } else {
        int kind = random.nextInt(3);
        if (kind == 0) {
          checkKey(anyKey());
        } else if (kind == 1) {
          checkKey(copies.isEmpty() ? anyKey() : copies.get(random.nextInt(copies.size())));
        } else {
          mightContainAll();
        }
      }
      AbstractCuckooFilter f = filter.filter();
      assertThat(f.approximateElementCount())
          .as("items stored vs model size")
          .isEqualTo(copies.size());
      double load = f.loadFactor();
      maxLoad = Math.max(maxLoad, load);
      phaseOps++;
      if (filling
          ? phaseFailures >= FAILURES_PER_FILL || phaseOps >= MAX_PHASE
          : load < 0.5 || phaseOps >= MAX_PHASE) {
        maxSubFilters = Math.max(maxSubFilters, f.info().subFilters());
        fillPhases += filling ? 1 : 0;
        filling = !filling;
        phaseOps = 0;
        phaseFailures = 0;
      }
    }

    void add(long key) {
      if (held(key) >= MAX_COPIES) {
        return;
      }
      record(key, filter.add(key));
      checkKey(key);
    }

    void record(long key, boolean stored) {
      if (stored) {
        model.merge(key, 1, Integer::sum);
        copies.add(key);
      } else {
        failedAdds++;
        phaseFailures++;
        FilterInfo info = filter.info();
        // or when the key's pairs already hold the most copies of its fingerprint (2·b, over all
        // sub-filters), which growth may not lift
        assertThat(
                info.expansion() == 0
                    || info.subFilters() == 32
                    || filter.count(key) >= 2 * info.bucketSize())
            .as(
                "an add fails only when the filter cannot grow or the key's pairs are at the copy limit: %s",
                info)
            .isTrue();
      }
    }

    void addIfAbsent(long key) {
      int before = held(key);
      AddResult result = filter.addIfAbsent(key);
      if (before > 0) {
        assertThat(result).as("ADDNX of a held key").isEqualTo(AddResult.ALREADY_PRESENT);
      }
      switch (result) {
        case ADDED -> record(key, true);
        case ALREADY_PRESENT -> {
          assertThat(filter.mightContain(key)).isTrue();
          if (before == 0) {
            collisionsSeen++;
          }
        }
        case FULL -> {
          record(key, false);
          assertThat(filter.mightContain(key))
              .as("FULL means the key was absent, and nothing was stored")
              .isFalse();
        }
      }
      checkKey(key);
    }

    void addAll() {
      long[] batch = new long[1 + random.nextInt(5)];
      for (int i = 0; i < batch.length; i++) {
        batch[i] = anyKey();
      }
      // Keep every key under MAX_COPIES even if it repeats inside the batch.
      Map<Long, Integer> planned = new HashMap<>();
      for (long k : batch) {
        if (held(k) + planned.merge(k, 1, Integer::sum) > MAX_COPIES) {
          return;
        }
      }
      boolean[] stored = filter.addAll(batch);
      assertThat(stored).hasSize(batch.length);
      for (int i = 0; i < batch.length; i++) {
        record(batch[i], stored[i]);
      }
      for (long k : batch) {
        checkKey(k);
      }
    }

    void removeHeld() {
      if (copies.isEmpty()) {
        return;
      }
      int i = random.nextInt(copies.size());
      long key = copies.get(i);
      copies.set(i, copies.get(copies.size() - 1));
      copies.remove(copies.size() - 1);
      model.merge(key, -1, (a, b) -> a + b == 0 ? null : a + b);
      assertThat(filter.remove(key)).as("remove of a held key").isTrue();
      checkKey(key);
    }

    void mightContainAll() {
      long[] batch = new long[1 + random.nextInt(6)];
      for (int i = 0; i < batch.length; i++) {
        batch[i] =
            i % 2 == 0 && !copies.isEmpty() ? copies.get(random.nextInt(copies.size())) : anyKey();
      }
      boolean[] answers = filter.mightContainAll(batch);
      assertThat(answers).hasSize(batch.length);
      for (int i = 0; i < batch.length; i++) {
        assertThat(answers[i])
            .as("mightContainAll[%s] vs mightContain", i)
            .isEqualTo(filter.mightContain(batch[i]));
        if (held(batch[i]) > 0) {
          assertThat(answers[i]).as("mightContainAll of held key %s", batch[i]).isTrue();
        }
      }
    }

    void checkKey(long key) {
      int held = held(key);
      if (held > 0) {
        assertThat(filter.mightContain(key))
            .as("false negative for key %s held %s times", key, held)
            .isTrue();
      }
      assertThat(filter.count(key))
          .as("count of key %s held %s times", key, held)
          .isGreaterThanOrEqualTo(held);
    }

    void checkEveryHeldKey() {
      for (Map.Entry<Long, Integer> e : model.entrySet()) {
        assertThat(filter.mightContain(e.getKey()))
            .as("false negative for held key %s", e.getKey())
            .isTrue();
        assertThat(filter.count(e.getKey()))
            .as("count of held key %s", e.getKey())
            .isGreaterThanOrEqualTo(e.getValue());
      }
    }

    /** Removing every held copy must leave no fingerprint at all: nothing is found any more. */
    void drainAndCheckEmpty() {
      while (!copies.isEmpty()) {
        removeHeld();
      }
      assertThat(filter.info().itemsInserted()).isZero();
      for (long key : universe) {
        assertThat(filter.mightContain(key)).as("key %s after draining", key).isFalse();
        assertThat(filter.count(key)).isZero();
      }
    }
  }
}
