package io.github.cuckooguard.hibernate.internal;

import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.jspecify.annotations.Nullable;

/**
 * Chains the application's {@link StatementInspector} (if any) and shows the final SQL to the
 * registry (through {@link BulkHooks}), which detects bulk and native statements on guarded tables.
 * Never changes the SQL.
 *
 * <p>Thread safety: as thread-safe as the delegate.
 */
final class GuardStatementInspector implements StatementInspector {

  private final @Nullable StatementInspector delegate;
  private final BulkHooks hooks;

  GuardStatementInspector(@Nullable StatementInspector delegate, BulkHooks hooks) {
    this.delegate = delegate;
    this.hooks = hooks;
  }

  BulkHooks hooks() {
    return hooks;
  }

  @Override
  public String inspect(String sql) {
    String result = delegate == null ? sql : delegate.inspect(sql);
    String effective = result == null ? sql : result;
    hooks.beforeStatement(effective);
    return effective;
  }
}
