package io.github.cuckooguard.spring.support;

import java.util.function.Consumer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/** Real application contexts for tests. */
public final class Contexts {

  private Contexts() {}

  /** Starts a context on the given H2 database (bean "h2Url") and configuration classes. */
  public static AnnotationConfigApplicationContext start(String h2Url, Class<?>... configurations) {
    return start(h2Url, context -> {}, configurations);
  }

  /** As {@link #start(String, Class[])}, registering more beans before the refresh. */
  public static AnnotationConfigApplicationContext start(
      String h2Url, Consumer<GenericApplicationContext> beforeRefresh, Class<?>... configurations) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.registerBean("h2Url", String.class, () -> h2Url);
    beforeRefresh.accept(context);
    context.register(configurations);
    try {
      context.refresh();
    } catch (RuntimeException ex) {
      context.close();
      throw ex;
    }
    return context;
  }
}
