package io.github.cuckooguard.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.contract.ModuleDescriptorContract;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
        "io.github.cuckooguard.hibernate",
        Set.of("io.github.cuckooguard.hibernate"),
        Set.of("io.github.cuckooguard.hibernate.internal"),
        Map.of(),
        Map.of(),
        Set.of("io.github.cuckooguard.core", "org.hibernate.orm.core"));
  }

  @Test
  void declaresTheServicesItLoadsAndProvides() throws Exception {
    ModuleDescriptor descriptor = compiledDescriptor();

    assertThat(descriptor.uses()).isEmpty();
    Map<String, List<String>> provided = new TreeMap<>();
    descriptor.provides().forEach(p -> provided.put(p.service(), p.providers()));
    // the same providers as the META-INF/services files, which serve the class path
    Map<String, List<String>> registered = new TreeMap<>();
    try (var files = Files.list(Path.of("target", "classes", "META-INF", "services"))) {
      for (Path file : (Iterable<Path>) files::iterator) {
        registered.put(file.getFileName().toString(), providers(file));
      }
    }
    assertThat(provided)
        .isEqualTo(registered)
        .containsOnlyKeys(
            "org.hibernate.integrator.spi.Integrator",
            "org.hibernate.boot.spi.SessionFactoryBuilderFactory");
  }

  private static List<String> providers(Path servicesFile) throws IOException {
    return Files.readAllLines(servicesFile, StandardCharsets.UTF_8).stream()
        .map(line -> line.replaceAll("#.*", "").trim())
        .filter(line -> !line.isEmpty())
        .collect(Collectors.toList());
  }

  /** The tests run on the module path: the descriptor is the one they run in. */
  @Test
  void testsRunInsideTheNamedModuleWithItsInternalPackagesHidden() {
    assertTestsRunInsideTheModule(HibernateCuckooGuards.class);
  }
}
