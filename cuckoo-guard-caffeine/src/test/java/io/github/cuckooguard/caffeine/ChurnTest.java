package io.github.cuckooguard.caffeine;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.github.cuckooguard.Funnels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Random operations from several threads over a small key space, with 6-bit fingerprints so that
 * keys share fingerprints constantly: a single unpaired remove or missing add shows up as a false
 * negative. The truth is the cache itself, checked two ways: inside Caffeine's per-key lock during
 * the churn (an entry that exists must pass {@code mightContain} at that instant), and over every
 * key at quiescent points (after {@code cleanUp()}). Zero false negatives is the only passing
 * figure.
 */
class ChurnTest {

  private static final int THREADS = 4;

  /** 4 × 250,000 = 10^6 operations in the churn test. */
  private static final int OPS_PER_THREAD = 250_000;

  /** Half as many while rebuilds run back to back (each scan takes a core of the two). */
  private static final int OPS_PER_THREAD_WITH_REBUILDS = 125_000;

  private static final int PHASES = 5;
  private static final int KEYS = 4_000;

  private final FakeTicker ticker = new FakeTicker();
  private final CaffeineGuard<Long, String> guard =
      CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
          .fingerprintBits(6)
          .seed(2024)
          .ticker(ticker)
          // Room for every key of the key space and no drift trigger: rebuilds happen only when a
          // test
          // asks, so without them the filter must hold exactly one fingerprint per entry.
          .expectedInsertions(2 * KEYS)
          .fppDriftFactor(Double.POSITIVE_INFINITY)
          .build();

  /** Loads a value for 9 keys in 10; the tenth stays absent at the source. */
  private final LoadingCache<Long, String> cache =
      guard.wrap(
          Caffeine.newBuilder()
              .maximumSize(2_000)
              .expireAfterWrite(Duration.ofSeconds(30))
              .executor(Runnable::run),
          key -> key % 10 == 0 ? null : "loaded" + key);

  private final AtomicLong inLockFalseNegatives = new AtomicLong();
  private final AtomicLong operations = new AtomicLong();

  @Test
  void churnNeverLeavesACachedKeyOutOfTheFilter() throws Exception {
    for (int phase = 0; phase < PHASES; phase++) {
      runPhase(phase, OPS_PER_THREAD, false);
      cache.cleanUp();
      assertThat(Mirror.falseNegatives(cache, guard))
          .as("false negatives after phase %d", phase)
          .isEmpty();
      // No rebuild ran, so nothing leaked: the filter holds exactly one fingerprint per entry.
      assertThat(guard.stats().rebuilds()).isZero();
      assertThat(guard.stats().size())
          .as("fingerprints vs entries")
          .isEqualTo(cache.estimatedSize());
    }
    assertThat(inLockFalseNegatives).hasValue(0);
    assertThat(operations.get()).isGreaterThanOrEqualTo(1_000_000);
  }

  @Test
  void rebuildsRacingWithChurnNeverLeaveACachedKeyOutOfTheFilter() throws Exception {
    for (int phase = 0; phase < PHASES; phase++) {
      runPhase(phase, OPS_PER_THREAD_WITH_REBUILDS, true);
      Mirror.awaitRebuilds(guard);
      cache.cleanUp();
      assertThat(Mirror.falseNegatives(cache, guard))
          .as("false negatives after phase %d", phase)
          .isEmpty();
      assertThat(guard.stats().size())
          .as("leaks only, never a missing copy")
          .isGreaterThanOrEqualTo(cache.estimatedSize());
    }
    assertThat(inLockFalseNegatives).hasValue(0);
    assertThat(guard.stats().rebuilds()).isGreaterThan(PHASES);
    assertThat(operations.get()).isGreaterThanOrEqualTo(500_000);
    guard.rebuild().join();
    assertThat(guard.stats().size())
        .as("after a quiescent rebuild")
        .isEqualTo(cache.estimatedSize());
    assertThat(Mirror.falseNegatives(cache, guard)).isEmpty();
  }

  private void runPhase(int phase, int opsPerThread, boolean rebuildContinuously)
      throws InterruptedException {
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      SplittableRandom random = new SplittableRandom(1_000L * phase + t);
      workers.add(
          new Thread(
              () -> {
                for (int i = 0; i < opsPerThread / PHASES; i++) {
                  step(random);
                }
              },
              "churn-" + t));
    }
    AtomicBoolean done = new AtomicBoolean();
    Thread rebuilder =
        new Thread(
            () -> {
              while (!done.get()) {
                guard.rebuild().join();
              }
            },
            "rebuilder");
    workers.forEach(Thread::start);
    if (rebuildContinuously) {
      rebuilder.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    done.set(true);
    if (rebuildContinuously) {
      rebuilder.join();
    }
  }

  private void step(SplittableRandom random) {
    operations.incrementAndGet();
    long key = random.nextInt(KEYS);
    ConcurrentMap<Long, String> map = cache.asMap();
    int op = random.nextInt(100);
    if (op < 15) {
      cache.put(key, "put" + op);
    } else if (op < 20) {
      map.replace(key, "replaced");
    } else if (op < 30) {
      cache.get(key);
    } else if (op < 38) {
      cache.get(key, k -> op % 3 == 0 ? null : "fn");
    } else if (op < 48) {
      cache.invalidate(key);
    } else if (op < 54) {
      map.compute(key, (k, v) -> op % 4 == 0 ? null : "computed" + (v == null ? 0 : v.length()));
    } else if (op < 58) {
      map.merge(key, "m", (a, b) -> op % 2 == 0 ? null : b);
    } else if (op < 62) {
      map.remove(key);
    } else if (op < 65) {
      String v = map.get(key);
      if (v != null) {
        map.remove(key, v);
      }
    } else if (op < 70) {
      map.putIfAbsent(key, "pia");
    } else if (op < 74) {
      map.computeIfPresent(key, (k, v) -> op % 2 == 0 ? null : v + "");
    } else if (op < 90) {
      // The invariant, checked inside Caffeine's lock for this key: an entry that exists at this
      // instant must be in the filter at this instant.
      map.computeIfPresent(
          key,
          (k, v) -> {
            if (!guard.mightContain(k)) {
              inLockFalseNegatives.incrementAndGet();
            }
            return v;
          });
    } else if (op < 94) {
      cache.getIfPresent(key);
    } else if (op < 96) {
      cache.getAll(List.of(key, key + 1, key + 2));
    } else if (op < 98) {
      Iterator<Map.Entry<Long, String>> it = map.entrySet().iterator();
      for (int n = 0; n < 3 && it.hasNext(); n++) {
        Map.Entry<Long, String> e = it.next();
        if (e.getKey() % 2 == 0) {
          it.remove();
        } else {
          e.setValue("set");
        }
      }
    } else if (op == 98) {
      if (random.nextInt(10) == 0) {
        ticker.advance(Duration.ofSeconds(1));
      }
    } else if (random.nextInt(2_000) == 0) {
      cache.invalidateAll();
    }
  }
}
