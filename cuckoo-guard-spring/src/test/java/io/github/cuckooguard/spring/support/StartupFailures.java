package io.github.cuckooguard.spring.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/** The message a failed start of a context gives the user. */
public final class StartupFailures {

  private StartupFailures() {}

  /**
   * The message of the innermost IllegalStateException of a failed start of {@code configuration}.
   */
  public static String startupFailure(Class<?> configuration) {
    return startupFailure(() -> new AnnotationConfigApplicationContext(configuration).close());
  }

  /**
   * The message of the innermost IllegalStateException thrown by {@code start}, which must throw.
   */
  public static String startupFailure(ThrowingCallable start) {
    Throwable[] found = new Throwable[2];
    assertThatThrownBy(start)
        .satisfies(
            ex -> {
              found[1] = ex;
              for (Throwable t = ex; t != null; t = t.getCause()) {
                if (t instanceof IllegalStateException) {
                  found[0] = t;
                }
              }
            });
    assertThat(found[0])
        .as("an IllegalStateException in the cause chain of %s", found[1])
        .isNotNull();
    return found[0].getMessage();
  }
}
