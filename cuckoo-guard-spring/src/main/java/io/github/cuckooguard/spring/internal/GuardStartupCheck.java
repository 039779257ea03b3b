package io.github.cuckooguard.spring.internal;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Once the singletons exist, parses and checks the guarded methods of every bean type that declares
 * {@code @CuckooGuarded}, also of beans that are lazy or were never created: otherwise a wrong
 * annotation (an unsupported key type, a return type that cannot be short-circuited, a key
 * expression that names no parameter, a finder passing a {@code String} to a guard of {@code Long}
 * ids) would surface only when the bean is first used. The auto-proxy creator runs the same checks
 * for the beans it proxies; results are cached.
 */
final class GuardStartupCheck implements SmartInitializingSingleton {

  private final GuardBeanRegistrar registrar;
  private final GuardOperationSource operations;

  GuardStartupCheck(GuardBeanRegistrar registrar, GuardOperationSource operations) {
    this.registrar = registrar;
    this.operations = operations;
  }

  @Override
  public void afterSingletonsInstantiated() {
    for (Class<?> type : registrar.declaringTypes()) {
      operations.hasOperations(type);
    }
    operations.checkKeyKinds();
  }
}
