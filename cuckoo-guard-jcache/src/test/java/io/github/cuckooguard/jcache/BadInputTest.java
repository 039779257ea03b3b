package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.processor.EntryProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Null arguments throw {@link NullPointerException} and a closed cache throws {@link
 * IllegalStateException}, as JSR-107 requires, also on the paths the guard answers without the
 * provider; and a rejected call changes neither the cache nor the guard.
 */
class BadInputTest {

  private static final String VALUE = "v";
  private static final EntryProcessor<Long, String, Object> READ =
      (entry, args) -> entry.getValue();

  private GuardedCachingProvider provider;
  private GuardedCache<Long, String> cache;
  private long absent;

  @BeforeEach
  void setUp() {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    cache =
        (GuardedCache<Long, String>)
            provider
                .getCacheManager()
                .createCache(
                    "bad-input",
                    new MutableConfiguration<Long, String>().setTypes(Long.class, String.class));
    for (long k = 0; k < 10; k++) {
      cache.put(k, VALUE);
    }
    absent =
        LongStream.range(1_000, 2_000)
            .filter(k -> !cache.mightContain(k))
            .findFirst()
            .orElseThrow();
  }

  @AfterEach
  void tearDown() {
    provider.close();
  }

  /** Every call that takes a key, with {@code key} and otherwise valid arguments. */
  private Map<String, Consumer<Long>> callsWithKey() {
    Map<String, Consumer<Long>> calls = new LinkedHashMap<>();
    calls.put("get", k -> cache.get(k));
    calls.put("getAll", k -> cache.getAll(Set.of(k)));
    calls.put("containsKey", k -> cache.containsKey(k));
    calls.put("loadAll", k -> cache.loadAll(Set.of(k), false, null));
    calls.put("put", k -> cache.put(k, VALUE));
    calls.put("getAndPut", k -> cache.getAndPut(k, VALUE));
    calls.put("putAll", k -> cache.putAll(Map.of(k, VALUE)));
    calls.put("putIfAbsent", k -> cache.putIfAbsent(k, VALUE));
    calls.put("remove", k -> cache.remove(k));
    calls.put("remove2", k -> cache.remove(k, VALUE));
    calls.put("getAndRemove", k -> cache.getAndRemove(k));
    calls.put("replace2", k -> cache.replace(k, VALUE));
    calls.put("replace3", k -> cache.replace(k, VALUE, VALUE));
    calls.put("getAndReplace", k -> cache.getAndReplace(k, VALUE));
    calls.put("removeAll", k -> cache.removeAll(Set.of(k)));
    calls.put("invoke", k -> cache.invoke(k, READ));
    calls.put("invokeAll", k -> cache.invokeAll(Set.of(k), READ));
    return calls;
  }

  @Test
  void nullKeysThrowNullPointerExceptionAndChangeNothing() {
    Map<String, Consumer<Long>> calls = callsWithKey();
    for (var call : calls.entrySet()) {
      assertThatThrownBy(() -> call.getValue().accept(null))
          .as(call.getKey())
          .isInstanceOf(NullPointerException.class);
    }
    assertUnchanged();
  }

  @Test
  void nullValuesAndArgumentsThrowNullPointerExceptionAndChangeNothing() {
    Map<Long, String> nullValue = new HashMap<>();
    nullValue.put(absent, null);
    Set<Long> nullKey = new HashSet<>();
    nullKey.add(null);
    for (long key : new long[] {1L, absent}) {
      Map<String, Runnable> calls = new LinkedHashMap<>();
      calls.put("put", () -> cache.put(key, null));
      calls.put("getAndPut", () -> cache.getAndPut(key, null));
      calls.put("putIfAbsent", () -> cache.putIfAbsent(key, null));
      calls.put("putAll", () -> cache.putAll(nullValue));
      calls.put("remove2", () -> cache.remove(key, null));
      calls.put("replace2", () -> cache.replace(key, null));
      calls.put("replace3 old", () -> cache.replace(key, null, VALUE));
      calls.put("replace3 new", () -> cache.replace(key, VALUE, null));
      calls.put("getAndReplace", () -> cache.getAndReplace(key, null));
      calls.put("invoke", () -> cache.invoke(key, null));
      calls.put("invokeAll processor", () -> cache.invokeAll(Set.of(key), null));
      calls.put("getAll set", () -> cache.getAll(null));
      calls.put("getAll element", () -> cache.getAll(nullKey));
      calls.put("removeAll set", () -> cache.removeAll(null));
      calls.put("removeAll element", () -> cache.removeAll(nullKey));
      calls.put("invokeAll set", () -> cache.invokeAll(null, READ));
      calls.put("invokeAll element", () -> cache.invokeAll(nullKey, READ));
      calls.put("loadAll set", () -> cache.loadAll(null, false, null));
      calls.put("putAll map", () -> cache.putAll(null));
      for (var call : calls.entrySet()) {
        assertThatThrownBy(call.getValue()::run)
            .as(call.getKey() + " on key " + key)
            .isInstanceOf(NullPointerException.class);
      }
    }
    assertUnchanged();
  }

  @Test
  void aClosedCacheThrowsIllegalStateExceptionAlsoWhereTheGuardWouldAnswer() {
    Cache<Long, String> raw =
        provider.delegate().getCacheManager().getCache("bad-input", Long.class, String.class);
    cache.close();
    assertThat(cache.isClosed()).isTrue();
    assertThat(raw.isClosed()).isTrue();
    for (long key : new long[] {1L, absent}) {
      for (var call : callsWithKey().entrySet()) {
        assertThatThrownBy(() -> call.getValue().accept(key))
            .as(call.getKey() + " on key " + key)
            .isInstanceOf(IllegalStateException.class);
      }
    }
    assertThatThrownBy(cache::clear).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(cache::removeAll).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(cache::iterator).isInstanceOf(IllegalStateException.class);
    assertThat(provider.getCacheManager().getCache("bad-input")).isNull();
  }

  private void assertUnchanged() {
    Map<Long, String> expected = new HashMap<>();
    for (long k = 0; k < 10; k++) {
      expected.put(k, VALUE);
    }
    Map<Long, String> actual = new HashMap<>();
    cache.forEach(e -> actual.put(e.getKey(), e.getValue()));
    assertThat(actual).isEqualTo(expected);
    assertThat(cache.stats().size()).isEqualTo(10);
    assertThat(cache.mightContain(absent)).isFalse();
    assertThat(Collections.frequency(actual.values(), VALUE)).isEqualTo(10);
  }
}
