package io.github.cuckooguard.spring;

import io.github.cuckooguard.spring.internal.CuckooGuardConfigurationSelector;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;

/**
 * Enables the guard annotations ({@link GuardedFind}, {@link GuardedAdd}, {@link GuardedRemove}) on
 * Spring beans, the way {@code @EnableCaching} enables {@code @Cacheable}: put it on a
 * {@code @Configuration} class.
 *
 * <pre>{@code
 * @Configuration
 * @EnableCuckooGuard
 * @EnableTransactionManagement
 * class AppConfig { … }
 * }</pre>
 *
 * <p>It registers, as infrastructure beans, an auto-proxy creator (the one {@code @EnableCaching}
 * and {@code @EnableTransactionManagement} share), an advisor that matches the annotated methods of
 * class-based beans and of Spring Data interface repositories, its interceptor, one {@link
 * io.github.cuckooguard.CuckooGuard} bean per name declared with {@link CuckooGuarded}, and the
 * warm-up that fills each guard from its key source once the context is refreshed. For
 * {@code @CuckooGuarded(entity = …)} it registers, instead of a guard, the lookup of
 * cuckoo-guard-hibernate's entity guards, checked once the singletons exist.
 *
 * <p><b>Order.</b> The advisor must run <em>before</em> the transaction interceptor, so that a
 * definite miss opens no transaction and takes no connection. Its {@link #order()} defaults to
 * {@value #DEFAULT_ORDER}, which is before a transaction advisor left at its default order ({@link
 * Ordered#LOWEST_PRECEDENCE}) and after security interceptors, which use small orders (a guard in
 * front of an access check would tell an unauthorised caller which keys exist). The context fails
 * to start if a transaction advisor is ordered before the guard advisor. Spring Data repositories
 * apply their transactions inside the repository proxy, which the guard wraps, so there the guard
 * always runs first.
 *
 * <p><b>Proxies.</b> As with every Spring AOP feature, calls from inside the bean to its own
 * methods ({@code this.insert(…)}) are not intercepted: a guarded add reached that way is never
 * recorded, and later finds of the key would be answered "absent". Call annotated methods through
 * the bean reference only. Annotated methods must not be {@code private}, {@code static} or {@code
 * final}; the context fails to start if one is.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(CuckooGuardConfigurationSelector.class)
public @interface EnableCuckooGuard {

  /** The default of {@link #order()}: {@code Ordered.LOWEST_PRECEDENCE - 1000}. */
  int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

  /**
   * Whether to create subclass (CGLIB) proxies instead of interface-based (JDK) proxies. As with
   * {@code @EnableCaching}, {@code true} switches every auto-proxied bean of the context, not only
   * the guarded ones, to class proxies.
   */
  boolean proxyTargetClass() default false;

  /**
   * The order of the guard advisor among the advisors applied at one join point; it must be smaller
   * (earlier) than the order of the transaction advisor.
   */
  int order() default DEFAULT_ORDER;
}
