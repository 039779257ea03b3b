package io.github.cuckooguard.hibernate.internal;

import org.hibernate.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * What {@link GuardStatementInspector} and {@link GuardInterceptor} report to, before the registry
 * they report to exists.
 *
 * <p>The two are installed by {@link GuardSessionFactoryBuilderFactory} while the session factory
 * is being built (the only moment the public SPI lets anyone add a factory-wide inspector and
 * interceptor); the {@link GuardRegistry} is created later, in {@link CuckooGuardIntegrator} {@code
 * .integrate}, which attaches it here. Until then, and for ever on a factory whose guard turns out
 * to be off, every report is ignored.
 *
 * <p>Thread safety: thread-safe (a volatile field set once).
 */
final class BulkHooks {

  private volatile @Nullable GuardRegistry registry;

  void attach(GuardRegistry registry) {
    this.registry = registry;
  }

  void beforeStatement(String sql) {
    GuardRegistry attached = registry;
    if (attached != null) {
      attached.beforeStatement(sql);
    }
  }

  void transactionBegan(@Nullable Transaction transaction) {
    GuardRegistry attached = registry;
    if (attached != null) {
      attached.bulkWrites().transactionBegan(transaction);
    }
  }

  void transactionCompleted(@Nullable Transaction transaction) {
    GuardRegistry attached = registry;
    if (attached != null) {
      attached.bulkWrites().transactionCompleted(transaction);
    }
  }
}
