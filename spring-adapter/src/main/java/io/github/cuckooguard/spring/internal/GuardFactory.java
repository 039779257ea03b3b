package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.KeySource;
import io.github.cuckooguard.spring.CuckooGuarded;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Builds the guard of a {@link GuardDeclaration}: its bean definition, and the guard itself when
 * the bean is created.
 *
 * <p>A guard with a key source starts in pass-through ({@code markStale}), so it answers "might
 * contain" for every key, also to code that uses the bean directly; its first rebuild (the
 * warm-up) waits for the context to be refreshed, scans, and only then turns pass-through off.
 * Rebuilds run on a daemon thread of their own ({@code cuckoo-guard-<name>-N}), never on the
 * common pool, since a scan blocks on the database.
 */
final class GuardFactory {

  private GuardFactory() {}

  /** The bean definition of the guard: {@code CuckooGuard<Object>}, created by {@link #create}. */
  static AbstractBeanDefinition definition(GuardDeclaration guard, BeanFactory beanFactory) {
    KeyScan scan = guard.keyScan();
    RootBeanDefinition definition = new RootBeanDefinition(CuckooGuard.class);
    definition.setTargetType(ResolvableType.forClassWithGenerics(CuckooGuard.class, Object.class));
    definition.setInstanceSupplier(() -> create(guard, scan, beanFactory));
    definition.setAttribute(GuardRegistry.CANONICAL_KEYS_ATTRIBUTE, Boolean.TRUE);
    definition.setDescription("Cuckoo guard '" + guard.name() + "' declared by @CuckooGuarded on "
        + guard.declaredBy());
    return definition;
  }

  private static CuckooGuard<Object> create(GuardDeclaration guard, @Nullable KeyScan scan, BeanFactory beanFactory) {
    CuckooGuard.Builder<Object> builder = CuckooGuard.newBuilder(CanonicalKeyFunnel.INSTANCE).name(guard.name())
        .spec(spec(guard, beanFactory));
    if (scan == null) {
      return builder.build();
    }
    if (scan instanceof KeyScan.OfBean bean) {
      checkKeySourceBean(guard, bean.beanName(), beanFactory);
    }
    ContextReadyGate gate = beanFactory.getBean(ProxyCuckooGuardConfiguration.GATE_BEAN_NAME, ContextReadyGate.class);
    SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("cuckoo-guard-" + guard.name() + "-");
    executor.setDaemon(true);
    builder.keySource(new KeyScanSource(scan, beanFactory, gate)).executor(executor);
    if (guard.startsEmpty()) {
      return builder.build();
    }
    CuckooGuard<Object> built = builder.addListener(new WarmUpLog(guard.name())).build();
    built.markStale("warm-up from " + scan.describe() + " once the application context is refreshed");
    return built;
  }

  /**
   * The settings of the guard: the {@code GuardSpec} bean named by {@code spec}, or the
   * annotation's {@code expectedInsertions} and {@code fpp} (each unset one keeps the default of
   * {@link GuardSpec}).
   */
  private static GuardSpec spec(GuardDeclaration guard, BeanFactory beanFactory) {
    String what = "@CuckooGuarded(name = \"" + guard.name() + "\") on " + guard.declaredBy();
    if (!guard.specBean().isEmpty()) {
      String name = guard.specBean();
      if (!beanFactory.containsBean(name) || !beanFactory.isTypeMatch(name, GuardSpec.class)) {
        throw new IllegalStateException(what + ": spec = \"" + name + "\" is not the name of a GuardSpec bean"
            + (beanFactory.containsBean(name) ? " (it is a " + beanFactory.getType(name) + ")" : " (there is no such bean)")
            + ". Define @Bean GuardSpec " + name + "() { return GuardSpec.newBuilder()….build(); }.");
      }
      return beanFactory.getBean(name, GuardSpec.class);
    }
    try {
      GuardSpec.Builder spec = GuardSpec.newBuilder();
      if (guard.expectedInsertions() != CuckooGuarded.UNSET) {
        spec.expectedInsertions(guard.expectedInsertions());
      }
      if (guard.fpp() != CuckooGuarded.UNSET) {
        spec.fpp(guard.fpp());
      }
      return spec.build();
    } catch (IllegalArgumentException | IllegalStateException ex) {
      throw new IllegalStateException(what + ": " + ex.getMessage(), ex);
    }
  }

  private static void checkKeySourceBean(GuardDeclaration guard, String name, BeanFactory beanFactory) {
    boolean exists = beanFactory.containsBean(name);
    if (!exists || !beanFactory.isTypeMatch(name, KeySource.class)) {
      throw new IllegalStateException("@CuckooGuarded(name = \"" + guard.name() + "\") on " + guard.declaredBy()
          + ": keySource = \"" + name + "\" is not the name of a KeySource bean"
          + (exists ? " (it is a " + beanFactory.getType(name) + ")" : " (there is no such bean)") + ".");
    }
  }
}
