package io.github.cuckooguard.boot;

import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.KeySink;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.util.ClassUtils;

/**
 * The {@code cuckooguard.cache.<name>.*} settings, checked when this object is made: an unknown
 * setting or a bad value fails the start with the key and the accepted names. Immutable.
 */
final class CacheGuardSettings {

  static final String PREFIX = CuckooGuardProperties.PREFIX + ".cache.";
  static final String FUNNEL = "funnel";

  private final Map<String, Map<String, String>> caches;

  CacheGuardSettings(CuckooGuardProperties properties) {
    this.caches = Map.copyOf(properties.getCache());
    caches.keySet().forEach(this::spec);
  }

  /** The names of the caches that have settings. */
  Set<String> cacheNames() {
    return caches.keySet();
  }

  /** Adds every setting to JCache cache manager properties, as cuckoo-guard-jcache reads them. */
  void addTo(Properties managerProperties) {
    caches.forEach(
        (cache, settings) ->
            settings.forEach((k, v) -> managerProperties.setProperty(PREFIX + cache + "." + k, v)));
  }

  /** The guard settings of {@code cache}. */
  GuardSpec spec(String cache) {
    String prefix = PREFIX + cache + ".";
    Map<String, String> prefixed = new LinkedHashMap<>();
    caches.getOrDefault(cache, Map.of()).forEach((k, v) -> prefixed.put(prefix + k, v));
    try {
      return GuardSpec.parse(prefixed, prefix, Set.of(FUNNEL));
    } catch (IllegalArgumentException ex) {
      throw new CuckooGuardPropertyException(String.valueOf(ex.getMessage()), ex);
    }
  }

  /** The funnel of {@code cache}: its {@code funnel} setting, or {@link ObjectKeyFunnel}. */
  @SuppressWarnings("unchecked")
  Funnel<Object> funnel(String cache, @Nullable ClassLoader classLoader) {
    String className = null;
    for (Map.Entry<String, String> e : caches.getOrDefault(cache, Map.of()).entrySet()) {
      if (e.getKey().replace("-", "").replace("_", "").toLowerCase(Locale.ROOT).equals(FUNNEL)) {
        className = e.getValue().trim();
      }
    }
    if (className == null) {
      return ObjectKeyFunnel.INSTANCE;
    }
    String key = PREFIX + cache + "." + FUNNEL;
    try {
      Class<?> type = ClassUtils.forName(className, classLoader);
      if (!Funnel.class.isAssignableFrom(type)) {
        throw new CuckooGuardPropertyException(
            key + " (" + className + ") does not implement " + Funnel.class.getName());
      }
      return (Funnel<Object>) BeanUtils.instantiateClass(type);
    } catch (ClassNotFoundException | LinkageError ex) {
      throw new CuckooGuardPropertyException(
          key + " (" + className + ") is not a class on the class path", ex);
    }
  }

  /**
   * Keys of Spring caches (any type; Caffeine compares them with {@code equals}): equal keys must
   * funnel equal bytes, so String, Long, Integer and UUID by value, anything else by {@code
   * hashCode()}, which {@code equals} agrees with. Equal hash codes share a fingerprint: a false
   * positive, never a false negative. The guard lives in one JVM, so per-process hash codes are
   * harmless.
   */
  enum ObjectKeyFunnel implements Funnel<Object> {
    INSTANCE;

    @Override
    public void funnel(Object key, KeySink sink) {
      if (key instanceof String s) {
        sink.putString(s);
      } else if (key instanceof Long l) {
        sink.putLong(l);
      } else if (key instanceof Integer i) {
        sink.putInt(i);
      } else if (key instanceof UUID u) {
        sink.putUUID(u);
      } else {
        sink.putInt(key.hashCode());
      }
    }

    @Override
    public String id() {
      return "spring-cache-object-v1";
    }
  }
}
