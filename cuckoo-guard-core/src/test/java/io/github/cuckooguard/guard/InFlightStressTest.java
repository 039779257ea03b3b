package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The registry of transitions in flight under concurrency: writer threads each own a range of keys
 * and walk them through every protocol step (begin, the source change, visible/abort,
 * announce/gone/cancel, keyLeft inside the removal, duplicate enters of a visible key, a gone()
 * that comes after the key entered again), holding so many transitions at once that each thread
 * overflows its slots into the spill map and the threads' probe lines overlap, while a driver
 * rebuilds without pause. Some ends run on another thread than their begin (the writer waits for
 * them, so the calls for one key stay ordered), and some begins and ends run with the thread's
 * interrupt flag set.
 *
 * <p>Checked: after every step, each key its writer tracks (from its enter's begin to its
 * gone/abort) answers true; at the end, with everything finished, a quiet rebuild holds exactly one
 * fingerprint per key at the source and nothing is in flight. Six-bit fingerprints, so keys share
 * fingerprints and buckets: an install that missed a transition, or an end that cleared another
 * transition's record, soon shows up as a tracked key reported absent. Seeds fixed per writer (the
 * interleavings vary from run to run; the bound is zero false negatives either way).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InFlightStressTest {

  private static final int WRITERS = 4;
  private static final int KEYS_PER_WRITER = 96;
  private static final int STEPS = 15_000;
  private static final long SEED = 20261201L;

  private final Set<Long> source = ConcurrentHashMap.newKeySet();
  private final ExecutorService rebuilder = Executors.newSingleThreadExecutor();
  private final ExecutorService enders = Executors.newFixedThreadPool(2);
  private final CuckooGuard<Long> guard =
      CuckooGuard.newBuilder(Funnels.longFunnel())
          .expectedInsertions(64)
          .fingerprintBits(6)
          .seed(5)
          .keySource(source::forEach)
          .executor(rebuilder)
          .build();
  private final AtomicLong falseNegatives = new AtomicLong();
  private final AtomicLong checkedWithoutPassThrough = new AtomicLong();
  private final AtomicLong maxInFlight = new AtomicLong();

  /** One key's protocol state, owned by its writer. */
  private static final class KeyModel {
    boolean visible;
    PendingEnter<Long> entering;
    PendingLeave<Long> leaving;
    boolean added;
    boolean removed;
    final Deque<PendingEnter<Long>> duplicates = new ArrayDeque<>();
    final Deque<PendingLeave<Long>> lagging = new ArrayDeque<>();

    boolean tracked() {
      return visible || entering != null;
    }
  }

  private final class Writer implements Runnable {
    final long base;
    final SplittableRandom random;
    final KeyModel[] model = new KeyModel[KEYS_PER_WRITER];
    String firstFailure;

    Writer(int index) {
      this.base = 1_000_000L * (index + 1);
      this.random = new SplittableRandom(SEED + index);
      for (int i = 0; i < KEYS_PER_WRITER; i++) {
        model[i] = new KeyModel();
      }
    }

    @Override
    public void run() {
      for (int step = 0; step < STEPS; step++) {
        int i = random.nextInt(KEYS_PER_WRITER);
        step(model[i], base + i);
        check(step);
      }
    }

    /** Runs an end here, or on another thread while this one waits (ordered either way). */
    void end(Runnable call) {
      int how = random.nextInt(8);
      if (how == 0) {
        Future<?> f = enders.submit(call);
        try {
          f.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
          throw new IllegalStateException(e);
        }
      } else if (how == 1) {
        Thread.currentThread().interrupt();
        try {
          call.run();
        } finally {
          assertThat(Thread.interrupted()).as("the guard keeps the interrupt flag").isTrue();
        }
      } else {
        call.run();
      }
    }

    <T> T begin(java.util.function.Supplier<T> call) {
      if (random.nextInt(8) == 0) {
        Thread.currentThread().interrupt();
        try {
          return call.get();
        } finally {
          Thread.interrupted();
        }
      }
      return call.get();
    }

    void step(KeyModel m, long key) {
      int choice = random.nextInt(4);
      if (!m.duplicates.isEmpty() && random.nextInt(3) == 0) {
        PendingEnter<Long> d = m.duplicates.poll();
        end(d::abort);
        return;
      }
      if (!m.lagging.isEmpty() && random.nextInt(3) == 0) {
        PendingLeave<Long> l = m.lagging.poll();
        end(l::gone);
        return;
      }
      if (m.entering != null) {
        PendingEnter<Long> e = m.entering;
        if (m.added) {
          end(e::visible);
          m.visible = true;
          m.entering = null;
          m.added = false;
        } else if (choice < 2) {
          source.add(key);
          m.added = true;
        } else if (choice == 2) {
          end(e::abort);
          m.entering = null;
        }
      } else if (m.leaving != null) {
        PendingLeave<Long> l = m.leaving;
        if (m.removed && choice == 3) {
          m.lagging.add(l);
          m.visible = false;
          m.leaving = null;
          m.removed = false;
        } else if (m.removed) {
          end(l::gone);
          m.visible = false;
          m.leaving = null;
          m.removed = false;
        } else if (choice == 0) {
          end(l::cancel);
          m.leaving = null;
        } else {
          source.remove(key);
          m.removed = true;
        }
      } else if (m.visible) {
        switch (choice) {
          case 0 -> m.leaving = begin(() -> guard.beginLeave(key));
          case 1 -> {
            end(() -> guard.keyLeft(key));
            source.remove(key);
            m.visible = false;
          }
          case 2 -> m.duplicates.add(begin(() -> guard.beginEnter(key)));
          default -> {}
        }
      } else if (choice < 3) {
        if (random.nextInt(16) == 0) {
          // an enter made visible at once, its handle ended before the next step
          PendingEnter<Long> e = begin(() -> guard.beginEnter(key));
          source.add(key);
          end(e::visible);
          m.visible = true;
        } else {
          m.entering = begin(() -> guard.beginEnter(key));
        }
      }
    }

    void check(int step) {
      boolean passThrough = guard.isPassThrough();
      for (int i = 0; i < KEYS_PER_WRITER; i++) {
        if (model[i].tracked() && !guard.mightContain(base + i)) {
          falseNegatives.incrementAndGet();
          if (firstFailure == null) {
            firstFailure = "key " + (base + i) + " at step " + step;
          }
        } else if (!passThrough) {
          checkedWithoutPassThrough.incrementAndGet();
        }
      }
      long n = guard.inFlight();
      maxInFlight.accumulateAndGet(n, Math::max);
    }

    void finishAll() {
      for (int i = 0; i < KEYS_PER_WRITER; i++) {
        KeyModel m = model[i];
        long key = base + i;
        while (!m.duplicates.isEmpty()) {
          m.duplicates.poll().abort();
        }
        while (!m.lagging.isEmpty()) {
          m.lagging.poll().gone();
        }
        if (m.entering != null) {
          source.add(key);
          m.entering.visible();
          m.visible = true;
          m.entering = null;
        }
        if (m.leaving != null) {
          if (m.removed) {
            m.leaving.gone();
            m.visible = false;
          } else {
            m.leaving.cancel();
          }
          m.leaving = null;
        }
      }
    }
  }

  @Test
  void noTrackedKeyIsReportedAbsentWhileRebuildsRaceSpillingWriters() throws Exception {
    List<Writer> writers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicBoolean done = new AtomicBoolean();
    for (int w = 0; w < WRITERS; w++) {
      Writer writer = new Writer(w);
      writers.add(writer);
      Thread t = new Thread(writer, "writer-" + w);
      threads.add(t);
    }
    threads.forEach(Thread::start);
    long rebuilds = 0;
    long failed = 0;
    Thread driver =
        new Thread(
            () -> {
              while (!done.get()) {
                try {
                  guard.rebuild().join();
                } catch (CompletionException e) {
                  // a rebuilt filter refused a copy: the guard passes through, which is safe
                }
              }
            },
            "rebuild-driver");
    driver.start();
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(50));
      assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
    }
    done.set(true);
    driver.join(TimeUnit.SECONDS.toMillis(10));
    rebuilds = guard.stats().rebuilds();
    failed = guard.stats().rebuildFailures();

    List<String> failures = new ArrayList<>();
    for (Writer w : writers) {
      if (w.firstFailure != null) {
        failures.add(w.firstFailure);
      }
    }
    assertThat(falseNegatives.get())
        .as("tracked keys reported absent (first per writer: %s)", failures)
        .isZero();
    assertThat(rebuilds).as("rebuilds swapped in (%s failed)", failed).isGreaterThan(20);
    assertThat(maxInFlight.get())
        .as("transitions in flight at once: more than one writer's 32 probes")
        .isGreaterThan(2L * 32);
    assertThat(checkedWithoutPassThrough.get()).isGreaterThan(500_000L);

    for (Writer w : writers) {
      w.finishAll();
    }
    assertThat(guard.inFlight()).isZero();
    guard.rebuild().get(30, TimeUnit.SECONDS);
    assertThat(guard.isPassThrough()).isFalse();
    assertThat(guard.stats().size()).as("a quiet rebuild is exact").isEqualTo(source.size());
    for (long key : source) {
      assertThat(guard.mightContain(key)).as("key %s at the end", key).isTrue();
    }
    rebuilder.shutdownNow();
    enders.shutdownNow();
  }
}
