package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.boot.app.GuardedApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplicationAotProcessor;
import org.springframework.context.aot.AbstractAotProcessor;

/**
 * Issue 15: Spring AOT processing (what {@code spring-boot:process-aot} and a native build run) of
 * a Boot application with the starter and an entity guard succeeds; before, it failed with
 * "instance supplier is not supported" for 'io.github.cuckooguard.spring.internalEntityGuards'.
 */
class AotProcessingTest {

  @Test
  void aotProcessingOfAnApplicationWithAnEntityGuardSucceeds(@TempDir Path out) throws Exception {
    AbstractAotProcessor.Settings settings = AbstractAotProcessor.Settings.builder()
        .sourceOutput(out.resolve("sources")).resourceOutput(out.resolve("resources"))
        .classOutput(out.resolve("classes")).groupId("io.github.cuckooguard").artifactId("aot-sample").build();
    new SpringApplicationAotProcessor(GuardedApp.class, settings, new String[0]).process();
    try (Stream<Path> files = Files.walk(out.resolve("sources"))) {
      assertThat(files.map(Path::toString)).anyMatch(p -> p.endsWith("GuardedApp__BeanFactoryRegistrations.java"));
    }
  }
}
