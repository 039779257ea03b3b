package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
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
    CuckooGuard.Builder<Object> builder = CuckooGuard.newBuilder(CanonicalKeyFunnel.INSTANCE).name(guard.name());
    try {
      if (guard.expectedInsertions() != CuckooGuarded.UNSET) {
        builder.expectedInsertions(guard.expectedInsertions());
      }
      if (guard.fpp() != CuckooGuarded.UNSET) {
        builder.fpp(guard.fpp());
      }
    } catch (IllegalArgumentException ex) {
      throw new IllegalStateException("@CuckooGuarded(name = \"" + guard.name() + "\") on "
          + guard.declaredBy() + ": " + ex.getMessage(), ex);
    }
    if (scan == null) {
      return builder.build();
    }
    if (scan instanceof KeyScan.OfBean bean) {
      checkKeySourceBean(guard, bean.beanName(), beanFactory);
    }
    GuardRegistry registry = beanFactory.getBean(ProxyCuckooGuardConfiguration.REGISTRY_BEAN_NAME, GuardRegistry.class);
    ContextReadyGate gate = beanFactory.getBean(ProxyCuckooGuardConfiguration.GATE_BEAN_NAME, ContextReadyGate.class);
    WriteJournal journal = registry.journal(guard.name());
    SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("cuckoo-guard-" + guard.name() + "-");
    executor.setDaemon(true);
    CuckooGuard<Object> built = builder
        .keySource(new KeyScanSource(scan, beanFactory, gate, journal))
        .executor(executor)
        .addListener(new GuardRebuildListener(guard.name(), journal, !guard.startsEmpty()))
        .build();
    if (!guard.startsEmpty()) {
      built.markStale("warm-up from " + scan.describe() + " once the application context is refreshed");
    }
    return built;
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
