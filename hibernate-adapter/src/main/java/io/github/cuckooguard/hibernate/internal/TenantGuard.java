package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.KeySource;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The guard of one root entity for one tenant, its find counters, and its {@link KeySource}: a
 * plain {@code select id} scan of the rows a new transaction of the tenant sees.
 *
 * <p>The scan is all the key source has to emit: inserts and deletes reach the guard through
 * its write handles ({@link MembershipListener}), and the guard itself keeps every enter and
 * leave that is in flight (flushed, not yet committed or rolled back) in a rebuilt filter. The
 * one thing the scan cannot see is a write that no entity event reports (bulk or native SQL, an
 * upsert, an insert of a generated id outside a transaction): while such a write is pending the
 * entity is held ({@link BulkWrites}) and the scan fails on purpose, which keeps the guard in
 * pass-through until a rebuild that starts after the write became visible.
 *
 * <p>Thread safety: thread-safe; the counters are adders, the scan opens its own session.
 */
final class TenantGuard implements KeySource<Object> {

  private final EntityGuards entity;
  private final @Nullable Object tenantId;
  private final CuckooGuard<Object> guard;

  final LongAdder finds = new LongAdder();
  final LongAdder shortCircuits = new LongAdder();
  final LongAdder falsePositives = new LongAdder();

  TenantGuard(EntityGuards entity, @Nullable Object tenantId, CuckooGuard.Builder<Object> builder) {
    this.entity = entity;
    this.tenantId = tenantId;
    this.guard = builder.keySource(this).build();
  }

  EntityGuards entity() {
    return entity;
  }

  CuckooGuard<Object> guard() {
    return guard;
  }

  @Override
  public void forEachKey(Consumer<? super Object> action) throws Exception {
    if (entity.held()) {
      throw new IllegalStateException("a write to " + entity.entityName() + " that entity events"
          + " do not report exactly (bulk or native statement, upsert, insert of a generated id"
          + " outside a transaction) has not completed yet; a scan now could miss its rows, so the"
          + " guard stays in pass-through and rebuilds when it completes");
    }
    entity.scanKeys(tenantId, action::accept);
  }
}
