package io.github.cuckooguard.boot;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * While Spring AOT processing runs ({@code spring-boot:process-aot}, a native build's AOT step),
 * turns cuckoo-guard-hibernate off for the {@code EntityManagerFactory} that Spring Data JPA builds
 * to generate repository code: that factory has no {@code DataSource}, so a guard there would start
 * an id scan that fails with a WARN. Nothing of it reaches the generated code: the application's
 * real factory is built at run time, when this processor does not add the property. Only the
 * guard's filtering is off during processing, which can never report a present key absent.
 */
final class Boot3AotProcessingEnvironment implements EnvironmentPostProcessor {

  /** The system property Spring sets to true while AOT processing runs (AbstractAotProcessor). */
  static final String AOT_PROCESSING = "spring.aot.processing";

  static final String SOURCE_NAME = "cuckooguard-aot-processing";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (Boolean.getBoolean(AOT_PROCESSING)) {
      environment
          .getPropertySources()
          .addFirst(
              new MapPropertySource(
                  SOURCE_NAME, Map.of("spring.jpa.properties.hibernate.cuckoo.enabled", "false")));
    }
  }
}
