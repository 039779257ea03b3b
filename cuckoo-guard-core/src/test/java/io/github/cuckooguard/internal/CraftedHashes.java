package io.github.cuckooguard.internal;

import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;

/**
 * Hashes built to land in chosen buckets with chosen fingerprints (the layout of {@link
 * BucketIndex}: fingerprint = low bits, primary bucket = multiply-shift of the high 32 bits), and
 * custom Lincheck scenarios over no-argument operations, for tests that replay one exact race.
 */
final class CraftedHashes {

  private CraftedHashes() {}

  /**
   * A hash whose primary bucket among {@code buckets} is {@code bucket} and whose fingerprint is
   * {@code fp}.
   */
  static long hash(int bucket, long fp, int buckets) {
    long high = ((long) bucket << 32) / buckets + 1;
    long h = (high << 32) | fp;
    if (BucketIndex.primaryIndex(h, buckets) != bucket) {
      throw new IllegalStateException("no hash for bucket " + bucket + " of " + buckets);
    }
    return h;
  }

  /**
   * The alternate bucket of {@code bucket} for fingerprint {@code fp} in a table of {@code
   * buckets}.
   */
  static int alt(int bucket, long fp, int buckets) {
    return BucketIndex.altIndex(bucket, fp, buckets, buckets / 2);
  }

  /** A scenario with no initial or final part: each inner list names one thread's operations. */
  static ExecutionScenario parallel(Class<?> testClass, List<List<String>> threads) {
    try {
      List<List<Actor>> actors = new java.util.ArrayList<>();
      for (List<String> thread : threads) {
        List<Actor> ops = new java.util.ArrayList<>();
        for (String method : thread) {
          ops.add(new Actor(testClass.getMethod(method), List.of()));
        }
        actors.add(ops);
      }
      return new ExecutionScenario(List.of(), actors, List.of(), null);
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(e);
    }
  }

  static void require(boolean setUp, String what) {
    if (!setUp) {
      throw new IllegalStateException("scenario set-up failed: " + what);
    }
  }
}
