package io.github.cuckooguard.spring.jdbc;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.function.LongPredicate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A repository on the H2 table {@code users} (guard "own") whose guarded add commits its row in a
 * transaction of its own, begun inside the body (a {@code REQUIRES_NEW} template), which the
 * startup check cannot see; a test may check something right after that inner commit.
 */
@CuckooGuarded(name = "own", expectedInsertions = 100_000, fpp = 0.001)
public class OwnTransactionRepository {
  private final JdbcTemplate jdbc;
  private final TransactionTemplate requiresNew;
  private volatile LongPredicate afterInnerCommit = id -> true;

  public OwnTransactionRepository(JdbcTemplate jdbc, PlatformTransactionManager manager) {
    this.jdbc = jdbc;
    this.requiresNew = new TransactionTemplate(manager);
    requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
  }

  /** A method, not the field: the bean is a class-based proxy whose fields are not the target's. */
  public void afterInnerCommit(LongPredicate check) {
    this.afterInnerCommit = check;
  }

  @GuardedAdd(key = "#id")
  public boolean insertInItsOwnTransaction(long id) {
    Integer rows =
        requiresNew.execute(s -> jdbc.update("insert into users values(?, ?)", id, "own"));
    return afterInnerCommit.test(id) && rows != null && rows == 1;
  }

  @GuardedFind(key = "#id")
  @Transactional(readOnly = true)
  public boolean exists(long id) {
    return jdbc.queryForObject("select count(*) from users where id = ?", Long.class, id) > 0;
  }

  /** Unguarded: the truth. */
  @Transactional(readOnly = true)
  public boolean jdbcRowExists(long id) {
    return jdbc.queryForObject("select count(*) from users where id = ?", Long.class, id) > 0;
  }

  @GuardKeySource
  @Transactional(readOnly = true)
  public List<Long> allIds() {
    return jdbc.queryForList("select id from users", Long.class);
  }
}
