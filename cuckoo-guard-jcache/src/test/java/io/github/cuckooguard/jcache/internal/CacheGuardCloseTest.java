package io.github.cuckooguard.jcache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Closing a guarded cache's guard waits for a scan of the provider in progress and makes every
 * later scan fail, so that no read of a closed or destroyed cache reaches a new cache of the same
 * name. A later rebuild fails, and the guard stays in pass-through: it never answers "absent" from
 * a filter built without the cache's keys.
 */
@Timeout(30)
class CacheGuardCloseTest {

  @Test
  void closeWaitsForTheScanInProgressAndLaterScansFail() throws Exception {
    CacheGuard<Long> guard =
        new CacheGuard<>(
            CuckooGuard.newBuilder(Funnels.longFunnel()).expectedInsertions(1_000), true);
    CountDownLatch scanning = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger scans = new AtomicInteger();
    guard.nativeKeys(
        action -> {
          scans.incrementAndGet();
          scanning.countDown();
          try {
            assertTrue(release.await(20, TimeUnit.SECONDS));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
          action.accept(7L);
        });

    CompletableFuture<Void> first = guard.guard().rebuild();
    assertTrue(scanning.await(10, TimeUnit.SECONDS), "the first scan started");
    CompletableFuture<Void> closing = CompletableFuture.runAsync(guard::close);
    Thread.sleep(300);
    assertFalse(closing.isDone(), "close returned while a scan of the cache was in progress");

    release.countDown();
    closing.get(10, TimeUnit.SECONDS);
    first.get(10, TimeUnit.SECONDS);
    assertTrue(guard.mightContain(7L));

    guard.guard().markStale("test: the cache changed after close");
    ExecutionException failed =
        assertThrows(ExecutionException.class, () -> guard.guard().rebuild().get(10, SECONDS));
    assertTrue(
        String.valueOf(failed.getCause().getMessage()).contains("was closed"),
        () -> "failure: " + failed.getCause());
    assertEquals(1, scans.get(), "no scan ran after close");
    assertTrue(guard.guard().isPassThrough(), "a guard whose scan failed answers might-contain");
    assertTrue(guard.mightContain(123_456L));
  }

  private static final TimeUnit SECONDS = TimeUnit.SECONDS;
}
