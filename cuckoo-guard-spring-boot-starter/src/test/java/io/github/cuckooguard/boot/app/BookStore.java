package io.github.cuckooguard.boot.app;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * A class-based JDBC repository with a guard of its own, {@code books}, declared by name and fed by
 * the {@code bookKeys} KeySource bean (a {@code select id} over the same table). Its annotation
 * asks for fpp 0.05; application.properties overrides that with {@code cuckooguard.guards.books.*}.
 */
@Repository
@CuckooGuarded(name = "books", keySource = "bookKeys", fpp = 0.05)
public class BookStore {

  private final JdbcTemplate jdbc;

  public BookStore(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
    jdbc.execute("create table if not exists book (id bigint primary key, title varchar(200))");
  }

  @GuardedAdd(key = "#id")
  @Transactional
  public void insert(long id, String title) {
    jdbc.update("insert into book (id, title) values (?, ?)", id, title);
  }

  @GuardedFind
  @Transactional(readOnly = true)
  public Optional<String> title(long id) {
    List<String> titles =
        jdbc.queryForList("select title from book where id = ?", String.class, id);
    return titles.stream().findFirst();
  }

  @GuardedRemove(key = "#id")
  @Transactional
  public boolean delete(long id) {
    return jdbc.update("delete from book where id = ?", id) > 0;
  }
}
