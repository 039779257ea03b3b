package io.github.cuckooguard;

import io.github.cuckooguard.internal.DumpFormat;
import io.github.cuckooguard.internal.FilterCore;
import io.github.cuckooguard.internal.hash.FunnelIds;
import io.github.cuckooguard.internal.hash.KeyHasher;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A cuckoo filter: a compact set membership test with one-sided error that, unlike a Bloom filter,
 * can delete. {@link #mightContain} never answers false for a key that was added and not removed;
 * it answers true for a key never added with a small probability ({@link #expectedFpp()}).
 *
 * <p>Operations mirror RedisBloom's CF.* commands one to one (named in each method's doc). Keys are
 * turned into bytes by a {@link Funnel} and hashed with XXH3 (hash4j), seeded per filter. Storage
 * is about {@code f / 0.95} bits per key at the sized capacity ({@code f} the fingerprint width),
 * for any capacity, with no object per key.
 *
 * <p>Thread safety: every method may be called from any number of threads. Lookups ({@code
 * mightContain}) take no lock and never miss a fingerprint that a concurrent insert is moving;
 * writers, and {@code count}, are serialised by one lock per filter. While the filter has one
 * sub-filter, all operations are linearizable against a multiset of fingerprints. Once it has
 * grown, each sub-filter is read as its own snapshot: a key that was added and not removed is still
 * never reported absent, but the answer for a key that was never added (a possible false positive)
 * can be false at an instant when a concurrent add and remove move a shared fingerprint between
 * sub-filters, although no sequential order of those calls gives false.
 *
 * <pre>{@code
 * CuckooFilter<String> filter = CuckooFilter.newBuilder(Funnels.stringFunnel())
 *     .expectedInsertions(1_000_000).fpp(0.001).build();
 * filter.add("alice");
 * filter.mightContain("alice");   // true
 * filter.remove("alice");
 * }</pre>
 *
 * @param <T> the key type
 */
public final class CuckooFilter<T> extends AbstractCuckooFilter {

  private final Funnel<? super T> funnel;
  private final KeyHasher<T> keyHasher;

  private CuckooFilter(FilterCore core, Funnel<? super T> funnel) {
    super(core);
    this.funnel = FunnelIds.checked(funnel);
    this.keyHasher = new KeyHasher<>(funnel, core.seed());
  }

  /**
   * A builder for filters of keys funnelled by {@code funnel}. Its {@link Builder#build()} can
   * build a filter of any subtype of {@code T}, so that {@code CuckooFilter<String> f =
   * CuckooFilter.newBuilder(Funnels.stringFunnel())...build()} compiles although the funnel takes
   * any {@code CharSequence}.
   *
   * @throws IllegalArgumentException if the funnel's {@link Funnel#id() id} is longer than {@value
   *     Funnel#MAX_ID_BYTES} UTF-8 bytes (a dump could not hold it)
   */
  public static <T> Builder<T> newBuilder(Funnel<? super T> funnel) {
    return new Builder<>(FunnelIds.checked(Objects.requireNonNull(funnel, "funnel")));
  }

  /**
   * An independent copy of this filter, taken under its writer lock (consistent, as {@link
   * #writeTo}); for a guard's snapshot.
   */
  CuckooFilter<T> copy() {
    return new CuckooFilter<>(core.copy(), funnel);
  }

  /** The key's hash; allocates nothing for the ready funnels, nor for custom ones up to 4 KiB. */
  long hash(T key) {
    return keyHasher.hash(Objects.requireNonNull(key, "key"));
  }

  @Override
  String funnelId() {
    return funnel.id();
  }

  @Override
  String dumpableFunnelId() {
    return FunnelIds.forDump(funnel);
  }

  /**
   * Stores one more fingerprint of {@code key} (CF.ADD). Adding a key twice stores two copies; each
   * {@link #remove} takes one away. To track a set of keys that may later be removed, add each key
   * once when it enters the set (see {@link CuckooGuard}).
   *
   * <p>At most {@code 2 × bucketSize} copies of one fingerprint fit the key's two buckets (8 at the
   * default bucket size), over all sub-filters: an add beyond that returns false without growing
   * the filter, so one hot key (or keys colliding with it) cannot make it grow. The key still
   * answers {@code mightContain} true then, but that copy was not stored.
   *
   * @return true if stored; false if the filter is full and cannot grow ({@code expansion} 0, its
   *     sub-filter limit or its {@code maxBytes} reached), or the key's buckets already hold the
   *     most copies of its fingerprint; nothing that was stored is lost
   * @throws NullPointerException if {@code key} is null
   */
  public boolean add(T key) {
    return core.add(hash(key));
  }

  /**
   * Stores a fingerprint only if {@link #mightContain} is false for {@code key}, atomically
   * (CF.ADDNX).
   *
   * <p><b>Do not use this to de-duplicate keys that may later be removed.</b> Two different keys
   * can share a fingerprint and a bucket pair; the second is then not stored, and removing the
   * first makes the second a false negative. Track key-level presence outside the filter instead
   * (that is what {@link CuckooGuard} and the adapters do).
   *
   * @throws NullPointerException if {@code key} is null
   */
  public AddResult addIfAbsent(T key) {
    return result(core.addIfAbsent(hash(key)));
  }

  static AddResult result(int code) {
    return code == FilterCore.RESULT_ADDED
        ? AddResult.ADDED
        : code == FilterCore.RESULT_EXISTS ? AddResult.ALREADY_PRESENT : AddResult.FULL;
  }

  /**
   * False if {@code key} is definitely not in the filter; true if it was added and not removed, or,
   * with probability about {@link #expectedFpp()}, if it never was (CF.EXISTS).
   *
   * @throws NullPointerException if {@code key} is null
   */
  public boolean mightContain(T key) {
    return core.contains(hash(key));
  }

  /**
   * {@link #mightContain} for each key, in iteration order (CF.MEXISTS). The collection is iterated
   * once and the answer has one entry per key that iteration gave, whatever {@code size()} said (a
   * concurrently modified collection cannot add or drop entries).
   *
   * @throws NullPointerException if {@code keys} or any key is null (checked before any lookup)
   */
  public boolean[] mightContainAll(Collection<? extends T> keys) {
    long[] hashes = hashes(keys);
    boolean[] out = new boolean[hashes.length];
    int i = 0;
    for (; i + 4 <= hashes.length; i += 4) {
      int found = core.contains4(hashes[i], hashes[i + 1], hashes[i + 2], hashes[i + 3]);
      unpack(found, out, i);
    }
    for (; i < hashes.length; i++) {
      out[i] = core.contains(hashes[i]);
    }
    return out;
  }

  /**
   * {@link #mightContain} of every element of {@code keys}, written to {@code out[i]}; for the
   * ready funnels it allocates nothing. Keys are looked up in groups of four validated together
   * (same answers as single lookups, one consistency check per group).
   *
   * @throws NullPointerException if {@code keys} or any key is null
   * @throws IndexOutOfBoundsException if {@code out} is shorter than {@code keys}
   */
  public void mightContainAll(List<? extends T> keys, boolean[] out) {
    int length = keys.size();
    Objects.checkFromIndexSize(0, length, out.length);
    lookUp(keys, 0, length, out);
  }

  /** {@link #mightContain} of {@code keys[from .. to)} into {@code out[from .. to)}; unchecked. */
  void lookUp(List<? extends T> keys, int from, int to, boolean[] out) {
    int i = from;
    for (; i + 4 <= to; i += 4) {
      int found =
          core.contains4(
              hash(keys.get(i)),
              hash(keys.get(i + 1)),
              hash(keys.get(i + 2)),
              hash(keys.get(i + 3)));
      unpack(found, out, i);
    }
    for (; i < to; i++) {
      out[i] = core.contains(hash(keys.get(i)));
    }
  }

  /**
   * {@link #mightContain} of every element of {@code keys}, written to {@code out[i]}; as {@link
   * #mightContainAll(List, boolean[])}.
   *
   * @throws NullPointerException if {@code keys} or any key is null
   * @throws IndexOutOfBoundsException if {@code out} is shorter than {@code keys}
   */
  public void mightContainAll(T[] keys, boolean[] out) {
    int length = keys.length;
    Objects.checkFromIndexSize(0, length, out.length);
    lookUp(keys, 0, length, out);
  }

  /** {@link #mightContain} of {@code keys[from .. to)} into {@code out[from .. to)}; unchecked. */
  void lookUp(T[] keys, int from, int to, boolean[] out) {
    int length = to;
    int i = from;
    for (; i + 4 <= length; i += 4) {
      int found =
          core.contains4(hash(keys[i]), hash(keys[i + 1]), hash(keys[i + 2]), hash(keys[i + 3]));
      unpack(found, out, i);
    }
    for (; i < length; i++) {
      out[i] = core.contains(hash(keys[i]));
    }
  }

  private static void unpack(int found, boolean[] out, int i) {
    out[i] = (found & 1) != 0;
    out[i + 1] = (found & 2) != 0;
    out[i + 2] = (found & 4) != 0;
    out[i + 3] = (found & 8) != 0;
  }

  /**
   * {@link #add} for each key, in iteration order, continuing after a failure (CF.INSERT). The
   * collection is iterated once, before any add, and exactly the keys that iteration gave are
   * added, one result each: a collection that shrinks or grows concurrently cannot add phantom
   * fingerprints or fail with an index error.
   *
   * @return per key, true if stored
   * @throws NullPointerException if {@code keys} or any key is null (checked before any add)
   */
  public boolean[] addAll(Collection<? extends T> keys) {
    long[] hashes = hashes(keys);
    boolean[] out = new boolean[hashes.length];
    core.addAll(hashes, out); // the writer lock once per 1,024 keys
    return out;
  }

  /**
   * {@link #addIfAbsent} for each key, in iteration order, continuing after a failure
   * (CF.INSERTNX); iterated once as {@link #addAll}. The warning on {@link #addIfAbsent} applies.
   *
   * @throws NullPointerException if {@code keys} or any key is null (checked before any add)
   */
  public AddResult[] addAllIfAbsent(Collection<? extends T> keys) {
    long[] hashes = hashes(keys);
    AddResult[] out = new AddResult[hashes.length];
    for (int i = 0; i < hashes.length; i++) {
      out[i] = result(core.addIfAbsent(hashes[i]));
    }
    return out;
  }

  /**
   * The hashes of the keys one iteration gives, exactly as many as it gave: {@code size()} is only
   * a first guess for the array, never trusted (a concurrently modified collection's size and
   * iteration disagree).
   */
  private long[] hashes(Collection<? extends T> keys) {
    Objects.requireNonNull(keys, "keys");
    long[] hashes = new long[Math.max(0, Math.min(keys.size(), 1 << 16))];
    int i = 0;
    for (T key : keys) {
      if (key == null) {
        throw new NullPointerException("keys[" + i + "] is null");
      }
      if (i == hashes.length) {
        hashes = Arrays.copyOf(hashes, Math.max(16, hashes.length * 2));
      }
      hashes[i++] = hash(key);
    }
    return i == hashes.length ? hashes : Arrays.copyOf(hashes, i);
  }

  /**
   * Copies of {@code key}'s fingerprint in its buckets over all sub-filters (CF.COUNT): at least
   * the number of times the key was added and not removed, more if other keys collide.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public int count(T key) {
    return core.count(hash(key));
  }

  /**
   * Removes one copy of {@code key}'s fingerprint (CF.DEL).
   *
   * <p><b>Remove only keys that were added.</b> Removing a key that was never added can remove
   * another key's copy when the two share a fingerprint and bucket, and that other key then becomes
   * a false negative.
   *
   * @return true if a copy was removed
   * @throws NullPointerException if {@code key} is null
   */
  public boolean remove(T key) {
    return core.remove(hash(key));
  }

  /**
   * Reads a filter written by {@link #writeTo}. Every header field is range-checked, the checksums
   * verified, and the body's digest compared with the one in the header, so damaged input, and a
   * header of one dump followed by the body of another, fail with a {@link CorruptDumpException}.
   * Memory is allocated as the body arrives (at most 64 MiB per sub-filter ahead of it), so a
   * header that declares huge tables fails as truncated instead of exhausting the heap (the same
   * holds for {@link #loader}).
   *
   * <p>Exactly one dump is read: the stream is left just after the dump's last byte, and what
   * follows (another dump, or the stale tail of a longer file overwritten in place) is neither read
   * nor refused; the dump itself is verified whole, so such a tail cannot change the filter read.
   * Check the length of a file whose tail matters. The filter read may grow within {@value
   * io.github.cuckooguard.internal.Sizing#DEFAULT_MAX_BYTES_FRACTION} of this JVM's {@link
   * Runtime#maxMemory()} (or its own size, if larger); {@code maxBytes} is not stored in a dump.
   *
   * @param funnel the funnel it was written with (checked by {@link Funnel#id()})
   * @throws CorruptDumpException if the data is truncated, corrupt (checksums, digest), made of
   *     parts of different dumps, of an unsupported format version (1 and 2 are refused by name) or
   *     hash scheme
   * @throws IOException if the stream fails
   * @throws IllegalArgumentException if the dump was written with another funnel, or the funnel's
   *     id is longer than 255 UTF-8 bytes
   */
  public static <T> CuckooFilter<T> readFrom(InputStream in, Funnel<? super T> funnel)
      throws IOException {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(funnel, "funnel");
    return new CuckooFilter<>(DumpFormat.read(in, FunnelIds.checked(funnel).id()), funnel);
  }

  /**
   * A loader for the chunks of {@link #scanDump} written with {@code funnel} (CF.LOADCHUNK).
   *
   * @throws IllegalArgumentException if the funnel's id is longer than 255 UTF-8 bytes
   */
  public static <T> ChunkLoader<CuckooFilter<T>> loader(Funnel<? super T> funnel) {
    Objects.requireNonNull(funnel, "funnel");
    return new ChunkLoader<>(
        FunnelIds.checked(funnel).id(), core -> new CuckooFilter<>(core, funnel));
  }

  /**
   * Builds {@link CuckooFilter}s. See {@link AbstractFilterBuilder} for the settings.
   *
   * @param <T> the key type
   */
  public static final class Builder<T> extends AbstractFilterBuilder<Builder<T>> {
    private final Funnel<? super T> funnel;

    private Builder(Funnel<? super T> funnel) {
      this.funnel = funnel;
    }

    /**
     * A new, empty filter, of keys of type {@code T} or of any subtype of it: the funnel takes
     * every {@code T}, so {@code CuckooFilter<String> f = CuckooFilter.newBuilder(
     * Funnels.stringFunnel())...build()} compiles (the type argument is taken from the target).
     *
     * @param <K> the key type of the filter, {@code T} unless the assignment asks for a subtype
     * @throws IllegalArgumentException if the table for {@code expectedInsertions} cannot be
     *     allocated: more than a Java array holds, or more than {@code maxBytes}; the message names
     *     the value passed and the accepted range. Also if the fpp cannot be reached with 16-bit
     *     fingerprints.
     */
    public <K extends T> CuckooFilter<K> build() {
      return new CuckooFilter<>(buildCore(), funnel);
    }
  }
}
