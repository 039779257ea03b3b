package io.github.cuckooguard.spring.cluster;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;

/** Text keys in the table {@code names(k)}, counting the finds that run their query. */
@CuckooGuarded(name = "names")
public class ClusterNameRepository {
  private final JdbcTemplate jdbc;
  private final AtomicInteger finds = new AtomicInteger();

  public ClusterNameRepository(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @GuardedFind
  public Optional<String> find(String name) {
    finds.incrementAndGet();
    return jdbc.queryForList("select k from names where k = ?", String.class, name).stream()
        .findFirst();
  }

  @GuardedAdd
  public boolean insert(String name) {
    return jdbc.update("insert into names(k) values (?)", name) > 0;
  }

  @GuardKeySource
  public List<String> allNames() {
    return jdbc.queryForList("select k from names", String.class);
  }

  /** The finds that ran their query (through the proxy: the target's count). */
  public int finds() {
    return finds.get();
  }
}
