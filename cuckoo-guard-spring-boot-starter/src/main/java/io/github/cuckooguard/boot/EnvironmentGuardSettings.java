package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.spring.internal.DeclaredGuardFactoryBean;
import io.github.cuckooguard.spring.internal.GuardSettingsProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;

/**
 * The {@code cuckooguard.guards.<name>.*} settings, handed to the guards declared with
 * {@code @CuckooGuarded(name = …)} when they are created. Every setting is checked when this bean
 * is created (before the first guard is built): an unknown setting name, a bad value, or a guard
 * name that no {@code @CuckooGuarded} declares fails the start with the key and the accepted names.
 * Immutable and thread-safe after construction.
 */
final class EnvironmentGuardSettings implements GuardSettingsProvider {

  static final String PREFIX = CuckooGuardProperties.PREFIX + ".guards.";

  private final Map<String, Map<String, String>> settings;

  EnvironmentGuardSettings(
      CuckooGuardProperties properties, ConfigurableListableBeanFactory beanFactory) {
    this.settings = Map.copyOf(properties.getGuards());
    Set<String> declared = declaredGuards(beanFactory);
    for (Map.Entry<String, Map<String, String>> guard : settings.entrySet()) {
      String prefix = PREFIX + guard.getKey() + ".";
      if (!declared.contains(guard.getKey())) {
        String why =
            beanFactory.containsBean(guard.getKey())
                ? "'"
                    + guard.getKey()
                    + "' is a bean the application defines itself, not a guard declared with "
                    + "@CuckooGuarded(name = …): configure it where it is built"
                : "no @CuckooGuarded(name = \""
                    + guard.getKey()
                    + "\") declares a guard of that name";
        throw new CuckooGuardPropertyException(
            "unknown guard in "
                + prefix
                + guard.getValue().keySet()
                + ": "
                + why
                + "; the declared guards are "
                + declared);
      }
      Map<String, String> prefixed = new LinkedHashMap<>();
      guard.getValue().forEach((k, v) -> prefixed.put(prefix + k, v));
      try {
        GuardSpec.parse(prefixed, prefix, Set.of());
      } catch (IllegalArgumentException ex) {
        throw new CuckooGuardPropertyException(ex.getMessage(), ex);
      }
    }
  }

  /**
   * The names of the guards declared with {@code @CuckooGuarded(name = …)} (their bean class
   * tells).
   */
  private static Set<String> declaredGuards(ConfigurableListableBeanFactory beanFactory) {
    Set<String> names = new TreeSet<>();
    for (String name : beanFactory.getBeanDefinitionNames()) {
      BeanDefinition definition = beanFactory.getMergedBeanDefinition(name);
      if (definition instanceof AbstractBeanDefinition abd
          && abd.hasBeanClass()
          && abd.getBeanClass() == DeclaredGuardFactoryBean.class) {
        names.add(name);
      }
    }
    return names;
  }

  @Override
  public Map<String, String> settings(String guardName) {
    return settings.getOrDefault(guardName, Map.of());
  }

  @Override
  public String describe(String guardName) {
    return PREFIX + guardName + ".*";
  }
}
