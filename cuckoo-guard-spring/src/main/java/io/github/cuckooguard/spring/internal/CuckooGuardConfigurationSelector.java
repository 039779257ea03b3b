package io.github.cuckooguard.spring.internal;

import java.util.ArrayList;
import java.util.List;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * What {@code @EnableCuckooGuard} imports, as {@code CachingConfigurationSelector} does for
 * {@code @EnableCaching}: the auto-proxy creator registrar and {@link
 * ProxyCuckooGuardConfiguration}, plus {@link GuardTransactionConfiguration} when spring-tx is on
 * the class path (detected by class presence: spring-tx stays optional).
 */
public final class CuckooGuardConfigurationSelector implements ImportSelector {

  private static final boolean TRANSACTIONS_PRESENT =
      ClassUtils.isPresent(
          "org.springframework.transaction.interceptor.TransactionInterceptor",
          CuckooGuardConfigurationSelector.class.getClassLoader());

  @Override
  public String[] selectImports(AnnotationMetadata importingClassMetadata) {
    List<String> imports = new ArrayList<>(3);
    imports.add(GuardAutoProxyRegistrar.class.getName());
    imports.add(ProxyCuckooGuardConfiguration.class.getName());
    if (TRANSACTIONS_PRESENT) {
      imports.add(GuardTransactionConfiguration.class.getName());
    }
    return imports.toArray(new String[0]);
  }
}
