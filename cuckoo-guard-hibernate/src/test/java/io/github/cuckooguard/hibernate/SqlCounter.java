package io.github.cuckooguard.hibernate;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * The application's own statement inspector in the tests: counts the statements prepared on the
 * current thread (so that background warm-up scans on other threads do not disturb a count), and
 * lets a test hold statements (e.g. block a warm-up scan) with a hook. The guard must call it.
 */
public final class SqlCounter implements StatementInspector {

  private final ThreadLocal<List<String>> statements = ThreadLocal.withInitial(ArrayList::new);
  private volatile Consumer<String> hook = sql -> {};

  @Override
  public String inspect(String sql) {
    statements.get().add(sql);
    hook.accept(sql);
    return sql;
  }

  /** Statements prepared on this thread while {@code action} ran. */
  public List<String> during(Runnable action) {
    List<String> mine = statements.get();
    int before = mine.size();
    action.run();
    return List.copyOf(mine.subList(before, mine.size()));
  }

  /** Called with every statement prepared on any thread, before it runs. */
  public void hook(Consumer<String> hook) {
    this.hook = hook;
  }
}
