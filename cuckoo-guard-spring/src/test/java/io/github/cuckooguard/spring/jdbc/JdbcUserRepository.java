package io.github.cuckooguard.spring.jdbc;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKey;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import io.github.cuckooguard.spring.support.CallCounter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.annotation.Transactional;

/**
 * A class-based repository on a real H2 table, with every kind of guarded method. Each method
 * counts its calls in a {@link CallCounter}, so tests see whether the guard let a call through.
 */
@CuckooGuarded(name = "users", expectedInsertions = 10_000, fpp = 0.001)
@Transactional
public class JdbcUserRepository {

  private static final RowMapper<User> ROW =
      (rs, i) -> new User(rs.getLong("id"), rs.getString("name"));

  private final JdbcTemplate jdbc;
  private final ObjectProvider<KeyScanHook> scanHook;
  private final CallCounter calls;

  public JdbcUserRepository(
      JdbcTemplate jdbc, ObjectProvider<KeyScanHook> scanHook, CallCounter calls) {
    this.jdbc = jdbc;
    this.scanHook = scanHook;
    this.calls = calls;
  }

  @GuardedFind
  @Transactional(readOnly = true)
  public User findById(long id) {
    calls.find();
    List<User> users = jdbc.query("select id, name from users where id = ?", ROW, id);
    return users.isEmpty() ? null : users.get(0);
  }

  @GuardedFind
  @Transactional(readOnly = true)
  public Optional<User> find(@GuardKey long id, String why) {
    calls.find();
    return jdbc.query("select id, name from users where id = ?", ROW, id).stream().findFirst();
  }

  @GuardedFind(key = "#id")
  @Transactional(readOnly = true)
  public boolean existsById(long id) {
    calls.find();
    return jdbc.queryForObject("select count(*) from users where id = ?", Long.class, id) > 0;
  }

  @GuardedFind(key = "#p0")
  @Transactional(readOnly = true)
  public List<User> findAllWithId(long id) {
    calls.find();
    return jdbc.query("select id, name from users where id = ?", ROW, id);
  }

  @GuardedFind
  @Transactional(readOnly = true)
  public Stream<User> streamById(long id) {
    calls.find();
    return jdbc.query("select id, name from users where id = ?", ROW, id).stream();
  }

  @GuardedFind(key = "#root.args[0]")
  public CompletableFuture<Optional<User>> findLater(long id) {
    calls.find();
    return CompletableFuture.completedFuture(
        Optional.ofNullable(
            jdbc.query("select id, name from users where id = ?", ROW, id).stream()
                .findFirst()
                .orElse(null)));
  }

  /** Creates the user; false (nothing created) if the id exists. */
  @GuardedAdd(key = "#user.id")
  public boolean insert(User user) {
    calls.write();
    try {
      jdbc.update("insert into users(id, name) values (?, ?)", user.id(), user.name());
      return true;
    } catch (DuplicateKeyException ex) {
      return false;
    }
  }

  /** Creates the user; throws if the id exists. Insert-only, so void is fine for an add. */
  @GuardedAdd(key = "#a0.id()")
  public void create(User user) {
    calls.write();
    jdbc.update("insert into users(id, name) values (?, ?)", user.id(), user.name());
  }

  /** Deletes the user; true if a row was deleted. */
  @GuardedRemove(key = "#id")
  public boolean deleteById(long id) {
    calls.write();
    return jdbc.update("delete from users where id = ?", id) > 0;
  }

  /** Deletes the user; throws if there was none. */
  @GuardedRemove(key = "#id", throwsIfAbsent = true)
  public void remove(long id) {
    calls.write();
    if (jdbc.update("delete from users where id = ?", id) == 0) {
      throw new EmptyResultDataAccessException("no user " + id, 1);
    }
  }

  /** Deletes the users with these ids; the count of deleted rows. */
  @GuardedRemove(key = "#id")
  public int deleteCounting(long id) {
    calls.write();
    return jdbc.update("delete from users where id = ?", id);
  }

  @GuardKeySource
  @Transactional(readOnly = true)
  public List<Long> allIds() {
    scanHook.ifAvailable(KeyScanHook::run);
    return jdbc.queryForList("select id from users", Long.class);
  }

  /** Unguarded: the truth, for assertions. */
  @Transactional(readOnly = true)
  public boolean rowExists(long id) {
    return jdbc.queryForObject("select count(*) from users where id = ?", Long.class, id) > 0;
  }
}
