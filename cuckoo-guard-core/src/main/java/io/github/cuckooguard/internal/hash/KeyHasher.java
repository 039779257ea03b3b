package io.github.cuckooguard.internal.hash;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.cuckooguard.Funnel;
import org.jspecify.annotations.Nullable;

/**
 * A filter's key hash: its funnel under XXH3-64 seeded with the filter's seed (the scheme the dump
 * header records as {@code "xxh3-64"}). A {@link DirectFunnel} hashes the key with a direct call;
 * any other funnel writes into the thread's {@link ScratchSink}. Neither allocates (keys up to 4
 * KiB). Immutable and thread-safe.
 *
 * @param <T> the key type
 */
public final class KeyHasher<T> {

  private final Hasher64 hasher;
  private final Funnel<? super T> funnel;
  private final @Nullable DirectFunnel<? super T> direct;

  /** The hash of {@code funnel}'s keys in a filter seeded with {@code seed}. */
  @SuppressWarnings("unchecked") // a DirectFunnel<X> is a Funnel<X>: the same X
  public KeyHasher(Funnel<? super T> funnel, long seed) {
    this.hasher = xxh3(seed);
    this.funnel = funnel;
    this.direct = funnel instanceof DirectFunnel<?> d ? (DirectFunnel<? super T>) d : null;
  }

  /**
   * The one place the hash function is chosen, for object and primitive filters alike: XXH3-64 with
   * the filter's seed.
   */
  public static Hasher64 xxh3(long seed) {
    return Hashing.xxh3_64(seed);
  }

  /** The 64-bit hash of {@code key} (not null). */
  public long hash(T key) {
    DirectFunnel<? super T> d = direct;
    return d != null ? d.hash(key, hasher) : ScratchSink.hash(hasher, funnel, key);
  }
}
