package io.github.cuckooguard.internal;

import com.dynatrace.hash4j.hashing.Hasher64;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The hash-level engine behind every public filter: a chain of {@link Table}s (sub-filters, as
 * RedisBloom's EXPANSION) operating on 64-bit hashes. Keys and funnels live in the public classes;
 * this class never sees them and never allocates on {@link #contains}, {@link #add}, {@link
 * #remove} or {@link #count}.
 *
 * <p>Growth: table {@code t} has {@code expansion^t} segments of {@code n} buckets each (all tables
 * share {@code n}, see {@link Table}). An add tries an empty slot in every table, oldest first,
 * then a kick path in the newest table, then appends a table if {@code expansion > 0}. A delete
 * looks newest first (as RedisBloom's CF.DEL). A lookup reads newest first too and validates each
 * table on its own: no resident key is missed (argued for two tables by counting the copies of a
 * fingerprint in a key's locations, which cannot all leave the older table while the key stays; for
 * more tables shown only by the model-based and churn tests), but a fingerprint that an add puts
 * into a newer table already read while a remove clears it from an older one is seen in neither, so
 * for a never-added key the answer is not always linearizable (a Lincheck test shows it; see
 * CuckooFilter's class comment).
 *
 * <p>Bounded fpp under growth: table {@code t ≥ 1} stores wider fingerprints, {@link
 * Sizing#subFilterBits} = min(32, growthBits + t − 1) bits (the low bits of the hash), one bit more
 * per table, so the tables growth adds take a geometric series of the fpp budget whose sum stays
 * bounded however far the filter grows ({@link Sizing#growthBits}); the first table keeps the width
 * the target asked for. Every table computes a key's bucket pair from the first table's fingerprint
 * ({@link Table#alt}), so a key has one pair (l1, l2) in all of them.
 *
 * <p>Why a remove across tables of different widths creates no false negative. A remove of key J
 * (which was added and not removed) clears, in the newest table t holding one, a copy that matches
 * J there: its t-bit fingerprint, in J's pair, in J's segment. J's own copy lies in some table t' ≤
 * t (a table newer than t holding J's own copy would have matched first). Say the cleared copy was
 * resident key K's. K and J then agree in table t on the segment, the pair and the f_t-bit
 * fingerprint; in every older table t' they agree as well: segments nest (expansion^t' divides
 * expansion^t, {@link BucketIndex#segmentBase} picks the t'-segment from the same high bits), the
 * pair is computed from the first table's fingerprint, a function of the f_t-bit one, and f_t' ≤
 * f_t bits of equal fingerprints are equal (fingerprints are the hash's low bits, 0 mapped to 1,
 * which keeps them nested). So J's remaining copy in t' matches K too, and K stays reported
 * present; the copies that match a resident key never number fewer than its adds minus its removes.
 * The argument needs widths that never shrink from an older table to a newer one, which {@link
 * Sizing#subFilterBits} gives and a dump reader checks.
 *
 * <p>Limits that growth cannot lift. (1) At most {@code 2·b} copies of one fingerprint in one key's
 * bucket pair, counted over all sub-filters ({@link #maxCopies()}): an add beyond that returns
 * false without growing. One table's pair holds at most {@code 2·b} slots, so without the limit a
 * key added again and again (or keys that share its fingerprint and bucket pair, which no kick can
 * separate: a kick moves a copy only to the other bucket of the same pair) would append a
 * sub-filter per {@code 2·b} adds. Such a refused add still leaves the key reported present (its
 * fingerprint fills its pair), and it is reported as not stored, so the caller does not count on a
 * copy it does not have. (2) A memory bound, {@code maxBytes}: a sub-filter is appended only if the
 * fingerprint storage stays within it, so growth fails fast (the add returns false, nothing is
 * lost) instead of running the heap out; no OutOfMemoryError is ever caught.
 *
 * <p>Dump identity: under the lock, {@link #dumpIdentity()} gives the current state a random 64-bit
 * id, drawn the first time that state is dumped, and the digest of its tables. The state of one
 * instance changes only through a counted write (an add, remove or growth that succeeded), so the
 * pair (instance, write count) names one content, and the id names that pair: a dump of another
 * instance, even of the same seed and write count (two replicas loaded from one dump and written
 * once each), or of this one at another time, carries another id.
 *
 * <p>Thread safety: lookups are lock-free; writers take one lock per filter.
 */
public final class FilterCore extends FilterCorePadTail {

  /** Sub-filters at most, as RedisBloom's default {@code cf-max-expansions}. */
  public static final int MAX_SUB_FILTERS = 32;

  public static final int RESULT_ADDED = 1;
  public static final int RESULT_EXISTS = 0;
  public static final int RESULT_FULL = -1;

  private static final VarHandle ITEMS;
  private static final VarHandle DELETES;
  private static final VarHandle LOCK;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      ITEMS = lookup.findVarHandle(FilterCore.class, "items", long.class);
      DELETES = lookup.findVarHandle(FilterCore.class, "deletes", long.class);
      LOCK = lookup.findVarHandle(FilterCore.class, "lockState", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Read without the lock (volatile reads); written under the lock with release stores, which on
   * x86 cost no fence (a volatile store would add one to every add and remove).
   */
  private volatile long items;

  private volatile long deletes;

  /**
   * The writer lock: 0 free, 1 held ({@link #lock}, {@link #unlock}). Not a {@code ReentrantLock},
   * whose release is a volatile store: on x86 that is a full fence on every add and remove. Here
   * the release is a release store (no fence on x86); taking the lock is one compare-and-set, as
   * there. The compare-and-set that takes the lock reads the 0 of the previous holder's release
   * store, so everything a holder wrote happens-before whatever the next holder reads. Not
   * reentrant: no path that holds it takes it again. Waiting: {@link #lockContended}.
   */
  private volatile int lockState;

  /**
   * The thread first in line for the writer lock, which alone polls for it, or null. While one is
   * set, a thread that would take the lock joins the line instead (so a holder that takes the lock
   * again at once, as {@code addAll} does between batches, lets the waiter in first), and a holder
   * that gives the lock back unparks it.
   */
  private volatile @Nullable Thread lockWaiter;

  /** The line behind {@link #lockWaiter}: its threads are parked in this lock's own queue. */
  private final ReentrantLock lockLine = new ReentrantLock();

  /** Successful adds and removes (and growths) so far; under the lock. Dumps compare it. */
  private long writes;

  /** Bytes of fingerprint storage growth may not exceed. */
  private final long maxBytes;

  /** Fingerprint bits of the first table growth adds ({@link Sizing#growthBits}). */
  private final int growthBits;

  /** The dump identity of the state after {@link #identityWrites} writes; under the lock. */
  private long identityWrites = -1;

  private DumpIdentity identity;

  /**
   * Tables are semi-sorted where the layout applies ({@link Table#layoutFor}): 4-slot buckets of at
   * most 16-bit fingerprints take 4·(f − 1) bits ({@link SemiSortedBuckets}); wider sub-filters
   * that growth adds keep the plain layout. Fixed for the filter's life and recorded in its dumps.
   */
  private final boolean semiSorted;

  /**
   * A filter bounded by {@link Sizing#defaultMaxBytes()}, growing with the widths {@link
   * Sizing#growthBits} gives for the fpp its fingerprints reach at the design load.
   */
  public FilterCore(
      int fingerprintBits,
      int bucketSize,
      int localBuckets,
      int maxKicks,
      int expansion,
      long seed) {
    this(
        fingerprintBits,
        bucketSize,
        localBuckets,
        maxKicks,
        expansion,
        Sizing.growthBits(
            Sizing.fppAtDesignLoad(fingerprintBits, bucketSize), fingerprintBits, bucketSize),
        seed,
        Sizing.defaultMaxBytes());
  }

  /**
   * An empty filter whose fingerprint storage may grow up to {@code maxBytes}; the caller has
   * checked that the first table fits it ({@link Sizing#tableBytes}).
   *
   * @param growthBits fingerprint bits of the first table growth adds, in (fingerprintBits, 32]
   */
  public FilterCore(
      int fingerprintBits,
      int bucketSize,
      int localBuckets,
      int maxKicks,
      int expansion,
      int growthBits,
      long seed,
      long maxBytes) {
    this(
        fingerprintBits,
        bucketSize,
        localBuckets,
        maxKicks,
        expansion,
        growthBits,
        seed,
        maxBytes,
        false);
  }

  /**
   * An empty filter as {@link #FilterCore(int, int, int, int, int, int, long, long)}, its tables
   * semi-sorted if {@code semiSorted} (see {@link #semiSorted()}).
   */
  public FilterCore(
      int fingerprintBits,
      int bucketSize,
      int localBuckets,
      int maxKicks,
      int expansion,
      int growthBits,
      long seed,
      long maxBytes,
      boolean semiSorted) {
    this(
        fingerprintBits,
        bucketSize,
        localBuckets,
        maxKicks,
        expansion,
        growthBits,
        seed,
        new Table[] {
          new Table(
              fingerprintBits,
              bucketSize,
              localBuckets,
              1,
              maxKicks,
              null,
              fingerprintBits,
              semiSorted)
        },
        0,
        0,
        0,
        maxBytes,
        semiSorted);
  }

  FilterCore(
      int f,
      int b,
      int n,
      int maxKicks,
      int expansion,
      int growthBits,
      long seed,
      Table[] tables,
      long items,
      long deletes,
      long writes,
      long maxBytes) {
    this(
        f,
        b,
        n,
        maxKicks,
        expansion,
        growthBits,
        seed,
        tables,
        items,
        deletes,
        writes,
        maxBytes,
        false);
  }

  FilterCore(
      int f,
      int b,
      int n,
      int maxKicks,
      int expansion,
      int growthBits,
      long seed,
      Table[] tables,
      long items,
      long deletes,
      long writes,
      long maxBytes,
      boolean semiSorted) {
    super(f, b, n, maxKicks, expansion, seed, tables);
    this.semiSorted = semiSorted;
    this.growthBits = growthBits;
    this.items = items;
    this.deletes = deletes;
    this.writes = writes;
    this.maxBytes = maxBytes;
  }

  // ---- lookups (lock-free) ----

  /**
   * Lock-free lookup. A filter that has not grown answers from its one table, read through one
   * volatile field ({@code single}): that table's final fields are everything the lookup needs, so
   * after that one acquire no other field of this class is read (see {@link Table#containsHash}). A
   * grown filter reads {@code tables}.
   */
  public boolean contains(long hash) {
    Table t = single;
    if (t != null) {
      return t.containsHash(hash);
    }
    return containsGrown(tables, hash);
  }

  /**
   * Four lookups validated together (bit {@code k} of the result answers hash {@code hk}): same
   * answers as four {@link #contains} calls, cheaper, see {@link Table#contains4}. A grown filter
   * answers them one by one.
   */
  public int contains4(long h0, long h1, long h2, long h3) {
    Table t = single;
    if (t != null) {
      return t.contains4(h0, h1, h2, h3);
    }
    return (contains(h0) ? 1 : 0)
        | (contains(h1) ? 2 : 0)
        | (contains(h2) ? 4 : 0)
        | (contains(h3) ? 8 : 0);
  }

  /**
   * A lookup over every sub-filter, newest first (see the class comment), each with its own
   * fingerprint width; {@code fp} is the first table's.
   */
  private boolean containsGrown(Table[] ts, long hash) {
    long fp = BucketIndex.fingerprint(hash, slotMask);
    int l1 = BucketIndex.primaryIndex(hash, localBuckets);
    int l2 = BucketIndex.altIndex(l1, fp, localBuckets, half);
    for (int i = ts.length - 1; i >= 0; i--) {
      if (ts[i].containsIn(hash, l1, l2)) {
        return true;
      }
    }
    return false;
  }

  public int count(long hash) {
    long fp = BucketIndex.fingerprint(hash, slotMask);
    int l1 = BucketIndex.primaryIndex(hash, localBuckets);
    int l2 = BucketIndex.altIndex(l1, fp, localBuckets, half);
    lock(); // exact: see Table.count
    try {
      return copies(tables, hash, l1, l2);
    } finally {
      unlock();
    }
  }

  // ---- the writer lock ----

  private void lock() {
    if (lockWaiter != null || !LOCK.compareAndSet(this, 0, 1)) {
      lockContended();
    }
  }

  /**
   * Waits for the writer lock. First spins {@value #SPINS} times (holds are mostly one add or
   * remove, tens of nanoseconds) while no thread is in line. Then joins the line ({@link
   * #lockLine}, whose waiters are parked in its queue, using no CPU); the thread at its head
   * becomes {@link #lockWaiter} and takes the lock as soon as it is free: the holder's release
   * unparks it, and it also polls, after {@value #PARK_NANOS} ns and then at twice the interval
   * each time up to {@value #MAX_PARK_NANOS} ns. Only a release at the moment the waiter arrives
   * can miss it (the release store is not a fence, so the release may read no waiter yet while the
   * waiter still reads the lock held); the first poll bounds that wait. Any later release sees the
   * waiter and unparks it, and an unpark that comes before the park is kept by it. So a long hold
   * costs the waiter six wakeups in its first 1.3 ms and one a millisecond after. Threads arriving
   * meanwhile queue behind it rather than barge, so a holder that takes the lock again at once
   * cannot keep a waiter out. An interrupt does not end the wait: it is cleared while parking and
   * set again once the lock is held, as {@code ReentrantLock.lock} does.
   */
  private void lockContended() {
    for (int i = 0; i < SPINS; i++) {
      if (lockWaiter == null && lockState == 0 && LOCK.compareAndSet(this, 0, 1)) {
        return;
      }
      Thread.onSpinWait();
    }
    boolean interrupted = false;
    lockLine.lock();
    try {
      lockWaiter = Thread.currentThread();
      long park = PARK_NANOS;
      while (!(lockState == 0 && LOCK.compareAndSet(this, 0, 1))) {
        LockSupport.parkNanos(this, park);
        park = Math.min(2 * park, MAX_PARK_NANOS);
        if (Thread.interrupted()) {
          interrupted = true;
        }
      }
    } finally {
      lockWaiter = null;
      lockLine.unlock();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void unlock() {
    LOCK.setRelease(this, 0);
    Thread waiting = lockWaiter;
    if (waiting != null) {
      LockSupport.unpark(waiting);
    }
  }

  private static final int SPINS = 16;
  private static final long PARK_NANOS = 20_000;
  private static final long MAX_PARK_NANOS = 1_000_000;

  // ---- writes ----

  /** CF.ADD: stores one more copy. False only if it could not be stored; nothing is lost then. */
  public boolean add(long hash) {
    lock();
    try {
      return addLocked(hash);
    } finally {
      unlock();
    }
  }

  /** Adds of a batch made under one acquisition of the writer lock, at most this many. */
  static final int ADD_BATCH = 1024;

  /**
   * {@link #add} of every hash of {@code hashes}, result {@code i} into {@code out[i]}, taking the
   * writer lock once per {@value #ADD_BATCH} adds (other writers wait at most that long; readers
   * never wait). Each add is the one add path, so the no-false-negative argument of {@link
   * #addLocked} holds for every element.
   */
  public void addAll(long[] hashes, boolean[] out) {
    for (int from = 0; from < hashes.length; from += ADD_BATCH) {
      int to = Math.min(hashes.length, from + ADD_BATCH);
      lock();
      try {
        for (int i = from; i < to; i++) {
          out[i] = addLocked(hashes[i]);
        }
      } finally {
        unlock();
      }
    }
  }

  /**
   * {@link #add} of the hashes of {@code keys[from .. from + length)} into {@code out[0 ..
   * length)}, as {@link #addAll(long[], boolean[])}; hashing, which is pure arithmetic, runs under
   * the lock so that nothing is allocated.
   */
  public void addAll(long[] keys, int from, int length, boolean[] out, Hasher64 hasher) {
    for (int done = 0; done < length; done += ADD_BATCH) {
      int to = Math.min(length, done + ADD_BATCH);
      lock();
      try {
        for (int i = done; i < to; i++) {
          out[i] = addLocked(hasher.hashLongToLong(keys[from + i]));
        }
      } finally {
        unlock();
      }
    }
  }

  /**
   * {@link #add} of the hashes of {@code keys[from .. from + length)} in order, stopping at the
   * first one that could not be stored; returns how many were stored (so {@code length} if all
   * were). The writer lock is taken once per {@value #ADD_BATCH} adds. Each add is the one add path
   * ({@link #addLocked}), so nothing stored before is lost, and a refused add changed nothing: the
   * keys before the refused one are stored, it and the ones after it are not.
   */
  public int addAllUntilRefused(long[] keys, int from, int length, Hasher64 hasher) {
    int done = 0;
    while (done < length) {
      int to = Math.min(length, done + ADD_BATCH);
      lock();
      try {
        for (; done < to; done++) {
          if (!addLocked(hasher.hashLongToLong(keys[from + done]))) {
            return done;
          }
        }
      } finally {
        unlock();
      }
    }
    return length;
  }

  /** CF.ADDNX: one of {@link #RESULT_ADDED}, {@link #RESULT_EXISTS}, {@link #RESULT_FULL}. */
  public int addIfAbsent(long hash) {
    lock();
    try {
      if (contains(hash)) {
        return RESULT_EXISTS;
      }
      return addLocked(hash) ? RESULT_ADDED : RESULT_FULL;
    } finally {
      unlock();
    }
  }

  /**
   * The one add path. No false negative: it only ever puts a fingerprint into a free slot, or moves
   * fingerprints along a kick path inside their own pairs (Table), or refuses with nothing changed;
   * no stored copy is removed or left outside its pair.
   */
  private boolean addLocked(long hash) {
    // An ungrown 16- or 8-bit plain table: the same first step (an empty slot of the first bucket,
    // else of the second) with the layout's constants; anything else takes the general path, which
    // repeats that step and goes on to kicks and growth.
    Table s = single;
    boolean bothFull = false;
    if (s != null && s.kind != Table.GENERAL) {
      if (s.tryPlaceFirst(hash)) {
        return stored();
      }
      bothFull = true; // tryPlaceFirst found no empty slot in either bucket: straight to the kicks
    }
    long fp = BucketIndex.fingerprint(hash, slotMask);
    int l1 = BucketIndex.primaryIndex(hash, localBuckets);
    int l2 = BucketIndex.altIndex(l1, fp, localBuckets, half);
    Table[] ts = tables;
    // One table's pair holds at most 2·b copies, so the limit needs counting only once grown.
    if (ts.length > 1 && copies(ts, hash, l1, l2) >= maxCopies()) {
      return false;
    }
    if (!bothFull) {
      for (Table t : ts) {
        long base = t.segmentBase(hash);
        if (t.tryPlace(t.fingerprintOf(hash), base + l1, base + l2)) {
          return stored();
        }
      }
    }
    Table last = ts[ts.length - 1];
    long base = last.segmentBase(hash);
    if (last.kickInsert(last.fingerprintOf(hash), base + l1, base + l2, base)) {
      return stored();
    }
    // Growth cannot help a key whose pair is full of its own fingerprint: the new table would
    // take 2·b more copies and then be needed again. Refuse, nothing changed.
    if (ts.length == 1 && ts[0].count(fp, l1, l2) >= maxCopies()) {
      return false;
    }
    Table grown = grow(ts);
    if (grown == null) {
      return false;
    }
    base = grown.segmentBase(hash);
    if (grown.tryPlace(grown.fingerprintOf(hash), base + l1, base + l2)) {
      return stored();
    }
    return false;
  }

  /**
   * Copies matching the key in its pairs over all tables, each at its own width; under the lock.
   */
  private static int copies(Table[] ts, long hash, int l1, int l2) {
    int c = 0;
    for (Table t : ts) {
      long base = t.segmentBase(hash);
      c += t.count(t.fingerprintOf(hash), base + l1, base + l2);
    }
    return c;
  }

  /**
   * Copies of one fingerprint one key's bucket pair may hold over all sub-filters: {@code 2·b},
   * what a single table's pair holds (see the class comment).
   */
  public int maxCopies() {
    return 2 * bucketSize;
  }

  /** The bound on fingerprint storage that growth respects. */
  public long maxBytes() {
    return maxBytes;
  }

  /** Counts a fingerprint just stored; returns true for addLocked. */
  private boolean stored() {
    ITEMS.setRelease(this, items + 1);
    writes++;
    return true;
  }

  /**
   * Appends a sub-filter if expansion, the sub-filter limit, the array limit and {@code maxBytes}
   * allow; null if the filter cannot grow. The bound is checked before allocating, so growth never
   * runs into an OutOfMemoryError of its own making.
   */
  private Table grow(Table[] ts) {
    if (expansion == 0 || ts.length >= MAX_SUB_FILTERS) {
      return null;
    }
    long segments = (long) ts[ts.length - 1].segments * expansion;
    if (segments > Integer.MAX_VALUE) {
      return null;
    }
    int f = Sizing.subFilterBits(fingerprintBits, growthBits, ts.length);
    long bytes = Sizing.tableBytes(f, bucketSize, localBuckets, segments, semiSorted);
    if (bytes < 0 || bytes > maxBytes - bytes()) {
      return null;
    }
    Table t =
        new Table(
            f,
            bucketSize,
            localBuckets,
            (int) segments,
            maxKicks,
            null,
            fingerprintBits,
            semiSorted);
    Table[] next = Arrays.copyOf(ts, ts.length + 1);
    next[ts.length] = t;
    // tables first, then single: a reader that finds single null reads the grown tables. One that
    // still finds the first table there answers from it alone, as a lookup made just before the
    // growth would (only adds made after the growth reach the new table).
    tables = next;
    single = null;
    writes++;
    return t;
  }

  /** CF.DEL: removes one copy, newest sub-filter first. */
  public boolean remove(long hash) {
    long fp = BucketIndex.fingerprint(hash, slotMask);
    int l1 = BucketIndex.primaryIndex(hash, localBuckets);
    int l2 = BucketIndex.altIndex(l1, fp, localBuckets, half);
    lock();
    try {
      Table[] ts = tables;
      // Newest first: the class comment's argument for tables of different widths needs it.
      for (int i = ts.length - 1; i >= 0; i--) {
        Table t = ts[i];
        long base = t.segmentBase(hash);
        if (t.delete(t.fingerprintOf(hash), base + l1, base + l2)) {
          ITEMS.setRelease(this, items - 1);
          DELETES.setRelease(this, deletes + 1);
          writes++;
          return true;
        }
      }
      return false;
    } finally {
      unlock();
    }
  }

  // ---- facts ----

  public long size() {
    return items;
  }

  public long deletes() {
    return deletes;
  }

  public int fingerprintBits() {
    return fingerprintBits;
  }

  public int bucketSize() {
    return bucketSize;
  }

  public int localBuckets() {
    return localBuckets;
  }

  public int maxKicks() {
    return maxKicks;
  }

  public int expansion() {
    return expansion;
  }

  /** Fingerprint bits of the first table growth adds; table t ≥ 1 has {@link #tableBits}(t). */
  public int growthBits() {
    return growthBits;
  }

  /** Fingerprint bits of each table, oldest first. */
  public int[] tableBits() {
    Table[] ts = tables;
    int[] bits = new int[ts.length];
    for (int i = 0; i < ts.length; i++) {
      bits[i] = ts[i].fingerprintBits;
    }
    return bits;
  }

  public long seed() {
    return seed;
  }

  /** True if the tables are semi-sorted where the layout applies (see the field). */
  public boolean semiSorted() {
    return semiSorted;
  }

  public int subFilters() {
    return tables.length;
  }

  public long totalBuckets() {
    long n = 0;
    for (Table t : tables) {
      n += t.totalBuckets;
    }
    return n;
  }

  public long slots() {
    return totalBuckets() * bucketSize;
  }

  public long bytes() {
    long n = 0;
    for (Table t : tables) {
      n += t.bytes();
    }
    return n;
  }

  public double loadFactor() {
    return (double) items / slots();
  }

  /**
   * Probability that a key never added answers true, from the current fill: for each sub-filter, 1
   * − (1 − 1/(2^f − 1))^(2·b·load) at its own width f, combined over sub-filters.
   */
  public double expectedFpp() {
    double pMiss = 1.0;
    for (Table t : tables) {
      double perSlot = 1.0 / ((1L << t.fingerprintBits) - 1);
      double load = (double) t.items / t.slots();
      pMiss *= Math.pow(1 - perSlot, 2.0 * bucketSize * load);
    }
    return 1 - pMiss;
  }

  /**
   * An independent copy of this filter's current state, taken under the writer lock: the same
   * tables (in the same layout, plain or semi-sorted: the words are copied as they are), counts and
   * write count; a dump identity of its own (drawn when the copy is first dumped), so chunks of the
   * copy's dump and of this filter's never load together.
   */
  public FilterCore copy() {
    return locked(
        () -> {
          Table[] ts = tables;
          Table[] copies = new Table[ts.length];
          for (int i = 0; i < ts.length; i++) {
            Table t = ts[i];
            Table c =
                new Table(
                    t.fingerprintBits,
                    t.bucketSize,
                    t.localBuckets,
                    t.segments,
                    maxKicks,
                    t.data.clone(),
                    Long.bitCount(t.altMask),
                    semiSorted);
            c.items = t.items;
            copies[i] = c;
          }
          return new FilterCore(
              fingerprintBits,
              bucketSize,
              localBuckets,
              maxKicks,
              expansion,
              growthBits,
              seed,
              copies,
              items,
              deletes,
              writes,
              maxBytes,
              semiSorted);
        });
  }

  /** Runs {@code action} holding the writer lock (for consistent snapshots). */
  public <R> R locked(java.util.function.Supplier<R> action) {
    lock();
    try {
      return action.get();
    } finally {
      unlock();
    }
  }

  Table[] tables() {
    return tables;
  }

  long itemsRaw() {
    return items;
  }

  /** Writes so far; call under the lock ({@link #locked}). */
  long writesRaw() {
    return writes;
  }

  /**
   * The dump identity of the current state (see the class comment); call under the lock. The digest
   * is computed once per state, at its first dump.
   */
  DumpIdentity dumpIdentity() {
    if (identityWrites != writes) {
      identity = new DumpIdentity(DumpIdentity.randomId(), DumpFormat.digest(tables));
      identityWrites = writes;
    }
    return identity;
  }
}

/*
 * Field layout of FilterCore, against false sharing (as Table's): lookups read FilterCoreFields;
 * the writer writes items, deletes and the lock's state. Superclass fields are laid out first.
 */

/** Padding before the fields lookups read. */
@SuppressWarnings("unused")
abstract class FilterCorePadHead {
  int p00;
  long p01, p02, p03, p04, p05, p06, p07, p08;
}

/** What lookups read; {@code tables} changes only when the filter grows. */
abstract class FilterCoreFields extends FilterCorePadHead {
  final int fingerprintBits;
  final int bucketSize;
  final int localBuckets;
  final int maxKicks;
  final int expansion;
  final long seed;
  final long slotMask;
  final int half;
  volatile Table[] tables;

  /** {@code tables[0]} while it is the only table, null once the filter has grown. */
  volatile @Nullable Table single;

  FilterCoreFields(int f, int b, int n, int maxKicks, int expansion, long seed, Table[] tables) {
    this.fingerprintBits = f;
    this.bucketSize = b;
    this.localBuckets = n;
    this.maxKicks = maxKicks;
    this.expansion = expansion;
    this.seed = seed;
    this.slotMask = (1L << f) - 1;
    this.half = n >>> 1;
    this.tables = tables;
    this.single = tables.length == 1 ? tables[0] : null;
  }
}

/** Padding between the fields lookups read and the fields writers write. */
@SuppressWarnings("unused")
abstract class FilterCorePadTail extends FilterCoreFields {
  long q01, q02, q03, q04, q05, q06, q07, q08;

  FilterCorePadTail(int f, int b, int n, int maxKicks, int expansion, long seed, Table[] tables) {
    super(f, b, n, maxKicks, expansion, seed, tables);
  }
}
