package io.github.cuckooguard.internal.hash;

import com.dynatrace.hash4j.hashing.Hasher64;
import io.github.cuckooguard.Funnel;

/**
 * A funnel that can hash a key itself, with one of hash4j's direct calls ({@code hashLongToLong},
 * {@code hashBytesToLong}, …), instead of putting bytes into a sink. The ready funnels of {@code
 * Funnels} implement it; {@link KeyHasher} takes this path when it is there.
 *
 * <p>Contract: {@code hash(key, h)} equals the hash of the bytes {@code funnel(key, sink)} puts,
 * for every key and hasher (HashingGoldenTest checks it), so a key hashes alike whichever path a
 * filter takes, and dumps stay readable.
 *
 * @param <T> the key type
 */
public interface DirectFunnel<T> extends Funnel<T> {

  /** The hash of {@code key}'s bytes under {@code hasher}; allocates nothing. */
  long hash(T key, Hasher64 hasher);
}
