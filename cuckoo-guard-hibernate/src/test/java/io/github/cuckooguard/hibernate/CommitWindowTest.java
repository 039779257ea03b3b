package io.github.cuckooguard.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.model.Entry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The moment between the database's commit and Hibernate's after-completion callback, widened on
 * purpose: a hook runs inside {@code Connection.commit()}, after the commit. An insert's id must
 * already be in the guard then (the row is visible), and a rebuild that runs then (its scan no
 * longer sees a deleted row) must not make the delete's later end take another id's fingerprint.
 * With 4-bit fingerprints and a fixed seed, ids share fingerprints often, so an adapter that
 * reported the delete only in the callback ({@code keyLeft} after the removal) would lose some of
 * the remaining ids here; the outcome is fixed by the seed, not by timing.
 */
class CommitWindowTest {

  static HookedProvider connections;
  static SessionFactory sf;
  static HibernateCuckooGuards guards;

  @BeforeAll
  static void start() {
    connections = new HookedProvider(Db.newUrl());
    Configuration cfg =
        Db.configuration(
            "unused:",
            new SqlCounter(),
            Map.of(
                CuckooGuardSettings.FINGERPRINT_BITS,
                4,
                CuckooGuardSettings.SEED,
                11,
                CuckooGuardSettings.EXPECTED_INSERTIONS,
                256),
            Entry.class);
    sf = connections.install(cfg).buildSessionFactory();
    guards = HibernateCuckooGuards.of(sf);
    Db.awaitWarmUp(sf);
  }

  @AfterAll
  static void stop() {
    sf.close();
  }

  @Test
  void anInsertedIdIsInTheGuardWhenItsCommitReturnsAndADeleteSurvivesARebuildBeforeItsCallback() {
    List<Long> missingAtCommit = new ArrayList<>();
    for (long id = 1; id <= 200; id++) {
      long key = id;
      connections.afterCommit(
          () -> {
            if (!guards.mightContain(Entry.class, key)) {
              missingAtCommit.add(key);
            }
          });
      sf.inTransaction((Session s) -> s.persist(new Entry(key)));
    }
    assertThat(missingAtCommit)
        .as("ids absent from the guard once their row was committed")
        .isEmpty();

    List<Long> present = new ArrayList<>();
    for (long id = 1; id <= 200; id++) {
      present.add(id);
    }
    List<String> damage = new ArrayList<>();
    for (long id = 4; id <= 200; id += 4) {
      long key = id;
      connections.afterCommit(() -> guards.rebuild(Entry.class).join());
      sf.inTransaction((Session s) -> s.remove(s.find(Entry.class, key)));
      present.remove(key);
      // each delete is checked at once: the next one's rebuild would repair the damage
      for (long other : present) {
        if (!guards.mightContain(Entry.class, other)) {
          damage.add(other + " reported absent after the delete of " + key);
        }
      }
      long size = guards.stats(Entry.class).guard().size();
      if (size != present.size()) {
        damage.add(
            size + " fingerprints for " + present.size() + " ids after the delete of " + key);
      }
    }
    connections.afterCommit(() -> {});

    assertThat(damage).isEmpty();
    assertThat(guards.stats(Entry.class).guard().passThrough()).isFalse();
  }

  /** H2 connections whose {@code commit()} runs a hook after committing, on the test thread. */
  static final class HookedProvider extends H2Connections {
    private volatile Thread hooked;
    private volatile Runnable afterCommit = () -> {};

    HookedProvider(String url) {
      super(url);
    }

    void afterCommit(Runnable hook) {
      hooked = Thread.currentThread();
      afterCommit = hook;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection real = super.getConnection();
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                Object result;
                try {
                  result = method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
                if (method.getName().equals("commit") && Thread.currentThread() == hooked) {
                  afterCommit.run();
                }
                return result;
              });
    }
  }
}
