package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.KeySource;
import io.github.cuckooguard.spring.CuckooGuarded;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.ConstructorArgumentValues;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Builds the guard of a {@link GuardDeclaration}: its bean definition, and the guard itself when
 * its {@link DeclaredGuardFactoryBean} is asked for it.
 *
 * <p>A guard with a key source starts in pass-through ({@code markStale}), so it answers "might
 * contain" for every key, also to code that uses the bean directly; its first rebuild (the warm-up)
 * waits for the context to be refreshed, scans, and only then turns pass-through off. Rebuilds run
 * on a daemon thread of their own ({@code cuckoo-guard-<name>-N}), never on the common pool, since
 * a scan blocks on the database.
 */
final class GuardFactory {

  private GuardFactory() {}

  /**
   * The bean definition of the guard: a {@link DeclaredGuardFactoryBean} of {@code
   * CuckooGuard<Object>} whose constructor arguments hold the declaration (AOT can write them as
   * code). The key source is checked here, so that a guard without one fails the start.
   */
  static AbstractBeanDefinition definition(GuardDeclaration guard) {
    KeyScan scan = guard.keyScan();
    RootBeanDefinition definition = new RootBeanDefinition(DeclaredGuardFactoryBean.class);
    ResolvableType guardType = ResolvableType.forClassWithGenerics(CuckooGuard.class, Object.class);
    definition.setTargetType(guardType);
    definition.setAttribute(FactoryBean.OBJECT_TYPE_ATTRIBUTE, guardType);
    ConstructorArgumentValues args = definition.getConstructorArgumentValues();
    KeyScan.OfMethod method = scan instanceof KeyScan.OfMethod m ? m : null;
    Object[] values = {
      guard.name(),
      guard.declaredBy(),
      guard.expectedInsertions(),
      guard.fpp(),
      guard.specBean(),
      scan instanceof KeyScan.OfBean bean ? bean.beanName() : "",
      guard.startsEmpty(),
      method != null ? method.beanName() : "",
      method != null ? method.method().getDeclaringClass() : void.class,
      method != null ? method.method().getName() : ""
    };
    for (int i = 0; i < values.length; i++) {
      args.addIndexedArgumentValue(i, values[i]);
    }
    definition.setAttribute(GuardRegistry.CANONICAL_KEYS_ATTRIBUTE, Boolean.TRUE);
    definition.setDescription(
        "Cuckoo guard '" + guard.name() + "' declared by @CuckooGuarded on " + guard.declaredBy());
    return definition;
  }

  static CuckooGuard<Object> create(
      DeclaredGuardFactoryBean guard, @Nullable KeyScan scan, BeanFactory beanFactory) {
    CuckooGuard.Builder<Object> builder =
        CuckooGuard.newBuilder(
                beanFactory
                    .getBean(ProxyCuckooGuardConfiguration.REGISTRY_BEAN_NAME, GuardRegistry.class)
                    .kinds(guard.name())
                    .funnel())
            .name(guard.name())
            .spec(spec(guard, beanFactory));
    if (scan == null) {
      return builder.build();
    }
    if (scan instanceof KeyScan.OfBean bean) {
      checkKeySourceBean(guard, bean.beanName(), beanFactory);
    }
    ContextReadyGate gate =
        beanFactory.getBean(ProxyCuckooGuardConfiguration.GATE_BEAN_NAME, ContextReadyGate.class);
    SimpleAsyncTaskExecutor executor =
        new SimpleAsyncTaskExecutor("cuckoo-guard-" + guard.name() + "-");
    executor.setDaemon(true);
    builder.keySource(new KeyScanSource(scan, beanFactory, gate)).executor(executor);
    if (guard.startsEmpty()) {
      return builder.build();
    }
    CuckooGuard<Object> built = builder.addListener(new WarmUpLog(guard.name())).build();
    built.markStale(
        "warm-up from " + scan.describe() + " once the application context is refreshed");
    return built;
  }

  /**
   * The settings of the guard: the {@code GuardSpec} bean named by {@code spec}, or the
   * annotation's {@code expectedInsertions} and {@code fpp}, overridden setting by setting by a
   * {@link GuardSettingsProvider} bean if there is one (each unset one keeps the default of {@link
   * GuardSpec}).
   */
  private static GuardSpec spec(DeclaredGuardFactoryBean guard, BeanFactory beanFactory) {
    String what = "@CuckooGuarded(name = \"" + guard.name() + "\") on " + guard.declaredBy();
    GuardSettingsProvider provider =
        beanFactory.getBeanProvider(GuardSettingsProvider.class).getIfAvailable();
    Map<String, String> external = provider != null ? provider.settings(guard.name()) : Map.of();
    if (!guard.specBean().isEmpty()) {
      String name = guard.specBean();
      if (!external.isEmpty() && provider != null) {
        throw new IllegalStateException(
            what
                + ": spec = \""
                + name
                + "\" holds every setting of the guard, "
                + "and "
                + provider.describe(guard.name())
                + " sets "
                + external.keySet()
                + " as well. Set them in "
                + "one place: in the GuardSpec bean, or drop spec and keep the properties.");
      }
      if (!beanFactory.containsBean(name) || !beanFactory.isTypeMatch(name, GuardSpec.class)) {
        throw new IllegalStateException(
            what
                + ": spec = \""
                + name
                + "\" is not the name of a GuardSpec bean"
                + (beanFactory.containsBean(name)
                    ? " (it is a " + beanFactory.getType(name) + ")"
                    : " (there is no such bean)")
                + ". Define @Bean GuardSpec "
                + name
                + "() { return GuardSpec.newBuilder()….build(); }.");
      }
      return beanFactory.getBean(name, GuardSpec.class);
    }
    Map<String, Object> settings = new LinkedHashMap<>();
    if (guard.expectedInsertions() != CuckooGuarded.UNSET) {
      settings.put("expectedinsertions", guard.expectedInsertions());
    }
    if (guard.fpp() != CuckooGuarded.UNSET) {
      settings.put("fpp", guard.fpp());
    }
    for (Map.Entry<String, String> e : external.entrySet()) {
      settings.put(
          e.getKey().replace("-", "").replace("_", "").toLowerCase(Locale.ROOT), e.getValue());
    }
    try {
      return GuardSpec.parse(settings, "", Set.of());
    } catch (IllegalArgumentException | IllegalStateException ex) {
      String source =
          provider != null && !external.isEmpty()
              ? " (with " + provider.describe(guard.name()) + ")"
              : "";
      throw new IllegalStateException(what + source + ": " + ex.getMessage(), ex);
    }
  }

  private static void checkKeySourceBean(
      DeclaredGuardFactoryBean guard, String name, BeanFactory beanFactory) {
    boolean exists = beanFactory.containsBean(name);
    if (!exists || !beanFactory.isTypeMatch(name, KeySource.class)) {
      throw new IllegalStateException(
          "@CuckooGuarded(name = \""
              + guard.name()
              + "\") on "
              + guard.declaredBy()
              + ": keySource = \""
              + name
              + "\" is not the name of a KeySource bean"
              + (exists
                  ? " (it is a " + beanFactory.getType(name) + ")"
                  : " (there is no such bean)")
              + ".");
    }
  }
}
