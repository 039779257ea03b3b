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
 * operations, without boxing. {@link #add}, {@link #mightContain}, {@link #remove} and {@link
 * #count} allocate nothing. Keys hash exactly as {@link Funnels#longFunnel()} keys do, so a dump of
 * either reads back as the other (funnel id {@code "long"}). Thread-safe.
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

  /**
   * False if {@code key} is definitely absent (CF.EXISTS); see {@link CuckooFilter#mightContain}.
   */
  public boolean mightContain(long key) {
    return core.contains(hasher.hashLongToLong(key));
  }

  /** Copies of {@code key}'s fingerprint (CF.COUNT); see {@link CuckooFilter#count}. */
  public int count(long key) {
    return core.count(hasher.hashLongToLong(key));
  }

  /**
   * Removes one copy (CF.DEL); remove only keys that were added, see {@link CuckooFilter#remove}.
   */
  public boolean remove(long key) {
    return core.remove(hasher.hashLongToLong(key));
  }

  /** {@link #mightContain} per key, one answer per element of {@code keys} (CF.MEXISTS). */
  public boolean[] mightContainAll(long... keys) {
    Objects.requireNonNull(keys, "keys");
    boolean[] out = new boolean[keys.length];
    mightContainAll(keys, 0, keys.length, out);
    return out;
  }

  /**
   * {@link #mightContain} of every element of {@code keys}, written to {@code out[i]}; allocates
   * nothing. Same answers as single lookups.
   *
   * @throws IndexOutOfBoundsException if {@code out} is shorter than {@code keys}
   */
  public void mightContainAll(long[] keys, boolean[] out) {
    mightContainAll(keys, 0, keys.length, out);
  }

  /**
   * {@link #mightContain} of {@code keys[from .. from + length)}, written to {@code out[0 ..
   * length)}; allocates nothing. Same answers as single lookups.
   *
   * @throws IndexOutOfBoundsException if the range is outside {@code keys} or {@code out} is
   *     shorter than {@code length}
   */
  public void mightContainAll(long[] keys, int from, int length, boolean[] out) {
    Objects.checkFromIndexSize(from, length, keys.length);
    Objects.checkFromIndexSize(0, length, out.length);
    Hasher64 h = hasher;
    FilterCore c = core;
    int i = 0;
    // Groups of four validated together (FilterCore.contains4): one stamp check per group
    // instead of one per key, and the table's parameters loaded once per group.
    for (; i + 4 <= length; i += 4) {
      int k = from + i;
      int found =
          c.contains4(
              h.hashLongToLong(keys[k]),
              h.hashLongToLong(keys[k + 1]),
              h.hashLongToLong(keys[k + 2]),
              h.hashLongToLong(keys[k + 3]));
      out[i] = (found & 1) != 0;
      out[i + 1] = (found & 2) != 0;
      out[i + 2] = (found & 4) != 0;
      out[i + 3] = (found & 8) != 0;
    }
    for (; i < length; i++) {
      out[i] = c.contains(h.hashLongToLong(keys[from + i]));
    }
  }

  /**
   * {@link #add} of {@code keys[from .. from + length)}, continuing after a failure, result {@code
   * i} into {@code out[i]} (CF.INSERT); allocates nothing. The writer lock is taken once per 1,024
   * keys instead of once per key: other writers wait that long, readers never wait.
   *
   * @throws IndexOutOfBoundsException if the range is outside {@code keys} or {@code out} is
   *     shorter than {@code length}
   */
  public void addAll(long[] keys, int from, int length, boolean[] out) {
    Objects.checkFromIndexSize(from, length, keys.length);
    Objects.checkFromIndexSize(0, length, out.length);
    core.addAll(keys, from, length, out, hasher);
  }

  /**
   * {@link #add} of {@code keys[from .. from + length)} in order, stopping at the first key the
   * filter refuses; allocates nothing. Returns how many keys were added: {@code length} if all
   * were, else {@code r < length} with {@code keys[from + r]} the key refused.
   *
   * <p>The writer lock is taken once per batch of up to 1,024 keys instead of once per key (a
   * longer range takes it once per 1,024 keys: other writers wait at most that long; readers never
   * wait). A filter that can grow grows in the middle of a batch exactly as a single {@link #add}
   * would.
   *
   * <p>When the filter is full (it refuses a key: no room within the kick budget and no growth
   * left, or the key's bucket pair already holds as many copies of its fingerprint as it can): the
   * keys before the refused one are stored and stay stored; the refused key and the keys after it
   * are not stored; and nothing stored before, by this call or earlier, is lost, because an add
   * only fills a free slot or moves fingerprints inside their own bucket pairs, and a refused add
   * changes nothing. So every key added and not removed still answers {@link #mightContain} true.
   *
   * @return the number of keys added, in {@code [0, length]}
   * @throws IndexOutOfBoundsException if the range is outside {@code keys}
   */
  public int addAll(long[] keys, int from, int length) {
    Objects.checkFromIndexSize(from, length, keys.length);
    return core.addAllUntilRefused(keys, from, length, hasher);
  }

  /**
   * {@link #add} per key, continuing after a failure, one result per element of {@code keys}
   * (CF.INSERT).
   */
  public boolean[] addAll(long... keys) {
    Objects.requireNonNull(keys, "keys");
    boolean[] out = new boolean[keys.length];
    addAll(keys, 0, keys.length, out);
    return out;
  }

  /**
   * Reads a filter written by {@link #writeTo} of a long filter (or of a {@code CuckooFilter<Long>}
   * with {@link Funnels#longFunnel()}); see {@link CuckooFilter#readFrom} for what is checked and
   * where the stream is left.
   *
   * @throws CorruptDumpException if the dump is truncated, corrupt, made of parts of different
   *     dumps, or of an unsupported version
   * @throws IOException if the stream fails
   * @throws IllegalArgumentException if the dump was written with another funnel than {@code
   *     "long"}
   */
  public static LongCuckooFilter readFrom(InputStream in) throws IOException {
    return new LongCuckooFilter(
        DumpFormat.read(Objects.requireNonNull(in, "in"), Funnels.longFunnel().id()));
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
