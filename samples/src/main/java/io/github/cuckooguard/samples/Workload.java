package io.github.cuckooguard.samples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Runs the request loops of a story's variants (with and without the guard) for the same time, in
 * alternating slices of one second, so that both see the same machine: a background load or the JIT
 * compiler warming up slows both alike instead of whichever ran first. Every request is timed, and
 * the progress is printed every two seconds.
 *
 * <p>Each variant has its own random stream per thread, seeded from the seed and the thread's
 * number, and continued from slice to slice: both variants serve the same sequence of requests. A
 * request that throws stops the run, and {@link #run} rethrows the first failure.
 */
public final class Workload {

  private static final Duration SLICE = Duration.ofSeconds(1);
  private static final long PROGRESS_EVERY_NANOS = 2_000_000_000L;

  /**
   * Latency samples kept per thread and variant at most (8 MB); later requests are still counted.
   */
  private static final int MAX_SAMPLES = 1 << 20;

  /** One request of a thread. */
  @FunctionalInterface
  public interface Request {
    /**
     * Serves one request.
     *
     * @param thread the thread's number, from 0
     * @param random the thread's random stream
     */
    void serve(int thread, SplittableRandom random) throws Exception;
  }

  /** A variant of the story: a name for the progress lines and its request. */
  public record Variant(String name, Request request) {}

  /**
   * What a variant did.
   *
   * @param requests requests served
   * @param elapsed time spent serving them (the sum of the variant's slices)
   * @param latencies the time each request took
   */
  public record Result(long requests, Duration elapsed, Latencies latencies) {
    /** Requests served per second. */
    public double perSecond() {
      return requests / Math.max(1e-9, elapsed.toNanos() / 1e9);
    }
  }

  private Workload() {}

  /**
   * Runs each variant for {@code duration} on {@code threads} threads, in alternating slices.
   *
   * @return one result per variant, in order
   * @throws Exception the first exception a request threw
   */
  public static List<Result> run(
      int threads, Duration duration, long seed, PrintStream out, Variant... variants)
      throws Exception {
    List<Side> sides = new ArrayList<>();
    for (Variant variant : variants) {
      sides.add(new Side(variant, threads, seed));
    }
    long lastPrint = System.nanoTime();
    for (long done = 0; done < duration.toNanos(); done += SLICE.toNanos()) {
      long slice = Math.min(SLICE.toNanos(), duration.toNanos() - done);
      for (Side side : sides) {
        side.runSlice(slice);
      }
      if (System.nanoTime() - lastPrint >= PROGRESS_EVERY_NANOS
          && done + slice < duration.toNanos()) {
        lastPrint = System.nanoTime();
        long doneNanos = done + slice;
        out.printf(
            Locale.ROOT,
            "    %s after %.0f of %.0f s%n",
            sides.stream()
                .map(s -> String.format(Locale.ROOT, "%s %,d", s.variant.name(), s.served.sum()))
                .collect(Collectors.joining(", ")),
            doneNanos / 1e9,
            duration.toNanos() / 1e9);
      }
    }
    return sides.stream().map(Side::result).toList();
  }

  /** The state of one variant across its slices. */
  private static final class Side {
    final Variant variant;
    final SplittableRandom[] randoms;
    final long[][] samples;
    final int[] counts;
    final LongAdder served = new LongAdder();
    long nanos;

    Side(Variant variant, int threads, long seed) {
      this.variant = variant;
      this.randoms = new SplittableRandom[threads];
      this.samples = new long[threads][];
      this.counts = new int[threads];
      for (int t = 0; t < threads; t++) {
        randoms[t] = new SplittableRandom(seed * 1_000_003 + t);
        samples[t] = new long[1024];
      }
    }

    void runSlice(long sliceNanos) throws Exception {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread[] workers = new Thread[randoms.length];
      long start = System.nanoTime();
      long deadline = start + sliceNanos;
      for (int t = 0; t < workers.length; t++) {
        int thread = t;
        workers[t] =
            new Thread(() -> serveUntil(thread, deadline, failure), variant.name() + "-" + t);
        workers[t].start();
      }
      for (Thread worker : workers) {
        worker.join();
      }
      nanos += System.nanoTime() - start;
      Throwable failed = failure.get();
      if (failed instanceof Exception e) {
        throw e;
      } else if (failed != null) {
        throw new IllegalStateException(variant.name() + " failed", failed);
      }
    }

    private void serveUntil(int thread, long deadline, AtomicReference<Throwable> failure) {
      SplittableRandom random = randoms[thread];
      long[] mine = samples[thread];
      int count = counts[thread];
      try {
        for (long begin = System.nanoTime();
            begin - deadline < 0 && failure.get() == null;
            begin = System.nanoTime()) {
          variant.request().serve(thread, random);
          long took = System.nanoTime() - begin;
          served.increment();
          if (count < MAX_SAMPLES) {
            if (count == mine.length) {
              mine = Arrays.copyOf(mine, Math.min(MAX_SAMPLES, count * 2));
            }
            mine[count++] = took;
          }
        }
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      } finally {
        samples[thread] = mine;
        counts[thread] = count;
      }
    }

    Result result() {
      long[] all = new long[Arrays.stream(counts).sum()];
      int at = 0;
      for (int t = 0; t < samples.length; t++) {
        System.arraycopy(samples[t], 0, all, at, counts[t]);
        at += counts[t];
      }
      return new Result(served.sum(), Duration.ofNanos(nanos), new Latencies(all));
    }
  }
}
