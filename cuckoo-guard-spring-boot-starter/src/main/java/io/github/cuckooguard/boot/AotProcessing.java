package io.github.cuckooguard.boot;

import java.util.Map;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * What the starter does differently while Spring AOT processing runs ({@code
 * spring-boot:process-aot}, a native build's AOT step): cuckoo-guard-hibernate is turned off for
 * the {@code EntityManagerFactory} that Spring Data JPA builds to generate repository code. That
 * factory has no {@code DataSource}, so a guard there would start an id scan that fails with a
 * WARN. Nothing of it reaches the generated code: the application's real factory is built at run
 * time, when the flag is unset. Only the guard's filtering is off during processing, which can
 * never report a present key absent. Shared by the environment post-processors of the Boot lines
 * (their interface moved in Boot 4).
 */
final class AotProcessing {

  /** The system property Spring sets to true while AOT processing runs (AbstractAotProcessor). */
  static final String PROPERTY = "spring.aot.processing";

  static final String SOURCE_NAME = "cuckooguard-aot-processing";

  private AotProcessing() {}

  /** Whether AOT processing runs in this JVM. */
  static boolean active() {
    return Boolean.getBoolean(PROPERTY);
  }

  /** While AOT processing runs, adds {@code hibernate.cuckoo.enabled=false} to {@code env}. */
  static void postProcess(ConfigurableEnvironment environment) {
    if (active()) {
      environment
          .getPropertySources()
          .addFirst(
              new MapPropertySource(
                  SOURCE_NAME, Map.of("spring.jpa.properties.hibernate.cuckoo.enabled", "false")));
    }
  }
}
