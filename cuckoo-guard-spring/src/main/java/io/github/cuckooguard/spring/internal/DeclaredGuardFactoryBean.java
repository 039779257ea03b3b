package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.util.ReflectionUtils;

/**
 * Creates the guard of one {@code @CuckooGuarded(name = …)} declaration. The declaration is held as
 * plain constructor arguments (strings, numbers, a class) rather than in an instance supplier, so
 * that Spring AOT ({@code spring-boot:process-aot}, native images) can write the bean definition as
 * code; the guard itself is only built at run time, when the bean is first requested, so AOT
 * processing builds no guard and starts no warm-up.
 *
 * <p>Not part of the API: public only because AOT-generated code instantiates it.
 */
public final class DeclaredGuardFactoryBean
    implements FactoryBean<CuckooGuard<Object>>, BeanFactoryAware {

  private final String name;
  private final String declaredBy;
  private final long expectedInsertions;
  private final double fpp;
  private final String specBean;
  private final String keySourceBean;
  private final boolean startsEmpty;
  private final String scanBeanName;
  private final Class<?> scanClass;
  private final String scanMethodName;
  private @Nullable BeanFactory beanFactory;
  private volatile @Nullable CuckooGuard<Object> guard;

  /**
   * The factory of one declared guard.
   *
   * @param scanBeanName the bean whose {@code @GuardKeySource} method scans the keys, or empty
   * @param scanClass the class declaring that method, or {@code void.class}
   * @param scanMethodName the method's name (it takes no parameters), or empty
   */
  public DeclaredGuardFactoryBean(
      String name,
      String declaredBy,
      long expectedInsertions,
      double fpp,
      String specBean,
      String keySourceBean,
      boolean startsEmpty,
      String scanBeanName,
      Class<?> scanClass,
      String scanMethodName) {
    this.name = name;
    this.declaredBy = declaredBy;
    this.expectedInsertions = expectedInsertions;
    this.fpp = fpp;
    this.specBean = specBean;
    this.keySourceBean = keySourceBean;
    this.startsEmpty = startsEmpty;
    this.scanBeanName = scanBeanName;
    this.scanClass = scanClass;
    this.scanMethodName = scanMethodName;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public CuckooGuard<Object> getObject() {
    CuckooGuard<Object> g = guard;
    if (g == null) {
      synchronized (this) {
        g = guard;
        if (g == null) {
          BeanFactory factory = beanFactory;
          if (factory == null) {
            throw new IllegalStateException(
                "guard '" + name + "' requested outside a bean factory");
          }
          g = GuardFactory.create(this, keyScan(), factory);
          guard = g;
        }
      }
    }
    return g;
  }

  @Override
  public Class<?> getObjectType() {
    return CuckooGuard.class;
  }

  @Override
  public boolean isSingleton() {
    return true;
  }

  /** The guard's key scan, or null if it has none. */
  @Nullable KeyScan keyScan() {
    if (!scanMethodName.isEmpty()) {
      Method method = ReflectionUtils.findMethod(scanClass, scanMethodName);
      if (method == null) {
        throw new IllegalStateException(
            "guard '"
                + name
                + "': the @GuardKeySource method "
                + scanClass.getName()
                + "."
                + scanMethodName
                + "() is gone");
      }
      return new KeyScan.OfMethod(scanBeanName, method);
    }
    return keySourceBean.isEmpty() ? null : new KeyScan.OfBean(keySourceBean);
  }

  String name() {
    return name;
  }

  String declaredBy() {
    return declaredBy;
  }

  long expectedInsertions() {
    return expectedInsertions;
  }

  double fpp() {
    return fpp;
  }

  String specBean() {
    return specBean;
  }

  boolean startsEmpty() {
    return startsEmpty;
  }
}
