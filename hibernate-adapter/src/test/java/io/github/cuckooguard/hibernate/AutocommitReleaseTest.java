package io.github.cuckooguard.hibernate;

import static io.github.cuckooguard.hibernate.Db.awaitWarmUp;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.model.Book;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.cfg.Configuration;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A {@code StatelessSession} insert without a transaction, on connections with auto-commit off,
 * becomes visible only when the session gives its connection back (Hibernate's built-in pool
 * commits then, by switching auto-commit on). Hibernate tells session listeners that the session
 * ended <em>before</em> it releases the connection, so a guard that let a rebuild run at the end
 * of the session could scan without the row, clear pass-through, and then answer "absent" for a
 * row that exists: a false negative, seen once in CI. Here the release is slowed down on purpose
 * (up to {@value #RELEASE_WAIT_MS} ms, until a rebuild has finished) so that such a rebuild would
 * run while the row is still uncommitted every time.
 */
class AutocommitReleaseTest {

  private static final long RELEASE_WAIT_MS = 1_000;

  static ReleasingProvider connections;
  static SessionFactory sf;
  static HibernateCuckooGuards guards;

  @BeforeAll
  static void start() {
    connections = new ReleasingProvider(Db.newUrl());
    Configuration cfg = Db.configuration("unused:", new SqlCounter(), Map.of(), Book.class);
    cfg.getProperties().put("hibernate.connection.provider_class", connections);
    sf = cfg.buildSessionFactory();
    guards = HibernateCuckooGuards.of(sf);
    awaitWarmUp(sf);
  }

  @AfterAll
  static void stop() {
    sf.close();
  }

  @Test
  void theGuardStaysInPassThroughUntilTheSessionHasGivenItsConnectionBack() {
    Thread me = Thread.currentThread();
    AtomicBoolean passThroughWhileUncommitted = new AtomicBoolean();
    long rebuildsBefore = guards.stats(Book.class).guard().rebuilds();
    connections.beforeRelease = connection -> {
      if (Thread.currentThread() != me) {
        return; // warm-up and rebuild scans release theirs on other threads
      }
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RELEASE_WAIT_MS);
      while (guards.stats(Book.class).guard().rebuilds() == rebuildsBefore
          && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      passThroughWhileUncommitted.set(guards.stats(Book.class).guard().passThrough());
    };
    try (StatelessSession s = sf.openStatelessSession()) {
      s.insert(new Book(7, "autocommit off"));
    } finally {
      connections.beforeRelease = connection -> {};
    }

    assertThat(passThroughWhileUncommitted)
        .as("pass-through while the inserted row is still uncommitted")
        .isTrue();
    assertThat(find(7L)).isNotNull();
    awaitWarmUp(sf);
    assertThat(guards.stats(Book.class).guard().passThrough()).isFalse();
    assertThat(find(7L)).as("found after the rebuild that cleared pass-through").isNotNull();
  }

  @Test
  void onAnAutoCommitConnectionOfTheApplicationTheWriteIsVisibleWhenTheSessionEnds()
      throws Exception {
    try (Connection own = connections.getConnection()) {
      own.setAutoCommit(true);
      try (StatelessSession s = sf.withStatelessOptions().connection(own).openStatelessSession()) {
        s.insert(new Book(8, "own auto-commit connection"));
        assertThat(guards.stats(Book.class).guard().passThrough()).isTrue();
      }
    }
    awaitWarmUp(sf);
    assertThat(guards.stats(Book.class).guard().passThrough()).isFalse();
    assertThat(find(8L)).isNotNull();
  }

  @Test
  void onAConnectionOfTheApplicationWithoutAutoCommitTheIdIsTrackedBeforeItsCommit()
      throws Exception {
    try (Connection own = connections.getConnection()) {
      try (StatelessSession s = sf.withStatelessOptions().connection(own).openStatelessSession()) {
        s.insert(new Book(9, "own connection, committed later"));
      }
      assertThat(guards.mightContain(Book.class, 9L)).isTrue();
      own.commit();
    }
    awaitWarmUp(sf);
    assertThat(find(9L)).isNotNull();
    assertThat(guards.mightContain(Book.class, 9L)).isTrue();
  }

  private static Book find(long id) {
    return sf.fromTransaction((Session s) -> s.find(Book.class, id));
  }

  /**
   * Plain H2 connections with auto-commit off; giving one back commits it, like Hibernate's
   * built-in pool, after a hook the test uses to widen the window before that commit.
   */
  static final class ReleasingProvider implements ConnectionProvider {
    private final String url;
    volatile Consumer<Connection> beforeRelease = connection -> {};

    ReleasingProvider(String url) {
      this.url = url;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection connection = DriverManager.getConnection(url, "sa", "");
      connection.setAutoCommit(false);
      return connection;
    }

    @Override
    public void closeConnection(Connection connection) throws SQLException {
      try {
        beforeRelease.accept(connection);
        connection.setAutoCommit(true); // commits, as PooledConnections.releaseConnection does
      } finally {
        connection.close();
      }
    }

    @Override
    public boolean supportsAggressiveRelease() {
      return false;
    }

    @Override
    public boolean isUnwrappableAs(Class<?> type) {
      return type.isInstance(this);
    }

    @Override
    public <T> T unwrap(Class<T> type) {
      return type.cast(this);
    }
  }
}
