package io.github.cuckooguard.samples.db;

import java.util.concurrent.atomic.LongAdder;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * Counts the SQL statements Hibernate prepares and the transactions Spring begins, per request
 * stream: a request thread names the {@link Tally} its work is counted in; work of other threads
 * (the guards' warm-up scans) goes to {@link #background()}. Shared by both applications of the
 * story, so that a stream is counted wherever its requests go. Thread-safe.
 */
public final class Meter implements StatementInspector {

  /** Statements and transactions of one request stream. */
  public static final class Tally {
    final LongAdder statements = new LongAdder();
    final LongAdder transactions = new LongAdder();

    long statements() {
      return statements.sum();
    }

    long transactions() {
      return transactions.sum();
    }
  }

  private final Tally background = new Tally();
  private final ThreadLocal<Tally> current = ThreadLocal.withInitial(() -> background);

  /** From now on, counts the current thread's statements and transactions in {@code tally}. */
  void countIn(Tally tally) {
    current.set(tally);
  }

  /** The work of threads that named no tally. */
  Tally background() {
    return background;
  }

  void transactionBegun() {
    current.get().transactions.increment();
  }

  /** Counts the statement; never changes it. */
  @Override
  public String inspect(String sql) {
    current.get().statements.increment();
    return sql;
  }
}
