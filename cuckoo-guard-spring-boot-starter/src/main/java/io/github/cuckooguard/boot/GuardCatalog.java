package io.github.cuckooguard.boot;

import io.github.cuckooguard.CuckooGuard;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The guards of an application context by name: every {@code CuckooGuard} bean; when
 * cuckoo-guard-hibernate is present, the guarded entities of every {@code EntityManagerFactory};
 * and the guarded caches of every Spring {@code CacheManager} (cuckoo-guard-jcache's caches, the
 * Caffeine caches the starter guards). Read after the context is refreshed (the first call collects
 * them; later calls return the same map). Thread-safe.
 */
public final class GuardCatalog {

  private static final boolean HIBERNATE =
      ClassUtils.isPresent(
              "io.github.cuckooguard.hibernate.HibernateCuckooGuards",
              GuardCatalog.class.getClassLoader())
          && ClassUtils.isPresent(
              "jakarta.persistence.EntityManagerFactory", GuardCatalog.class.getClassLoader());

  private final ListableBeanFactory beanFactory;
  private volatile @Nullable Map<String, GuardView> guards;

  /** A catalog of the guards of {@code beanFactory}. */
  public GuardCatalog(ListableBeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  /**
   * The guards by name: guard beans in bean definition order, then entity guards, then cache
   * guards; never null.
   */
  public Map<String, GuardView> guards() {
    Map<String, GuardView> found = guards;
    if (found == null) {
      synchronized (this) {
        found = guards;
        if (found == null) {
          found = Collections.unmodifiableMap(collect());
          guards = found;
        }
      }
    }
    return found;
  }

  /**
   * The guard named {@code name}.
   *
   * @throws IllegalArgumentException naming the known guards if there is none of that name
   */
  public GuardView guard(String name) {
    GuardView view = guards().get(name);
    if (view == null) {
      throw new IllegalArgumentException(
          "no guard named '" + name + "'; the guards are " + guards().keySet());
    }
    return view;
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private Map<String, GuardView> collect() {
    Map<String, GuardView> found = new LinkedHashMap<>();
    Map<String, CuckooGuard> beans = beanFactory.getBeansOfType(CuckooGuard.class, false, false);
    beans.forEach((name, guard) -> found.put(name, beanGuard(name, (CuckooGuard<Object>) guard)));
    if (HIBERNATE) {
      EntityGuardViews.collect(beanFactory, found);
    }
    CacheGuardViews.collect(beanFactory, found);
    return found;
  }

  private static GuardView beanGuard(String name, CuckooGuard<Object> guard) {
    return new DelegatingGuardView(
        name,
        GuardView.Kind.BEAN,
        Map.of(),
        guard.spec().targetFpp(),
        guard::stats,
        guard::rebuild,
        guard::markStale);
  }
}
