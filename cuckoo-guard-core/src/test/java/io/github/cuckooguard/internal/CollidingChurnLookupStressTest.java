package io.github.cuckooguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Lock-free lookups beside writers that keep a tiny table at high load with keys that collide on
 * purpose: a few "hot" fingerprints at every bucket (so keys with the same fingerprint and bucket
 * pair but opposite primary buckets exist for every pair, the hiding-move pattern), every hash
 * owned by two key ids (identical fingerprints in one pair, a delete of one of two copies), filler
 * keys that force kicks, and batch adds. Readers check, with {@link FilterCore#contains} and {@link
 * FilterCore#contains4}, every key whose presence they can prove. Each shape runs on plain and on
 * semi-sorted tables ({@link SemiSortedBuckets}: a write re-encodes the whole bucket, which spans
 * two words for some buckets of every width).
 *
 * <p>Proof of presence: each key id has a state word (removal epoch, copies owed). A writer raises
 * the count after its add returned true, and lowers it, bumping the epoch, before it calls remove;
 * so the count is at every instant a lower bound on the copies the filter owes the id. A reader
 * reads the state before and after its lookup: a positive count and an unchanged epoch mean the id
 * was owed a copy throughout the lookup, and a false answer is a false negative. Each id is written
 * by one writer only; writers only remove ids they are owed a copy of, and such a remove returning
 * false is reported too.
 *
 * <p>Seeded (per case and thread), bounded by wall time ({@link #RUN_MILLIS} per case) and by a
 * JUnit timeout. Zero misses are required.
 */
class CollidingChurnLookupStressTest {

  private static final long RUN_MILLIS = 4_000;
  private static final int EPOCH_SHIFT = 20;
  private static final long COUNT_MASK = (1L << EPOCH_SHIFT) - 1;
  private static final int WRITERS = 2;
  private static final int READERS = 3;

  /** One filter and the keys and states of its ids; a growth case replaces it every round. */
  private static final class Round {
    final FilterCore core;
    final long[] hashes;
    final AtomicLongArray state;

    Round(FilterCore core, long[] hashes) {
      this.core = core;
      this.hashes = hashes;
      this.state = new AtomicLongArray(hashes.length);
    }
  }

  @ParameterizedTest(name = "f={0} b={1} n={2} expansion={3} semi-sorted={4}")
  @CsvSource({
    "8, 4, 8, 0, false",
    "13, 4, 8, 0, false",
    "16, 4, 8, 0, false",
    "12, 4, 6, 0, false",
    "13, 8, 8, 0, false",
    "16, 8, 4, 0, false",
    "8, 2, 8, 0, false",
    "8, 4, 4, 2, false",
    "13, 4, 4, 2, false",
    "16, 4, 4, 2, false",
    "8, 4, 8, 0, true",
    "9, 4, 10, 0, true",
    "13, 4, 8, 0, true",
    "16, 4, 8, 0, true",
    "12, 4, 6, 0, true",
    "8, 4, 4, 2, true",
    "13, 4, 4, 2, true",
    "15, 4, 4, 2, true"
  })
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void everyKeyKnownPresentIsFound(int f, int b, int n, int expansion, boolean semi)
      throws InterruptedException {
    long seed = 1_000L * f + 100L * b + 10L * n + expansion;
    AtomicReference<Round> current =
        new AtomicReference<>(newRound(f, b, n, expansion, semi, seed, 0));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong misses = new AtomicLong();
    AtomicLong failedRemoves = new AtomicLong();
    AtomicLong checkedLookups = new AtomicLong();
    AtomicLong lookups = new AtomicLong();
    AtomicLong writes = new AtomicLong();
    AtomicLong rounds = new AtomicLong(1);
    AtomicLong maxSubFilters = new AtomicLong(1);
    AtomicReference<String> firstMiss = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    // Growth cases: writer 0 starts a new round (a fresh filter) when the filter has grown enough,
    // so growth, the publication of a new sub-filter, happens over and over under the readers.
    CountDownLatch start = new CountDownLatch(1);
    Object roundLock = new Object();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom rnd = new SplittableRandom(seed * 31 + writer);
                try {
                  start.await();
                  while (!stop.get()) {
                    Round r = current.get();
                    churn(r, writer, rnd, failedRemoves, writes, 2_000);
                    if (expansion > 0 && writer == 0) {
                      maxSubFilters.accumulateAndGet(r.core.subFilters(), Math::max);
                      if (r.core.subFilters() >= 4 || rnd.nextInt(8) == 0) {
                        synchronized (roundLock) {
                          current.set(
                              newRound(f, b, n, expansion, semi, seed, rounds.getAndIncrement()));
                        }
                      }
                    }
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              },
              "writer-" + w));
    }
    for (int rd = 0; rd < READERS; rd++) {
      int reader = rd;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom rnd = new SplittableRandom(seed * 37 + 100 + reader);
                try {
                  start.await();
                  while (!stop.get()) {
                    Round r = current.get();
                    for (int k = 0; k < 256; k++) {
                      if (rnd.nextBoolean()) {
                        lookupOne(r, rnd, misses, checkedLookups, firstMiss);
                        lookups.incrementAndGet();
                      } else {
                        lookupFour(r, rnd, misses, checkedLookups, firstMiss);
                        lookups.addAndGet(4);
                      }
                    }
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              },
              "reader-" + rd));
    }
    threads.forEach(Thread::start);
    start.countDown();
    Thread.sleep(RUN_MILLIS);
    stop.set(true);
    for (Thread t : threads) {
      t.join(20_000);
    }
    Round last = current.get();
    // Quiescent check: every id owed a copy is found, and counted at least as often.
    for (int i = 0; i < last.hashes.length; i++) {
      long owed = last.state.get(i) & COUNT_MASK;
      if (owed > 0) {
        assertThat(last.core.contains(last.hashes[i])).as("quiescent lookup of id %d", i).isTrue();
        assertThat(last.core.count(last.hashes[i])).isGreaterThanOrEqualTo((int) owed);
      }
    }
    System.out.printf(
        "CollidingChurnLookupStressTest f=%d b=%d n=%d e=%d semi=%b: %d writes, %d lookups, %d checked"
            + " (known present), %d rounds, max %d sub-filters, %d misses, %d failed removes%n",
        f,
        b,
        n,
        expansion,
        semi,
        writes.get(),
        lookups.get(),
        checkedLookups.get(),
        rounds.get(),
        maxSubFilters.get(),
        misses.get(),
        failedRemoves.get());
    assertThat(failure.get()).isNull();
    assertThat(checkedLookups.get()).isGreaterThan(1_000);
    assertThat(misses.get()).as("false negatives; first: %s", firstMiss.get()).isZero();
    assertThat(failedRemoves.get()).as("removes of owed keys that found no copy").isZero();
  }

  /**
   * Ids: for each of three hot fingerprints, one key per bucket (every pair then holds keys of both
   * primaries), and 2·n fillers of random fingerprints; every hash twice (ids 2k and 2k + 1).
   */
  private static Round newRound(
      int f, int b, int n, int expansion, boolean semi, long seed, long round) {
    SplittableRandom rnd = new SplittableRandom(seed ^ (round * 0x9E3779B97F4A7C15L));
    long mask = (1L << f) - 1;
    List<Long> distinct = new ArrayList<>();
    for (int h = 0; h < 3; h++) {
      long fp = 1 + rnd.nextLong(mask);
      for (int l = 0; l < n; l++) {
        distinct.add(CraftedHashes.hash(l, fp, n));
      }
    }
    for (int k = 0; k < 2 * n; k++) {
      distinct.add(CraftedHashes.hash(rnd.nextInt(n), 1 + rnd.nextLong(mask), n));
    }
    long[] hashes = new long[distinct.size() * 2];
    for (int k = 0; k < distinct.size(); k++) {
      hashes[2 * k] = distinct.get(k);
      hashes[2 * k + 1] = distinct.get(k);
    }
    int kicks = 4 + rnd.nextInt(12);
    FilterCore core =
        new FilterCore(
            f,
            b,
            n,
            kicks,
            expansion,
            Math.min(32, f + 1),
            seed + round,
            Sizing.defaultMaxBytes(),
            semi);
    CraftedHashes.require((core.tables()[0].semi != null) == semi, "the first table's layout");
    return new Round(core, hashes);
  }

  /**
   * One writer's share of churn: keeps its ids' owed copies near 45 % of the slots (90 % for both
   * writers), adding singly or in batches of three, removing owed ids.
   */
  private static void churn(
      Round r,
      int writer,
      SplittableRandom rnd,
      AtomicLong failedRemoves,
      AtomicLong writes,
      int ops) {
    int ids = r.hashes.length;
    long target = (long) (r.core.slots() * 0.45);
    long mine = 0;
    for (int i = writer; i < ids; i += WRITERS) {
      mine += r.state.get(i) & COUNT_MASK;
    }
    long[] batch = new long[3];
    int[] batchIds = new int[3];
    boolean[] out = new boolean[3];
    for (int op = 0; op < ops; op++) {
      int id = pick(rnd, ids, writer);
      long s = r.state.get(id);
      long owed = s & COUNT_MASK;
      boolean add = owed == 0 || (mine < target ? rnd.nextInt(4) != 0 : rnd.nextInt(4) == 0);
      if (add) {
        if (rnd.nextInt(8) == 0) {
          for (int k = 0; k < 3; k++) {
            batchIds[k] = k == 0 ? id : pick(rnd, ids, writer);
            batch[k] = r.hashes[batchIds[k]];
          }
          r.core.addAll(batch, out);
          for (int k = 0; k < 3; k++) {
            if (out[k]) {
              r.state.set(batchIds[k], r.state.get(batchIds[k]) + 1);
              mine++;
            }
          }
        } else if (r.core.add(r.hashes[id])) {
          r.state.set(id, s + 1);
          mine++;
        }
      } else {
        long epoch = s >>> EPOCH_SHIFT;
        r.state.set(id, ((epoch + 1) << EPOCH_SHIFT) | (owed - 1));
        mine--;
        if (!r.core.remove(r.hashes[id])) {
          failedRemoves.incrementAndGet();
        }
      }
      writes.incrementAndGet();
    }
  }

  /** A random id owned by {@code writer} (ids of one writer share its parity). */
  private static int pick(SplittableRandom rnd, int ids, int writer) {
    return rnd.nextInt(ids / WRITERS) * WRITERS + writer;
  }

  private static void lookupOne(
      Round r,
      SplittableRandom rnd,
      AtomicLong misses,
      AtomicLong checked,
      AtomicReference<String> firstMiss) {
    int id = rnd.nextInt(r.hashes.length);
    long before = r.state.get(id);
    boolean found = r.core.contains(r.hashes[id]);
    long after = r.state.get(id);
    check(r, id, before, after, found, "contains", misses, checked, firstMiss);
  }

  private static void lookupFour(
      Round r,
      SplittableRandom rnd,
      AtomicLong misses,
      AtomicLong checked,
      AtomicReference<String> firstMiss) {
    int[] id = new int[4];
    long[] before = new long[4];
    for (int k = 0; k < 4; k++) {
      id[k] = rnd.nextInt(r.hashes.length);
      before[k] = r.state.get(id[k]);
    }
    int found =
        r.core.contains4(r.hashes[id[0]], r.hashes[id[1]], r.hashes[id[2]], r.hashes[id[3]]);
    for (int k = 0; k < 4; k++) {
      long after = r.state.get(id[k]);
      check(
          r,
          id[k],
          before[k],
          after,
          (found & (1 << k)) != 0,
          "contains4 lane " + k,
          misses,
          checked,
          firstMiss);
    }
  }

  private static void check(
      Round r,
      int id,
      long before,
      long after,
      boolean found,
      String how,
      AtomicLong misses,
      AtomicLong checked,
      AtomicReference<String> firstMiss) {
    boolean knownPresent =
        (before & COUNT_MASK) > 0 && (before >>> EPOCH_SHIFT) == (after >>> EPOCH_SHIFT);
    if (!knownPresent) {
      return;
    }
    checked.incrementAndGet();
    if (!found) {
      misses.incrementAndGet();
      firstMiss.compareAndSet(
          null,
          how
              + " missed id "
              + id
              + " hash 0x"
              + Long.toHexString(r.hashes[id])
              + " owed "
              + (before & COUNT_MASK)
              + " sub-filters "
              + r.core.subFilters());
    }
  }
}
