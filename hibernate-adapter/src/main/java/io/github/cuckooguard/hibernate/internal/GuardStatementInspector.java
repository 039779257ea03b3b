package io.github.cuckooguard.hibernate.internal;

import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.jspecify.annotations.Nullable;

/**
 * Chains the application's {@link StatementInspector} (if any) and shows the final SQL to the
 * registry, which detects bulk and native statements on guarded tables. Never changes the SQL.
 *
 * <p>Thread safety: as thread-safe as the delegate.
 */
final class GuardStatementInspector implements StatementInspector {

  private final @Nullable StatementInspector delegate;
  private final GuardRegistry registry;

  GuardStatementInspector(@Nullable StatementInspector delegate, GuardRegistry registry) {
    this.delegate = delegate;
    this.registry = registry;
  }

  @Override
  public String inspect(String sql) {
    String result = delegate == null ? sql : delegate.inspect(sql);
    String effective = result == null ? sql : result;
    registry.beforeStatement(effective);
    return effective;
  }
}
