package io.github.cuckooguard.hibernate.internal;

import java.util.Iterator;
import org.hibernate.Interceptor;
import org.hibernate.Transaction;
import org.hibernate.metamodel.RepresentationMode;
import org.hibernate.metamodel.spi.EntityRepresentationStrategy;
import org.hibernate.type.Type;
import org.jspecify.annotations.Nullable;

/**
 * Delegates every callback to the application's interceptor (or does nothing, like Hibernate's
 * default) and reports transaction begin and completion to {@link BulkWrites} (through {@link
 * BulkHooks}). Installed by {@link GuardSessionFactoryBuilderFactory}.
 *
 * <p>Compiled against Hibernate 7.x and run on 6.6 too: {@code preMerge}/{@code postMerge} exist
 * only in 7.x (6.6 never calls them); 6.6's deprecated {@code Serializable} variants are not
 * overridden, and its defaults of the {@code Object} variants, which Hibernate calls, reach them in
 * the delegate ({@code HibernateLinkageTest} pins the rest).
 *
 * <p>Thread safety: as thread-safe as the delegate; the added reporting is.
 */
@SuppressWarnings({"deprecation", "removal"})
final class GuardInterceptor implements Interceptor {

  private static final Interceptor NONE = new Interceptor() {};

  private final Interceptor delegate;
  private final BulkHooks hooks;

  GuardInterceptor(@Nullable Interceptor delegate, BulkHooks hooks) {
    this.delegate = delegate == null ? NONE : delegate;
    this.hooks = hooks;
  }

  @Override
  public void afterTransactionBegin(Transaction tx) {
    hooks.transactionBegan(tx);
    delegate.afterTransactionBegin(tx);
  }

  @Override
  public void afterTransactionCompletion(Transaction tx) {
    try {
      delegate.afterTransactionCompletion(tx);
    } finally {
      hooks.transactionCompleted(tx);
    }
  }

  @Override
  public void beforeTransactionCompletion(Transaction tx) {
    delegate.beforeTransactionCompletion(tx);
  }

  @Override
  public boolean onLoad(Object entity, Object id, Object[] state, String[] names, Type[] types) {
    return delegate.onLoad(entity, id, state, names, types);
  }

  @Override
  public boolean onPersist(Object entity, Object id, Object[] state, String[] names, Type[] types) {
    return delegate.onPersist(entity, id, state, names, types);
  }

  @Override
  public void onRemove(Object entity, Object id, Object[] state, String[] names, Type[] types) {
    delegate.onRemove(entity, id, state, names, types);
  }

  @Override
  public boolean onFlushDirty(
      Object entity,
      Object id,
      Object[] currentState,
      Object[] previousState,
      String[] names,
      Type[] types) {
    return delegate.onFlushDirty(entity, id, currentState, previousState, names, types);
  }

  @Override
  public boolean onSave(Object entity, Object id, Object[] state, String[] names, Type[] types) {
    return delegate.onSave(entity, id, state, names, types);
  }

  @Override
  public void onDelete(Object entity, Object id, Object[] state, String[] names, Type[] types) {
    delegate.onDelete(entity, id, state, names, types);
  }

  @Override
  public void onCollectionRecreate(Object collection, Object key) {
    delegate.onCollectionRecreate(collection, key);
  }

  @Override
  public void onCollectionRemove(Object collection, Object key) {
    delegate.onCollectionRemove(collection, key);
  }

  @Override
  public void onCollectionUpdate(Object collection, Object key) {
    delegate.onCollectionUpdate(collection, key);
  }

  @Override
  public void preFlush(Iterator<Object> entities) {
    delegate.preFlush(entities);
  }

  @Override
  public void postFlush(Iterator<Object> entities) {
    delegate.postFlush(entities);
  }

  @Override
  public Boolean isTransient(Object entity) {
    return delegate.isTransient(entity);
  }

  @Override
  public int[] findDirty(
      Object entity,
      Object id,
      Object[] currentState,
      Object[] previousState,
      String[] names,
      Type[] types) {
    return delegate.findDirty(entity, id, currentState, previousState, names, types);
  }

  @Override
  public Object instantiate(String entityName, EntityRepresentationStrategy strategy, Object id) {
    return delegate.instantiate(entityName, strategy, id);
  }

  @Override
  public Object instantiate(String entityName, RepresentationMode mode, Object id) {
    return delegate.instantiate(entityName, mode, id);
  }

  @Override
  public String getEntityName(Object object) {
    return delegate.getEntityName(object);
  }

  @Override
  public Object getEntity(String entityName, Object id) {
    return delegate.getEntity(entityName, id);
  }

  @Override
  public void onInsert(Object entity, Object id, Object[] state, String[] names, Type[] types) {
    delegate.onInsert(entity, id, state, names, types);
  }

  @Override
  public void onUpdate(Object entity, Object id, Object[] state, String[] names, Type[] types) {
    delegate.onUpdate(entity, id, state, names, types);
  }

  @Override
  public void onUpsert(Object entity, Object id, Object[] state, String[] names, Type[] types) {
    delegate.onUpsert(entity, id, state, names, types);
  }

  @Override
  public void onDelete(Object entity, Object id, String[] names, Type[] types) {
    delegate.onDelete(entity, id, names, types);
  }

  @Override
  public void preMerge(Object entity, Object[] state, String[] names, Type[] types) {
    delegate.preMerge(entity, state, names, types);
  }

  @Override
  public void postMerge(
      Object source,
      Object target,
      Object id,
      Object[] targetState,
      Object[] originalState,
      String[] names,
      Type[] types) {
    delegate.postMerge(source, target, id, targetState, originalState, names, types);
  }
}
