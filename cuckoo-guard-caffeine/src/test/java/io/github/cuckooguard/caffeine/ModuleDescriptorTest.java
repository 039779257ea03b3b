package io.github.cuckooguard.caffeine;

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
        "io.github.cuckooguard.caffeine",
        Set.of("io.github.cuckooguard.caffeine"),
        Set.of("io.github.cuckooguard.caffeine.internal"),
        Map.of(),
        Map.of(),
        Set.of("io.github.cuckooguard.core", "com.github.benmanes.caffeine"));
  }

  /** The tests run on the module path: the descriptor is the one they run in. */
  @Test
  void testsRunInsideTheNamedModuleWithItsInternalPackagesHidden() {
    assertTestsRunInsideTheModule(CaffeineGuard.class);
  }
}
