package io.github.cuckooguard.spring;

import io.github.cuckooguard.contract.ModuleDescriptorContract;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * This jar's module descriptor: the checks of {@link ModuleDescriptorContract} with this module's
 * API, internal packages and the modules its API names.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ModuleDescriptorTest extends ModuleDescriptorContract {

  ModuleDescriptorTest() {
    super(
        "io.github.cuckooguard.spring",
        Set.of("io.github.cuckooguard.spring"),
        Set.of("io.github.cuckooguard.spring.internal"),
        Map.of(),
        Map.of(
            "io.github.cuckooguard.spring.internal",
            Set.of(
                "spring.core",
                "spring.beans",
                "spring.context",
                "spring.aop",
                "spring.expression")),
        Set.of("io.github.cuckooguard.core", "spring.context"));
  }

  /** The tests run on the module path: the descriptor is the one they run in. */
  @Test
  void testsRunInsideTheNamedModuleWithItsInternalPackagesHidden() {
    assertTestsRunInsideTheModule(EnableCuckooGuard.class);
  }
}
