package io.github.cuckooguard.samples.db;

import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the request threads know about each id: present, absent, or changing (a write to it is in
 * flight). A thread marks an id changing before it writes it and sets the outcome after the write
 * committed, so an id that reads the same settled state before and after a find kept that state
 * throughout the find, and the find's answer can be checked against it. {@link #mismatches} checks
 * the book against the table itself. Thread-safe.
 *
 * <p>Ids {@code 1..rows} exist at start; inserts take fresh ids above them up to a capacity; a
 * deleted id is never inserted again (like an identity column); ids above the capacity never exist.
 */
final class IdBook {

  static final int ABSENT = 0;
  static final int PRESENT = 1;
  static final int CHANGING = 2;

  private static final int RECENTLY_DELETED = 4096;

  private final int capacity;
  private final AtomicIntegerArray states;
  private final AtomicLong nextFresh;
  private final AtomicLongArray recentlyDeleted = new AtomicLongArray(RECENTLY_DELETED);
  private final AtomicLong deletions = new AtomicLong();

  IdBook(int rows) {
    this.capacity = rows + Math.max(10_000, rows / 2);
    this.states = new AtomicIntegerArray(capacity + 1);
    for (int id = 1; id <= rows; id++) {
      states.set(id, PRESENT);
    }
    this.nextFresh = new AtomicLong(rows + 1L);
  }

  /** The state of {@code id}. */
  int state(long id) {
    return id >= 1 && id <= capacity ? states.get((int) id) : ABSENT;
  }

  /** An id that exists or existed: what a client that follows links asks for. */
  long knownId(SplittableRandom random) {
    return 1 + random.nextLong(nextFresh.get() - 1);
  }

  /** An id that never existed (a scraper counting upwards), or one recently deleted. */
  long missingId(SplittableRandom random) {
    long deleted = Math.min(deletions.get(), RECENTLY_DELETED);
    if (deleted > 0 && random.nextBoolean()) {
      return recentlyDeleted.get(random.nextInt((int) deleted));
    }
    return capacity + 1 + random.nextLong(capacity);
  }

  /** Marks a fresh id changing and returns it, or returns 0 if the capacity is used up. */
  long claimFresh() {
    long id = nextFresh.getAndUpdate(next -> next <= capacity ? next + 1 : next);
    if (id > capacity) {
      return 0;
    }
    states.set((int) id, CHANGING);
    return id;
  }

  /** Marks a present id changing and returns it, or returns 0 if a few tries found none. */
  long claimPresent(SplittableRandom random) {
    for (int attempt = 0; attempt < 8; attempt++) {
      long id = knownId(random);
      if (states.compareAndSet((int) id, PRESENT, CHANGING)) {
        return id;
      }
    }
    return 0;
  }

  /** Settles a claimed id after its write committed (or failed). */
  void settle(long id, boolean present) {
    states.set((int) id, present ? PRESENT : ABSENT);
    if (!present) {
      recentlyDeleted.set((int) (deletions.getAndIncrement() % RECENTLY_DELETED), id);
    }
  }

  /** Ids whose state is not what {@code table} holds; zero whenever no write is in flight. */
  long mismatches(BitSet table) {
    long mismatches = 0;
    for (int id = 1; id <= capacity; id++) {
      if ((states.get(id) == PRESENT) != table.get(id)) {
        mismatches++;
      }
    }
    return mismatches
        + table.get(capacity + 1, Math.max(capacity + 1, table.length())).cardinality();
  }
}
