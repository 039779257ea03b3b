package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.spring.jdbc.JdbcUserRepository;
import io.github.cuckooguard.spring.jdbc.User;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;

/**
 * Spring AOT processing of a context with {@code @EnableCuckooGuard} and a guarded class-based
 * repository registers the reflection a native image needs: invocation of the {@code
 * GuardKeySource} method (the key scan), introspection of the repository's methods (where the
 * pointcut reads the guard annotations) and the public methods of the argument type a key
 * expression reads ({@code #user.id}). No bean is created: AOT processing only reads definitions.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AotHintsTest {

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard
  @Import(JdbcUserRepository.class)
  static class GuardedRepositoryConfig {}

  private static RuntimeHints process(Class<?> config) {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context.register(config);
      DefaultGenerationContext generation =
          new DefaultGenerationContext(
              new ClassNameGenerator(ClassName.get(AotHintsTest.class)),
              new InMemoryGeneratedFiles());
      new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
      return generation.getRuntimeHints();
    }
  }

  @Test
  void aotProcessingRegistersTheReflectionTheGuardsUse() {
    RuntimeHints hints = process(GuardedRepositoryConfig.class);
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(JdbcUserRepository.class, "allIds"))
        .as("the @GuardKeySource method is invoked reflectively by the key scan")
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(JdbcUserRepository.class))
        .as("the pointcut reads the annotations of the repository's methods")
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(User.class, "id"))
        .as("the key expression #user.id reads the argument's accessor")
        .accepts(hints);
  }
}
