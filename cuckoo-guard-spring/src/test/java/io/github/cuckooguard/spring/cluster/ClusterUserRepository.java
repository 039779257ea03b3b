package io.github.cuckooguard.spring.cluster;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.CallCounter;
import java.util.List;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.annotation.Transactional;

/**
 * A class-based repository on the H2 table {@code users}, shared by the application instances of a
 * test (one database, several contexts). Counts the calls that reached its method bodies.
 */
@CuckooGuarded(name = "members", expectedInsertions = 1_000_000, fpp = 0.001)
@Transactional
public class ClusterUserRepository {

  private static final RowMapper<User> ROW =
      (rs, i) -> new User(rs.getLong("id"), rs.getString("name"));

  private final JdbcTemplate jdbc;
  private final CallCounter calls;

  public ClusterUserRepository(JdbcTemplate jdbc, CallCounter calls) {
    this.jdbc = jdbc;
    this.calls = calls;
  }

  @GuardedFind
  @Transactional(readOnly = true)
  public User findById(long id) {
    calls.find();
    List<User> users = jdbc.query("select id, name from users where id = ?", ROW, id);
    return users.isEmpty() ? null : users.get(0);
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

  /** Deletes the user; true if a row was deleted. */
  @GuardedRemove(key = "#id")
  public boolean deleteById(long id) {
    calls.write();
    return jdbc.update("delete from users where id = ?", id) > 0;
  }

  @GuardKeySource
  @Transactional(readOnly = true)
  public List<Long> allIds() {
    return jdbc.queryForList("select id from users", Long.class);
  }

  /** Unguarded: the truth, for assertions. */
  @Transactional(readOnly = true)
  public boolean rowExists(long id) {
    return jdbc.queryForObject("select count(*) from users where id = ?", Long.class, id) > 0;
  }
}
