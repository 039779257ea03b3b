package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.context.annotation.Role;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The infrastructure beans of {@code @EnableCuckooGuard}, one per role as in {@code
 * ProxyCachingConfiguration}: the guard bean registrar, the registry of guards, the context-ready
 * gate of warm-ups, the operation source (parse), the advisor (pointcut) and the interceptor
 * (advice).
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public class ProxyCuckooGuardConfiguration implements ImportAware {

  /** The bean name of the guard advisor. */
  public static final String ADVISOR_BEAN_NAME =
      "io.github.cuckooguard.spring.internalGuardAdvisor";

  /** The bean name of the {@link GuardRegistry}. */
  public static final String REGISTRY_BEAN_NAME =
      "io.github.cuckooguard.spring.internalGuardRegistry";

  /** The bean name of the {@link ContextReadyGate}. */
  public static final String GATE_BEAN_NAME =
      "io.github.cuckooguard.spring.internalContextReadyGate";

  private @Nullable AnnotationAttributes enableGuard;
  private @Nullable GuardCluster cluster;

  @Override
  public void setImportMetadata(AnnotationMetadata importMetadata) {
    this.enableGuard =
        AnnotationAttributes.fromMap(
            importMetadata.getAnnotationAttributes(EnableCuckooGuard.class.getName()));
    if (this.enableGuard == null) {
      throw new IllegalArgumentException(
          "@EnableCuckooGuard is not present on importing class " + importMetadata.getClassName());
    }
  }

  /**
   * Registers the guard beans declared with {@code @CuckooGuarded}; static, as every BDRPP bean.
   */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public static GuardBeanRegistrar cuckooGuardBeanRegistrar() {
    return new GuardBeanRegistrar();
  }

  /** The guards by name, for the interceptor and the key scans. */
  @Bean(name = REGISTRY_BEAN_NAME)
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public GuardRegistry cuckooGuardRegistry(BeanFactory beanFactory) {
    GuardCluster cluster = cuckooGuardCluster(beanFactory);
    GuardRegistry registry = new GuardRegistry(beanFactory, cluster);
    cluster.registry(registry);
    return registry;
  }

  /**
   * Whether the guards join their groups on a Hazelcast cluster ({@code hazelcastInstance}/{@code
   * cluster}/{@code clusterLeaseMillis}/{@code clusterMinimumMembers} of
   * {@code @EnableCuckooGuard}). One per configuration instance: the registry's, also registered as
   * a bean for its checks and lifecycle.
   */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  synchronized GuardCluster cuckooGuardCluster(BeanFactory beanFactory) {
    GuardCluster c = cluster;
    if (c == null) {
      AnnotationAttributes attributes = enableGuard;
      ClassLoader classLoader =
          beanFactory instanceof ConfigurableBeanFactory configurable
              ? configurable.getBeanClassLoader()
              : null;
      c =
          new GuardCluster(
              (ListableBeanFactory) beanFactory,
              attributes != null ? attributes.getString("hazelcastInstance") : "",
              attributes == null || attributes.getBoolean("cluster"),
              attributes != null ? attributes.<Long>getNumber("clusterLeaseMillis") : 0L,
              attributes != null
                  ? attributes.<Integer>getNumber("clusterMinimumMembers")
                  : EnableCuckooGuard.DEFAULT_CLUSTER_MINIMUM_MEMBERS,
              classLoader != null ? classLoader : getClass().getClassLoader());
      cluster = c;
    }
    return c;
  }

  /** Opens the warm-ups when the context is refreshed. */
  @Bean(name = GATE_BEAN_NAME)
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public ContextReadyGate cuckooGuardContextReadyGate() {
    return new ContextReadyGate();
  }

  /** Transaction synchronization if spring-tx is present, immediate otherwise. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  TransactionHooks cuckooGuardTransactionHooks(BeanFactory beanFactory) {
    ClassLoader classLoader =
        beanFactory instanceof ConfigurableBeanFactory configurable
            ? configurable.getBeanClassLoader()
            : null;
    return TransactionHooks.detect(classLoader != null ? classLoader : getClass().getClassLoader());
  }

  /** Parses and checks the annotations of guarded methods. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public GuardOperationSource cuckooGuardOperationSource(
      GuardRegistry registry, TransactionHooks transactions) {
    return new GuardOperationSource(registry, transactions);
  }

  /** Checks the guarded methods of every declaring bean type, created or not, at startup. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  GuardStartupCheck cuckooGuardStartupCheck(
      GuardBeanRegistrar registrar, GuardOperationSource operations) {
    return new GuardStartupCheck(registrar, operations);
  }

  /** The advice. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public GuardInterceptor cuckooGuardInterceptor(
      GuardOperationSource operations, GuardRegistry registry, TransactionHooks transactions) {
    return new GuardInterceptor(operations, registry, transactions);
  }

  /** The advisor, ordered by {@code @EnableCuckooGuard(order)}. */
  @Bean(name = ADVISOR_BEAN_NAME)
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public GuardAdvisor cuckooGuardAdvisor(
      GuardOperationSource operations, GuardInterceptor interceptor) {
    GuardAdvisor advisor = new GuardAdvisor(operations);
    advisor.setAdvice(interceptor);
    AnnotationAttributes attributes = enableGuard;
    advisor.setOrder(
        attributes != null
            ? attributes.<Integer>getNumber("order")
            : EnableCuckooGuard.DEFAULT_ORDER);
    return advisor;
  }
}
