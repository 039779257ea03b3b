package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.boot.app.GuardedApp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplicationAotProcessor;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.aot.AbstractAotProcessor;

/**
 * Spring AOT processing (what {@code spring-boot:process-aot} and a native build run) of a Boot
 * application with the starter, an entity guard and a guard declared with
 * {@code @CuckooGuarded(name = "books")} succeeds, writes the declared guard as code, and builds no
 * guard: no key scan, no warm-up, no WARN; the reflection metadata it writes names the classes the
 * starter and the guards look up at run time.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AotProcessingTest {

  @Test
  void aotProcessingWritesTheGuardsAsCodeAndStartsNoWarmUp(@TempDir Path out, CapturedOutput output)
      throws Exception {
    // Guards of contexts that other tests in this JVM closed may still be ending their warm-up on
    // their own threads ("cuckoo-guard-<name>-N"), and log that they failed after this test began:
    // wait for them (15 s at most), then read only what was logged from here on.
    long quietBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (otherGuardThreadsAlive() && System.nanoTime() - quietBy < 0) {
      Thread.sleep(20);
    }
    int outFrom = output.getOut().length();
    int errFrom = output.getErr().length();
    AbstractAotProcessor.Settings settings =
        AbstractAotProcessor.Settings.builder()
            .sourceOutput(out.resolve("sources"))
            .resourceOutput(out.resolve("resources"))
            .classOutput(out.resolve("classes"))
            .groupId("io.github.cuckooguard")
            .artifactId("aot-sample")
            .build();
    new SpringApplicationAotProcessor(GuardedApp.class, settings, new String[0]).process();

    List<Path> sources;
    try (Stream<Path> files = Files.walk(out.resolve("sources"))) {
      sources = files.filter(p -> p.toString().endsWith(".java")).collect(Collectors.toList());
    }
    assertThat(sources).anyMatch(p -> p.endsWith("GuardedApp__BeanFactoryRegistrations.java"));
    StringBuilder code = new StringBuilder();
    for (Path p : sources) {
      code.append(Files.readString(p, StandardCharsets.UTF_8));
    }
    assertThat(code)
        .as("the declared guard 'books' is registered by generated code")
        .contains("DeclaredGuardFactoryBean")
        .contains("\"books\"")
        .contains("\"bookKeys\"");

    StringBuilder metadata = new StringBuilder();
    try (Stream<Path> files = Files.walk(out.resolve("resources"))) {
      for (Path p : files.filter(f -> f.toString().endsWith(".json")).toList()) {
        metadata.append(Files.readString(p, StandardCharsets.UTF_8));
      }
    }
    assertThat(metadata)
        .as("the classes the starter checks for by name are in the reflection metadata")
        .contains("io.github.cuckooguard.hibernate.HibernateCuckooGuards")
        .contains("jakarta.persistence.EntityManagerFactory");
    assertThat(metadata)
        .as("the pointcut reads the guard annotations of the guarded class")
        .contains("io.github.cuckooguard.boot.app.BookStore");

    String log = output.getOut().substring(outFrom) + output.getErr().substring(errFrom);
    assertThat(log)
        .as("no warm-up or scan during AOT processing")
        .doesNotContain("warm-up")
        .doesNotContain("Warm-up")
        .doesNotContain("scan");
    assertThat(log.lines().filter(l -> l.startsWith("WARN") || l.startsWith("ERROR")))
        .as("nothing logged at WARN or ERROR during AOT processing")
        .isEmpty();
  }

  /** A guard's rebuild or warm-up thread (not a Hazelcast group's lease thread) is running. */
  private static boolean otherGuardThreadsAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(
            t ->
                t.isAlive()
                    && t.getName().startsWith("cuckoo-guard-")
                    && !t.getName().startsWith("cuckoo-guard-lease-"));
  }
}
