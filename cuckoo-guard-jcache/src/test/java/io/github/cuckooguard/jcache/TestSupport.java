package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.fail;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.cache.Cache;

/** Helpers shared by this module's tests. */
final class TestSupport {

  /** Generous: conditions are met within milliseconds; this only bounds a broken run. */
  static final Duration AWAIT_LIMIT = Duration.ofSeconds(30);

  private TestSupport() {}

  /**
   * Waits until {@code condition} holds; fails after {@link #AWAIT_LIMIT}. Not a timing assertion.
   */
  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + AWAIT_LIMIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("gave up waiting until " + what);
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail("interrupted while waiting until " + what);
      }
    }
  }

  /**
   * A real cache seen through a recorder: every call is passed to {@code cache} and counted by
   * method name in {@code calls}, so a test can tell whether a call reached the provider.
   */
  @SuppressWarnings("unchecked")
  static <K, V> Cache<K, V> recording(Cache<K, V> cache, Map<String, AtomicInteger> calls) {
    return (Cache<K, V>)
        Proxy.newProxyInstance(
            Cache.class.getClassLoader(),
            new Class<?>[] {Cache.class},
            (proxy, method, args) -> {
              calls
                  .computeIfAbsent(method.getName(), name -> new AtomicInteger())
                  .incrementAndGet();
              try {
                return method.invoke(cache, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  static Map<String, AtomicInteger> newCallLog() {
    return new ConcurrentHashMap<>();
  }

  static int calls(Map<String, AtomicInteger> log, String method) {
    AtomicInteger n = log.get(method);
    return n == null ? 0 : n.get();
  }
}
