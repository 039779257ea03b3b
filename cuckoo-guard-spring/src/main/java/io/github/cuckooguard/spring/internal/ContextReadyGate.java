package io.github.cuckooguard.spring.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Opens when the application context has been refreshed, so that key scans (the warm-up and every
 * rebuild) run only once the repositories, their data sources and transaction managers are ready.
 *
 * <p>{@link ContextRefreshedEvent} is the right signal with spring-context alone: it is published
 * at the end of {@code refresh()}, after every singleton is created and every {@code Lifecycle}
 * bean started ({@code SmartInitializingSingleton} runs before the lifecycle beans start; {@code
 * ApplicationReadyEvent} belongs to Spring Boot). Only this context's event opens the gate, not a
 * child's; a context closed before it was refreshed fails the waiting scans.
 *
 * <p>Thread-safe.
 */
public final class ContextReadyGate
    implements ApplicationListener<ContextRefreshedEvent>, ApplicationContextAware, DisposableBean {

  private final CompletableFuture<Void> refreshed = new CompletableFuture<>();
  private @Nullable ApplicationContext context;

  @Override
  public void setApplicationContext(ApplicationContext applicationContext) {
    this.context = applicationContext;
  }

  @Override
  public void onApplicationEvent(ContextRefreshedEvent event) {
    if (event.getApplicationContext() == context) {
      refreshed.complete(null);
    }
  }

  @Override
  public void destroy() {
    refreshed.completeExceptionally(
        new IllegalStateException(
            "the application context was closed before it was refreshed; no key scan"));
  }

  /**
   * Blocks until the context has been refreshed.
   *
   * @throws IllegalStateException if it was closed first
   */
  void await() throws InterruptedException {
    try {
      refreshed.get();
    } catch (ExecutionException ex) {
      throw (IllegalStateException) ex.getCause();
    }
  }
}
