package io.github.cuckooguard;

import io.github.cuckooguard.internal.ChunkDump;
import io.github.cuckooguard.internal.DumpFormat;
import io.github.cuckooguard.internal.FilterCore;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;

/**
 * What every cuckoo filter offers besides its key-typed operations: size, shape, accuracy and
 * export. See {@link CuckooFilter} for the object-keyed filter and {@link LongCuckooFilter} for the
 * primitive one. Thread-safe.
 */
public abstract sealed class AbstractCuckooFilter permits CuckooFilter, LongCuckooFilter {

  final FilterCore core;

  AbstractCuckooFilter(FilterCore core) {
    this.core = core;
  }

  /** The funnel id stored in dumps: checked when the filter was built, at most 255 bytes. */
  abstract String funnelId();

  /**
   * The funnel id, if it can be stored in a dump that another JVM run reads back.
   *
   * @throws IllegalStateException if the funnel's id is not stable across runs (a lambda's default
   *     id names its hidden class)
   */
  String dumpableFunnelId() {
    return funnelId();
  }

  /**
   * Fingerprints currently stored: adds minus removes that succeeded. Equals the number of distinct
   * keys only when each key was added once (see {@link CuckooFilter#add}).
   */
  public long approximateElementCount() {
    return core.size();
  }

  /** The share of slots in use, in [0, 1]. */
  public double loadFactor() {
    return core.loadFactor();
  }

  /**
   * The probability that {@code mightContain} answers true for a key never added, predicted from
   * the current fill (see {@link FilterInfo#expectedFpp()}).
   */
  public double expectedFpp() {
    return core.expectedFpp();
  }

  /** Bytes of fingerprint storage. */
  public long sizeInBytes() {
    return core.bytes();
  }

  /** Shape and fill, the fields of RedisBloom's {@code CF.INFO} and more (CF.INFO). */
  public FilterInfo info() {
    return new FilterInfo(
        core.bytes(),
        core.totalBuckets(),
        core.subFilters(),
        core.size(),
        core.deletes(),
        core.bucketSize(),
        core.expansion(),
        core.maxKicks(),
        core.loadFactor(),
        core.fingerprintBits(),
        core.expectedFpp());
  }

  /**
   * Writes the filter in a versioned binary form (documented in {@code internal.DumpFormat}) whose
   * header holds everything needed to read it back: format version, hash scheme, seed, funnel id,
   * fingerprint bits, bucket size, bucket counts, item counts, and checksums. The content is a
   * consistent snapshot, taken under the writer lock; writing happens after it is released. The
   * header carries a random id of this snapshot and a digest of the whole body, so that a reader
   * refuses a header and a body of different dumps; the reader stops after the dump's last byte
   * (see {@link CuckooFilter#readFrom}).
   *
   * @throws IOException if {@code out} fails
   * @throws IllegalStateException if the funnel is a lambda without a stable {@link Funnel#id()}
   *     (its dump could not be read back in another JVM run)
   */
  public void writeTo(OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out");
    DumpFormat.write(core, dumpableFunnelId(), out);
  }

  /**
   * Exports the filter in bounded chunks (CF.SCANDUMP): call with cursor 0, then with each returned
   * cursor until a chunk {@link DumpChunk#isEnd() ends} the dump. Cursor 0 returns the header; each
   * further chunk holds at most 8 MiB. Each chunk is copied under the writer lock, but the dump as
   * a whole is a snapshot only if no writer runs between the calls: dump a quiescent filter, or use
   * {@link #writeTo} for a consistent copy of a live one. Every chunk records the dump id of the
   * filter's current state (random, drawn when that state is first dumped: another filter, even
   * with the same seed and write count, or this one after a write, has another) and the header a
   * digest of the whole body, so a {@link ChunkLoader} refuses a chunk taken after a write that
   * followed the header, or a chunk of another filter's dump, and a load that completes is always
   * one consistent snapshot; after such a refusal, dump again from cursor 0. The first dump of each
   * state (cursor 0, or {@link #writeTo}) hashes the whole body for that digest, one pass over the
   * tables under the writer lock.
   *
   * @param cursor 0 to start, else the cursor of the previous chunk
   * @throws IllegalArgumentException if {@code cursor} is negative
   * @throws IllegalStateException as {@link #writeTo}, for a lambda funnel without a stable id
   */
  public DumpChunk scanDump(long cursor) {
    if (cursor < 0) {
      throw new IllegalArgumentException("cursor (" + cursor + ") must be >= 0");
    }
    ChunkDump.ChunkBytes c = ChunkDump.chunk(core, dumpableFunnelId(), cursor);
    return c == null ? DumpChunk.END : new DumpChunk(c.cursor(), c.data());
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + info();
  }
}
