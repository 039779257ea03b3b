package io.github.cuckooguard.jcache.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;

/**
 * A read-only view of a delegate cache's configuration that leaves out the guard's own listener, so
 * that callers see the listeners they registered and no others (the JSR-107 TCK counts them).
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class HidingConfiguration<K, V> implements CompleteConfiguration<K, V> {
  private static final long serialVersionUID = 1L;

  private final CompleteConfiguration<K, V> delegate;

  public HidingConfiguration(CompleteConfiguration<K, V> delegate) {
    this.delegate = delegate;
  }

  @Override
  public Iterable<CacheEntryListenerConfiguration<K, V>> getCacheEntryListenerConfigurations() {
    List<CacheEntryListenerConfiguration<K, V>> visible = new ArrayList<>();
    for (CacheEntryListenerConfiguration<K, V> c : delegate.getCacheEntryListenerConfigurations()) {
      if (!GuardListener.isGuardListener(c)) {
        visible.add(c);
      }
    }
    return Collections.unmodifiableList(visible);
  }

  @Override
  public boolean isReadThrough() {
    return delegate.isReadThrough();
  }

  @Override
  public boolean isWriteThrough() {
    return delegate.isWriteThrough();
  }

  @Override
  public boolean isStatisticsEnabled() {
    return delegate.isStatisticsEnabled();
  }

  @Override
  public boolean isManagementEnabled() {
    return delegate.isManagementEnabled();
  }

  @Override
  public Factory<CacheLoader<K, V>> getCacheLoaderFactory() {
    return delegate.getCacheLoaderFactory();
  }

  @Override
  public Factory<CacheWriter<? super K, ? super V>> getCacheWriterFactory() {
    return delegate.getCacheWriterFactory();
  }

  @Override
  public Factory<ExpiryPolicy> getExpiryPolicyFactory() {
    return delegate.getExpiryPolicyFactory();
  }

  @Override
  public Class<K> getKeyType() {
    return delegate.getKeyType();
  }

  @Override
  public Class<V> getValueType() {
    return delegate.getValueType();
  }

  @Override
  public boolean isStoreByValue() {
    return delegate.isStoreByValue();
  }

  @Override
  public String toString() {
    return "HidingConfiguration[" + delegate + "]";
  }
}
