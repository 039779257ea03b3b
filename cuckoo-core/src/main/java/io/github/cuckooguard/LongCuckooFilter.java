package io.github.cuckooguard;

import com.dynatrace.hash4j.hashing.Hasher64;
import io.github.cuckooguard.internal.DumpFormat;
import io.github.cuckooguard.internal.FilterCore;
import io.github.cuckooguard.internal.hash.KeyHasher;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A {@link CuckooFilter} of primitive {@code long} keys: the same table, guarantees and CF.*
 * operations, without boxing. {@link #add}, {@link #mightContain}, {@link #remove} and
 * {@link #count} allocate nothing. Keys hash exactly as {@link Funnels#longFunnel()} keys do,
 * so a dump of either reads back as the other (funnel id {@code "long"}). Thread-safe.
 */
public final class LongCuckooFilter extends AbstractCuckooFilter {

  private final Hasher64 hasher;

  private LongCuckooFilter(FilterCore core) {
    super(core);
    this.hasher = KeyHasher.xxh3(core.seed()); // the hasher of CuckooFilter<Long>: same hashes
  }

  /** A builder of primitive-long filters. */
  public static Builder newBuilder() {
    return new Builder();
  }

  @Override
  String funnelId() {
    return Funnels.longFunnel().id();
  }

  /** Stores one more fingerprint of {@code key} (CF.ADD); see {@link CuckooFilter#add}. */
  public boolean add(long key) {
    return core.add(hasher.hashLongToLong(key));
  }

  /** Atomic add-if-absent (CF.ADDNX); the warning on {@link CuckooFilter#addIfAbsent} applies. */
  public AddResult addIfAbsent(long key) {
    return CuckooFilter.result(core.addIfAbsent(hasher.hashLongToLong(key)));
  }

  /** False if {@code key} is definitely absent (CF.EXISTS); see {@link CuckooFilter#mightContain}. */
  public boolean mightContain(long key) {
    return core.contains(hasher.hashLongToLong(key));
  }

  /** Copies of {@code key}'s fingerprint (CF.COUNT); see {@link CuckooFilter#count}. */
  public int count(long key) {
    return core.count(hasher.hashLongToLong(key));
  }

  /** Removes one copy (CF.DEL); remove only keys that were added, see {@link CuckooFilter#remove}. */
  public boolean remove(long key) {
    return core.remove(hasher.hashLongToLong(key));
  }

  /** {@link #mightContain} per key, one answer per element of {@code keys} (CF.MEXISTS). */
  public boolean[] mightContainAll(long... keys) {
    Objects.requireNonNull(keys, "keys");
    boolean[] out = new boolean[keys.length];
    for (int i = 0; i < keys.length; i++) {
      out[i] = mightContain(keys[i]);
    }
    return out;
  }

  /** {@link #add} per key, continuing after a failure, one result per element of {@code keys} (CF.INSERT). */
  public boolean[] addAll(long... keys) {
    Objects.requireNonNull(keys, "keys");
    boolean[] out = new boolean[keys.length];
    for (int i = 0; i < keys.length; i++) {
      out[i] = add(keys[i]);
    }
    return out;
  }

  /**
   * Reads a filter written by {@link #writeTo} of a long filter (or of a
   * {@code CuckooFilter<Long>} with {@link Funnels#longFunnel()}); see {@link CuckooFilter#readFrom}
   * for what is checked and where the stream is left.
   *
   * @throws CorruptDumpException if the dump is truncated, corrupt, made of parts of different
   *     dumps, or of an unsupported version
   * @throws IOException if the stream fails
   * @throws IllegalArgumentException if the dump was written with another funnel than {@code "long"}
   */
  public static LongCuckooFilter readFrom(InputStream in) throws IOException {
    return new LongCuckooFilter(DumpFormat.read(Objects.requireNonNull(in, "in"), Funnels.longFunnel().id()));
  }

  /** A loader for the chunks of {@link #scanDump} (CF.LOADCHUNK). */
  public static ChunkLoader<LongCuckooFilter> loader() {
    return new ChunkLoader<>(Funnels.longFunnel().id(), LongCuckooFilter::new);
  }

  /** Builds {@link LongCuckooFilter}s. See {@link AbstractFilterBuilder} for the settings. */
  public static final class Builder extends AbstractFilterBuilder<Builder> {
    private Builder() {}

    /** A new, empty filter; see {@link CuckooFilter.Builder#build()} for what it throws. */
    public LongCuckooFilter build() {
      return new LongCuckooFilter(buildCore());
    }
  }
}
