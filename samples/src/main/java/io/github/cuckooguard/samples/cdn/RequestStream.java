package io.github.cuckooguard.samples.cdn;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The paths clients ask for: a catalogue of videos whose popularity follows a Zipf law (rank {@code
 * r} is asked with probability proportional to {@code 1 / r^s}), mixed with a share of paths nobody
 * asked for before (search pages with random queries, cache-busting URLs). Immutable; the
 * randomness comes from the caller.
 */
final class RequestStream {

  private final double[] cumulative;
  private final double neverSeenShare;

  RequestStream(int catalog, double exponent, double neverSeenShare) {
    this.cumulative = new double[catalog];
    double sum = 0;
    for (int rank = 1; rank <= catalog; rank++) {
      sum += 1 / Math.pow(rank, exponent);
      cumulative[rank - 1] = sum;
    }
    for (int i = 0; i < catalog; i++) {
      cumulative[i] /= sum;
    }
    this.neverSeenShare = neverSeenShare;
  }

  /** The next path. */
  String next(SplittableRandom random) {
    if (random.nextDouble() < neverSeenShare) {
      return "/search/" + Long.toHexString(random.nextLong());
    }
    int at = Arrays.binarySearch(cumulative, random.nextDouble());
    int rank = (at >= 0 ? at : -at - 1) + 1;
    return "/video/" + Math.min(rank, cumulative.length);
  }
}
