package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.contract.ModuleDescriptorContract;
import java.lang.module.ModuleDescriptor;
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
        "io.github.cuckooguard.jcache",
        Set.of("io.github.cuckooguard.jcache"),
        Set.of("io.github.cuckooguard.jcache.internal"),
        Map.of(),
        Map.of(),
        Set.of("io.github.cuckooguard.core", "cache.api"));
  }

  @Test
  void declaresTheServicesItLoadsAndProvides() {
    ModuleDescriptor descriptor = compiledDescriptor();

    assertThat(descriptor.uses()).containsExactlyInAnyOrder("javax.cache.spi.CachingProvider");
    assertThat(descriptor.provides()).isEmpty();
  }
}
