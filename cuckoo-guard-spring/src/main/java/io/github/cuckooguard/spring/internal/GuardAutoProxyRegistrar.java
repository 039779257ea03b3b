package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import java.util.Map;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the infrastructure auto-proxy creator (shared with {@code @EnableCaching} and
 * {@code @EnableTransactionManagement}, escalated to the AspectJ one if that is present), and
 * switches it to class proxies when {@code @EnableCuckooGuard(proxyTargetClass = true)}. It is
 * Spring's {@code AutoProxyRegistrar} minus the {@code mode} attribute: only proxies are supported.
 */
public final class GuardAutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

  @Override
  public void registerBeanDefinitions(
      AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
    AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    Map<String, Object> attributes =
        importingClassMetadata.getAnnotationAttributes(EnableCuckooGuard.class.getName());
    if (attributes != null && Boolean.TRUE.equals(attributes.get("proxyTargetClass"))) {
      AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
    }
  }
}
