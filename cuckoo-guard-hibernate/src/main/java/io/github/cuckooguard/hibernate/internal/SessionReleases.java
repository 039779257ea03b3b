package io.github.cuckooguard.hibernate.internal;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hibernate.SessionEventListener;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.resource.jdbc.spi.LogicalConnectionImplementor;
import org.jspecify.annotations.Nullable;

/**
 * Runs work once a session that wrote outside a transaction has ended <em>and</em> given its
 * connection back: the first moment its writes are certainly committed.
 *
 * <pre>
 * When a row written outside a transaction becomes visible to other connections depends on the
 * connection: in auto-commit mode as the statement runs; with auto-commit off, Hibernate's
 * built-in pool commits when the connection is given back (it switches auto-commit on), other
 * pools may roll back. Hibernate calls SessionEventListener.end() BEFORE it closes the session's
 * JDBC coordinator, so end() alone is too early (a rebuild started there could scan before the
 * commit; seen in CI as a false negative, pinned by AutocommitReleaseTest). The release point:
 *
 *   end(), no physical connection held, or it is in auto-commit mode   -> committed now
 *   end(), the application's own connection with auto-commit off       -> unknown (never given
 *                                                                         back to Hibernate)
 *   end(), otherwise                                                   -> committed at the
 *                                                                         jdbcConnectionReleaseEnd
 *                                                                         that follows
 * </pre>
 *
 * <p>One listener per session, however many writes it makes. Thread safety: thread-safe.
 */
final class SessionReleases {

  /** Work for the release point of one session. */
  @FunctionalInterface
  interface Action {
    /** The session's writes are committed and visible to every new transaction. */
    void committed();

    /**
     * The session ran on a connection the application supplied, with auto-commit off: only the
     * application knows when, or whether, it commits. By default nothing happens.
     */
    default void unknown() {}
  }

  /**
   * Hibernate's logical connection over a connection the application supplied. Internal, so
   * compared by name (the same in 6.6 and 7.x); if a release renamed it, such a session would be
   * taken for one on a pooled connection and wait for a release that never comes: its enters stay
   * in flight and its holds in pass-through (slow, never wrong).
   */
  private static final String PROVIDED_CONNECTION =
      "org.hibernate.resource.jdbc.internal.LogicalConnectionProvidedImpl";

  private final Map<SharedSessionContractImplementor, Release> open = new ConcurrentHashMap<>();

  /** Runs {@code action} at the release point of {@code session}. */
  void after(SharedSessionContractImplementor session, Action action) {
    open.computeIfAbsent(
            session,
            s -> {
              Release release = new Release(s);
              s.getEventListenerManager().addListener(release);
              return release;
            })
        .add(action);
  }

  /**
   * Whether {@code connection} commits each statement as it runs; null if it holds no physical
   * connection or the driver would not say. Callers pick the safe reading of null.
   */
  static @Nullable Boolean autoCommit(LogicalConnectionImplementor connection) {
    if (!connection.isPhysicallyConnected()) {
      return null;
    }
    try {
      return connection.getPhysicalConnection().getAutoCommit();
    } catch (SQLException | RuntimeException unknown) {
      return null;
    }
  }

  private final class Release implements SessionEventListener {
    private final SharedSessionContractImplementor session;
    private final List<Action> actions = new ArrayList<>();
    private boolean ended;
    private boolean done;

    Release(SharedSessionContractImplementor session) {
      this.session = session;
    }

    synchronized void add(Action action) {
      actions.add(action);
    }

    @Override
    public void end() {
      synchronized (this) {
        ended = true;
      }
      LogicalConnectionImplementor connection = session.getJdbcCoordinator().getLogicalConnection();
      if (!connection.isPhysicallyConnected() || Boolean.TRUE.equals(autoCommit(connection))) {
        finish(true); // given back, never taken, or committed as it ran: visible now
      } else if (connection.getClass().getName().equals(PROVIDED_CONNECTION)) {
        finish(false);
      }
      // else: jdbcConnectionReleaseEnd follows, when the session closes its JDBC coordinator
    }

    @Override
    public void jdbcConnectionReleaseEnd() {
      boolean afterEnd;
      synchronized (this) {
        afterEnd = ended;
      }
      if (afterEnd) {
        finish(true);
      }
    }

    private void finish(boolean committed) {
      List<Action> due;
      synchronized (this) {
        if (done) {
          return;
        }
        done = true;
        due = List.copyOf(actions);
      }
      open.remove(session, this);
      for (Action action : due) {
        if (committed) {
          action.committed();
        } else {
          action.unknown();
        }
      }
    }
  }
}
