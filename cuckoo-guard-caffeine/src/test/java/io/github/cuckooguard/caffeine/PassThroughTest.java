package io.github.cuckooguard.caffeine;

import static io.github.cuckooguard.caffeine.Mirror.assertExact;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.cuckooguard.Funnels;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** A full filter switches the guard to pass-through (slower, never wrong) until a rebuild. */
class PassThroughTest {

  /** Holds rebuild tasks until the test runs them. */
  private static final class ManualExecutor implements Executor {
    private final Queue<Runnable> tasks = new ArrayDeque<>();

    @Override
    public synchronized void execute(Runnable task) {
      tasks.add(task);
    }

    synchronized int runAll() {
      int n = 0;
      for (Runnable task; (task = tasks.poll()) != null; n++) {
        task.run();
      }
      return n;
    }
  }

  @Test
  void aFailedInsertSwitchesPassThroughOnAndARebuildSwitchesItOff() {
    ManualExecutor rebuilds = new ManualExecutor();
    CaffeineGuard<Long, String> guard =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .expectedInsertions(16)
            .expansion(0)
            .fingerprintBits(8)
            .seed(5)
            .executor(rebuilds)
            .build();
    Cache<Long, String> cache =
        guard.wrap(Caffeine.newBuilder().maximumSize(10_000).executor(Runnable::run));

    LongStream.range(0, 500).forEach(k -> cache.put(k, "v"));
    assertThat(guard.isPassThrough()).isTrue();
    assertThat(guard.mightContain(1_000_000L))
        .as("pass-through answers true for anything")
        .isTrue();
    assertThat(Mirror.falseNegatives(cache, guard)).isEmpty();

    assertThat(rebuilds.runAll()).isPositive();
    assertThat(guard.isPassThrough()).isFalse();
    assertThat(guard.stats().rebuilds()).isEqualTo(1);
    assertRebuiltExactly(
        cache,
        guard,
        () -> {
          CompletableFuture<Void> next = guard.rebuild();
          rebuilds.runAll();
          next.join();
        });
    long definiteMisses =
        LongStream.range(1_000_000, 1_001_000).filter(k -> !guard.mightContain(k)).count();
    assertThat(definiteMisses).as("short-circuiting again").isGreaterThan(900);
  }

  @Test
  void aRebuildRunOnTheWritingThreadClearsPassThroughWithoutLosingTheKeyBeingWritten() {
    CaffeineGuard<Long, String> guard =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .expectedInsertions(16)
            .expansion(0)
            .fingerprintBits(8)
            .seed(5)
            .executor(Runnable::run)
            .build();
    Cache<Long, String> cache =
        guard.wrap(Caffeine.newBuilder().maximumSize(10_000).executor(Runnable::run));

    // The insert that fails requests a rebuild, which the direct executor runs right there, on the
    // writing thread, before the key is published: the guard holds that key in flight itself, so
    // the rebuilt filter has it although the scan cannot see it yet.
    for (long k = 0; k < 500; k++) {
      cache.put(k, "v");
      assertThat(guard.mightContain(k)).as("key %s right after its put", k).isTrue();
    }
    cache.get(1_000L, k -> "loaded"); // an enter inside Caffeine's compute, rebuilt there too
    assertThat(guard.stats().rebuilds()).as("rebuilds on the writing thread").isPositive();
    assertThat(guard.stats().lastRebuildFailure()).isNull();
    assertThat(Mirror.falseNegatives(cache, guard)).isEmpty();

    guard.rebuild().join();
    assertThat(guard.isPassThrough()).isFalse();
    assertRebuiltExactly(cache, guard, () -> guard.rebuild().join());
  }

  /**
   * The rebuild that clears pass-through hands the keys whose insert failed to the new filter and
   * also scans them, so each of those holds two copies until the next rebuild (cuckoo-guard-core's
   * documented, safe leak). The next rebuild is exact.
   */
  private static void assertRebuiltExactly(
      Cache<Long, String> cache, CaffeineGuard<Long, String> guard, Runnable rebuildAgain) {
    assertThat(Mirror.falseNegatives(cache, guard)).isEmpty();
    assertThat(guard.stats().size()).isGreaterThanOrEqualTo(cache.estimatedSize());
    rebuildAgain.run();
    assertExact(cache, guard);
  }
}
