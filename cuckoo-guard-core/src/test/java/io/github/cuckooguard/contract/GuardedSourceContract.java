package io.github.cuckooguard.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.GuardSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every adapter keeps, run by each adapter's test suite against its real component (a
 * Caffeine cache, a JCache provider, Hibernate on H2, a Spring context): a guarded source under
 * churn with racing rebuilds never reports a tracked key absent, and after a quiet rebuild the
 * filter holds exactly one fingerprint per key.
 *
 * <p>A subclass says how to build its component around a guard with the given {@link GuardSpec}
 * (small fingerprints and a fixed seed, so that colliding keys are common and an unpaired remove
 * shows) and how to insert and remove a key through the adapter. Truth needs no shadow set: each
 * writer thread owns a disjoint range of keys, so it knows exactly which of its keys are present
 * between its own calls.
 */
public abstract class GuardedSourceContract {

  /** Fingerprint width of the contract's guards: small, so collisions are frequent. */
  public static final int FINGERPRINT_BITS = 6;

  /** Hash seed of the contract's guards. */
  public static final long SEED = 20261201L;

  /** A component guarded by the adapter under test. */
  public interface Subject extends AutoCloseable {
    /** Inserts {@code key} through the adapter; returns once the key is visible at the source. */
    void insert(long key) throws Exception;

    /** Removes {@code key} through the adapter; returns once it is gone from the source. */
    void remove(long key) throws Exception;

    /** The adapter's guard answer for {@code key}. */
    boolean mightContain(long key);

    /** Starts a rebuild of the adapter's guard from its source. */
    CompletableFuture<?> rebuild();

    /** Fingerprints in the adapter's current filter. */
    long fingerprints();

    /** Whether the guard answers true for every key (pass-through). */
    boolean isPassThrough();

    @Override
    default void close() throws Exception {}
  }

  /** Builds the component and its guard with {@code spec}. */
  protected abstract Subject newSubject(GuardSpec spec) throws Exception;

  /** How long the churn runs. */
  protected Duration churnDuration() {
    return Duration.ofMillis(1_500);
  }

  /** Keys per writer thread. */
  protected int keysPerWriter() {
    return 200;
  }

  /** Writer threads. */
  protected int writers() {
    return 2;
  }

  private static GuardSpec spec(long expectedInsertions) {
    return GuardSpec.newBuilder()
        .expectedInsertions(expectedInsertions)
        .fingerprintBits(FINGERPRINT_BITS)
        .seed(SEED)
        .build();
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void churnWithRacingRebuildsNeverReportsATrackedKeyAbsent() throws Exception {
    int writers = writers();
    int perWriter = keysPerWriter();
    try (Subject subject = newSubject(spec(writers * (long) perWriter))) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong falseNegatives = new AtomicLong();
      AtomicLong checks = new AtomicLong();
      AtomicLong rebuilds = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        long base = 1 + (long) w * perWriter;
        long seed = SEED + w;
        threads.add(
            new Thread(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  boolean[] present = new boolean[perWriter];
                  try {
                    for (long op = 0; !stop.get(); op++) {
                      int i = random.nextInt(perWriter);
                      if (present[i]) {
                        subject.remove(base + i);
                        present[i] = false;
                      } else {
                        subject.insert(base + i);
                        present[i] = true;
                      }
                      if (op % 8 == 0) {
                        for (int j = 0; j < perWriter; j++) {
                          if (present[j]) {
                            checks.incrementAndGet();
                            if (!subject.mightContain(base + j)) {
                              falseNegatives.incrementAndGet();
                            }
                          }
                        }
                      }
                    }
                  } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                  }
                },
                "contract-writer-" + w));
      }
      threads.add(
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    subject.rebuild().get(60, TimeUnit.SECONDS);
                    rebuilds.incrementAndGet();
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              },
              "contract-rebuilder"));
      threads.forEach(Thread::start);
      Thread.sleep(churnDuration().toMillis());
      stop.set(true);
      for (Thread t : threads) {
        t.join(60_000);
      }
      assertThat(failure.get()).as("a writer or the rebuilder failed").isNull();
      assertThat(rebuilds.get()).as("rebuilds that raced the churn").isGreaterThanOrEqualTo(2);
      assertThat(checks.get()).as("lookups of tracked keys").isPositive();
      assertThat(falseNegatives.get())
          .as("tracked keys reported absent in %s lookups", checks.get())
          .isZero();
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void quietRebuildHoldsExactlyOneFingerprintPerKey() throws Exception {
    try (Subject subject = newSubject(spec(1_000))) {
      for (long k = 1; k <= 300; k++) {
        subject.insert(k);
      }
      for (long k = 1; k <= 300; k += 3) {
        subject.remove(k);
      }
      subject.rebuild().get(60, TimeUnit.SECONDS);
      assertThat(subject.isPassThrough()).isFalse();
      assertThat(subject.fingerprints()).isEqualTo(200);
      for (long k = 1; k <= 300; k++) {
        if (k % 3 != 1) {
          assertThat(subject.mightContain(k)).as("key %s", k).isTrue();
        }
      }
    }
  }
}
