package io.github.cuckooguard.spring.support;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/** Real application contexts for tests. */
public final class Contexts {

  private Contexts() {}

  /** Starts a context on the given H2 database (bean "h2Url") and configuration classes. */
  public static AnnotationConfigApplicationContext start(String h2Url, Class<?>... configurations) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.registerBean("h2Url", String.class, () -> h2Url);
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
