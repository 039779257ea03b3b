package io.github.cuckooguard.hibernate;

import static io.github.cuckooguard.hibernate.Db.awaitWarmUp;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.model.Ticket;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * Many threads insert, delete, delete-and-reinsert and find random ids of a small range, committing
 * or rolling back at random, while another thread forces rebuilds; a shadow truth of committed rows
 * says what each find must return. The promise checked: no false negative, ever (a find of a
 * committed row never returns null), during the churn and after it.
 *
 * <p>Each writer holds the id's lock for its whole transaction, so the truth of an id is exact
 * while the lock is held. Readers also read without the lock: such a find must see the row if the
 * id was committed, and no writer touched it, from before the find until after it (a version
 * counter, odd while a writer is busy). Fixed seeds; the check cannot flake, only the interleavings
 * vary.
 */
class ConcurrentChurnTest {

  private static final int IDS = 48;
  private static final int THREADS = 4;
  private static final int OPS_PER_THREAD = 250;
  private static final long BASE = 5_000_000L;

  private final ReentrantLock[] locks = new ReentrantLock[IDS];

  /** Per id: version (odd while a writer is in its transaction) and, in bit 0 of present[]. */
  private final AtomicLong[] versions = new AtomicLong[IDS];

  private final boolean[] present = new boolean[IDS];
  private final AtomicInteger falseNegatives = new AtomicInteger();
  private final AtomicInteger checkedFinds = new AtomicInteger();

  @Test
  void noFalseNegativeUnderConcurrentCommitsRollbacksAndRebuilds() throws Exception {
    SessionFactory sf = Db.shared();
    awaitWarmUp(sf);
    for (int i = 0; i < IDS; i++) {
      locks[i] = new ReentrantLock();
      versions[i] = new AtomicLong();
    }
    ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
    AtomicBoolean done = new AtomicBoolean();
    List<Future<?>> writers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      long seed = 42 + t;
      writers.add(pool.submit(() -> churn(sf, new SplittableRandom(seed))));
    }
    Future<?> rebuilder =
        pool.submit(
            () -> {
              HibernateCuckooGuards guards = HibernateCuckooGuards.of(sf);
              int rebuilds = 0;
              while (!done.get()) {
                guards.rebuild(Ticket.class).join();
                rebuilds++;
              }
              return rebuilds;
            });
    for (Future<?> writer : writers) {
      writer.get(120, TimeUnit.SECONDS);
    }
    done.set(true);
    int rebuilds = (Integer) rebuilder.get(60, TimeUnit.SECONDS);
    pool.shutdown();

    awaitWarmUp(sf);
    List<String> sql =
        Db.sharedCounter()
            .during(
                () -> {
                  for (int i = 0; i < IDS; i++) {
                    int index = i;
                    Ticket found = sf.fromTransaction(s -> s.find(Ticket.class, BASE + index));
                    if (present[index] && found == null) {
                      falseNegatives.incrementAndGet();
                    }
                    assertThat(found != null).as("id %d", index).isEqualTo(present[index]);
                  }
                });

    assertThat(falseNegatives.get()).isZero();
    assertThat(checkedFinds.get()).isGreaterThan(THREADS * OPS_PER_THREAD / 2);
    assertThat(rebuilds).as("rebuilds raced with the churn").isPositive();
    long absent = java.util.stream.IntStream.range(0, IDS).filter(i -> !present[i]).count();
    assertThat(sql.size())
        .as("absent ids were short-circuited after the churn")
        .isLessThanOrEqualTo((int) (IDS - absent) + 2);
  }

  private Void churn(SessionFactory sf, SplittableRandom random) {
    for (int op = 0; op < OPS_PER_THREAD; op++) {
      int index = random.nextInt(IDS);
      if (random.nextInt(3) == 0) {
        unlockedFind(sf, index);
        continue;
      }
      ReentrantLock lock = locks[index];
      lock.lock();
      try {
        write(sf, index, random);
        lockedFind(sf, index);
      } finally {
        lock.unlock();
      }
    }
    return null;
  }

  private void write(SessionFactory sf, int index, SplittableRandom random) {
    long id = BASE + index;
    boolean commit = random.nextInt(4) != 0;
    boolean exists = present[index];
    int kind = random.nextInt(3);
    versions[index].incrementAndGet(); // odd: busy
    try (Session s = sf.openSession()) {
      s.beginTransaction();
      if (!exists) {
        s.persist(new Ticket(id, 0));
      } else if (kind == 0) {
        s.remove(s.find(Ticket.class, id));
        s.flush();
        s.persist(new Ticket(id, 1)); // delete and re-insert in one transaction
      } else {
        s.remove(s.find(Ticket.class, id));
      }
      s.flush();
      if (commit) {
        s.getTransaction().commit();
        present[index] = !exists || kind == 0;
      } else {
        s.getTransaction().rollback();
      }
    } finally {
      versions[index].incrementAndGet();
    }
  }

  private void lockedFind(SessionFactory sf, int index) {
    Ticket found = sf.fromTransaction(s -> s.find(Ticket.class, BASE + index));
    checkedFinds.incrementAndGet();
    if (present[index] && found == null) {
      falseNegatives.incrementAndGet();
    }
    assertThat(found != null).as("locked find of id %d", index).isEqualTo(present[index]);
  }

  private void unlockedFind(SessionFactory sf, int index) {
    long before = versions[index].get();
    boolean wasPresent = present[index];
    Ticket found = sf.fromTransaction(s -> s.find(Ticket.class, BASE + index));
    long after = versions[index].get();
    if (before == after && (before & 1) == 0 && wasPresent) {
      checkedFinds.incrementAndGet();
      if (found == null) {
        falseNegatives.incrementAndGet();
      }
    }
  }
}
