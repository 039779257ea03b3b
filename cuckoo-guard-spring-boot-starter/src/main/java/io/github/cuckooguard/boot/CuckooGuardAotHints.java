package io.github.cuckooguard.boot;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * The reflection a native image needs for what the starter looks up by name at run time, registered
 * during Spring AOT processing ({@code META-INF/spring/aot.factories}): the optional classes whose
 * presence it checks ({@code ClassUtils.isPresent} finds only registered classes in a native image,
 * and a class it does not find turns off, for example, the entity guards' meters), and the
 * constructor of each funnel named in {@code cuckooguard.cache.<name>.funnel} as the Environment of
 * the processing has it. The {@code @GuardKeySource} methods and the guarded methods get their
 * hints from cuckoo-guard-spring's {@code GuardAotProcessor}.
 */
final class CuckooGuardAotHints implements BeanFactoryInitializationAotProcessor {

  /** The classes the starter checks for by name. */
  static final List<String> CHECKED_CLASSES =
      List.of(
          "io.github.cuckooguard.hibernate.HibernateCuckooGuards",
          "jakarta.persistence.EntityManagerFactory",
          "io.github.cuckooguard.jcache.GuardedCache",
          "javax.cache.Cache",
          "io.github.cuckooguard.caffeine.CaffeineGuard",
          "org.springframework.cache.caffeine.CaffeineCacheManager",
          HibernateGuardProperties.HAZELCAST_GROUP,
          "com.hazelcast.core.HazelcastInstance",
          "org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor");

  @Override
  public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
      ConfigurableListableBeanFactory beanFactory) {
    ClassLoader classLoader = beanFactory.getBeanClassLoader();
    Environment environment = beanFactory.getBeanProvider(Environment.class).getIfAvailable();
    List<String> funnels =
        environment instanceof ConfigurableEnvironment configurable
            ? Binder.get(configurable)
                .bind(
                    CacheGuardSettings.PREFIX.substring(0, CacheGuardSettings.PREFIX.length() - 1),
                    Bindable.mapOf(String.class, Map.class))
                .map(CuckooGuardAotHints::funnels)
                .orElse(List.of())
            : List.of();
    return (generationContext, code) -> {
      ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
      CHECKED_CLASSES.forEach(name -> reflection.registerTypeIfPresent(classLoader, name));
      funnels.forEach(
          name ->
              reflection.registerTypeIfPresent(
                  classLoader, name, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS));
    };
  }

  @SuppressWarnings("rawtypes")
  private static List<String> funnels(Map<String, Map> caches) {
    return caches.values().stream()
        .flatMap(settings -> ((Map<?, ?>) settings).entrySet().stream())
        .filter(
            e ->
                String.valueOf(e.getKey())
                    .replace("-", "")
                    .replace("_", "")
                    .equalsIgnoreCase(CacheGuardSettings.FUNNEL))
        .map(e -> String.valueOf(e.getValue()).trim())
        .toList();
  }
}
