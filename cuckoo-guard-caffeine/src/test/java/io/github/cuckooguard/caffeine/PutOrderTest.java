package io.github.cuckooguard.caffeine;

import static io.github.cuckooguard.caffeine.Mirror.assertExact;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.github.cuckooguard.Funnels;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code put} picks its first step (replace, or the enter) from a quiet read of the key; these pin
 * that the read is only a guess: a key that stops being live, or becomes live, right after the read
 * is still entered exactly once, and never left without a fingerprint.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PutOrderTest {

  /** A ticker that jumps forward right after the read it was armed for. */
  static final class JumpTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong();
    private final AtomicLong jump = new AtomicLong();

    @Override
    public long read() {
      long now = nanos.get();
      long by = jump.getAndSet(0);
      if (by != 0) {
        nanos.addAndGet(by);
      }
      return now;
    }

    /** The next read returns the current time; every read after it, {@code by} later. */
    void jumpAfterNextRead(Duration by) {
      jump.set(by.toNanos());
    }
  }

  private final JumpTicker ticker = new JumpTicker();
  private final CaffeineGuard<Long, String> guard =
      CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
          .fpp(0.001)
          .seed(11)
          .ticker(ticker)
          .build();

  /**
   * The quiet read sees the key live; by Caffeine's replace it has expired, so the put creates a
   * new entry over the expired one (which Caffeine evicts through the guard's listener): that must
   * be an enter. A put that trusted the read (a plain Caffeine put with no enter) would leave the
   * new entry without a fingerprint, and getIfPresent would answer null for it.
   */
  @Test
  void keyExpiringRightAfterTheQuietReadIsEnteredAgain() {
    Cache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .maximumSize(1_000)
                .expireAfterWrite(Duration.ofMinutes(1))
                .executor(Runnable::run));
    cache.put(5L, "old");

    ticker.jumpAfterNextRead(Duration.ofMinutes(2));
    cache.put(5L, "new");

    assertThat(cache.getIfPresent(5L)).isEqualTo("new");
    assertThat(guard.mightContain(5L)).isTrue();
    assertExact(cache, guard);
  }

  /**
   * The quiet read finds no key, so the put tries the enter first; another write creates the key in
   * between (here from inside Caffeine's put, through the weigher it calls first). The enter finds
   * it live, is aborted, and the put replaces the value: one fingerprint, the put's value.
   */
  @Test
  void keyCreatedRightAfterTheQuietReadIsReplacedWithOneFingerprint() {
    AtomicBoolean interfere = new AtomicBoolean();
    CaffeineGuard<Long, String> weighed =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .expectedInsertions(1_000)
            .fpp(0.001)
            .seed(11)
            .build();
    @SuppressWarnings("unchecked")
    Cache<Long, String>[] cache = new Cache[1];
    cache[0] =
        weighed.wrap(
            Caffeine.newBuilder()
                .maximumWeight(1_000)
                .executor(Runnable::run)
                .weigher(
                    (Long key, String value) -> {
                      if (interfere.compareAndSet(true, false)) {
                        cache[0].put(key, "other");
                      }
                      return 1;
                    }));

    interfere.set(true);
    cache[0].put(9L, "mine");

    assertThat(interfere).isFalse();
    assertThat(cache[0].getIfPresent(9L)).isEqualTo("mine");
    assertExact(cache[0], weighed);
  }
}
