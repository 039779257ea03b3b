package io.github.cuckooguard.hibernate.internal;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.resource.transaction.spi.TransactionCoordinator;
import org.hibernate.resource.transaction.spi.TransactionObserver;

/**
 * Runs work when the transaction a session is in completes: the committed branch after a commit,
 * the rolled-back branch otherwise, with the same {@code successful} flag Hibernate passes to its
 * own after-completion work.
 *
 * <pre>
 * Why a TransactionObserver: Hibernate 7 has session.getTransactionCompletionCallbacks(), 6.6 has
 * only ActionQueue.registerProcess (Session, not StatelessSession). Both lines have the SPI
 * TransactionCoordinator.addObserver(TransactionObserver), for Session and StatelessSession,
 * resource-local and JTA, and both call afterCompletion(successful, delayed) after the physical
 * commit or rollback (JdbcResourceLocalTransactionCoordinatorImpl, JtaTransactionCoordinatorImpl),
 * iterating over a copy of the observers, so an observer may remove itself there.
 *
 * One observer per coordinator (session) and transaction, however many writes: it removes itself
 * at completion, so the next transaction of the session gets a fresh one. Work added after the
 * observer fired (only possible if JTA completes on another thread while the session still
 * writes) goes to a fresh observer. The map is weak in the coordinator: a session dropped with
 * its transaction never completed takes its pending work with it, as Hibernate's own callbacks do.
 * </pre>
 *
 * <p>Thread safety: thread-safe; completion may run on another thread than the writes (JTA).
 */
final class TransactionEnds {

  private final Map<TransactionCoordinator, Batch> open =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** Runs {@code committed} or {@code rolledBack} once the session's transaction completes. */
  void after(SharedSessionContractImplementor session, Runnable committed, Runnable rolledBack) {
    TransactionCoordinator coordinator = session.getTransactionCoordinator();
    while (true) {
      Batch batch =
          open.computeIfAbsent(
              coordinator,
              c -> {
                Batch created = new Batch(c);
                c.addObserver(created);
                return created;
              });
      if (batch.add(committed, rolledBack)) {
        return;
      }
      open.remove(coordinator, batch); // it fired meanwhile: start the next one
    }
  }

  private record End(Runnable committed, Runnable rolledBack) {}

  private final class Batch implements TransactionObserver {
    /** Weak: the coordinator holds this observer, a strong reference would pin the map key. */
    private final WeakReference<TransactionCoordinator> coordinator;

    private final List<End> ends = new ArrayList<>();
    private boolean fired;

    Batch(TransactionCoordinator coordinator) {
      this.coordinator = new WeakReference<>(coordinator);
    }

    synchronized boolean add(Runnable committed, Runnable rolledBack) {
      if (fired) {
        return false;
      }
      ends.add(new End(committed, rolledBack));
      return true;
    }

    @Override
    public void afterBegin() {}

    @Override
    public void beforeCompletion() {}

    @Override
    public void afterCompletion(boolean successful, boolean delayed) {
      List<End> due;
      synchronized (this) {
        fired = true;
        due = List.copyOf(ends);
        ends.clear();
      }
      TransactionCoordinator owner = coordinator.get();
      if (owner != null) {
        open.remove(owner, this);
        owner.removeObserver(this);
      }
      RuntimeException first = null;
      for (End end : due) {
        try {
          (successful ? end.committed() : end.rolledBack()).run();
        } catch (RuntimeException e) { // every handle ends, whatever one of them throws
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }
}
