package io.github.cuckooguard.jcache;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.jcache.internal.ObjectFunnel;
import java.lang.reflect.InvocationTargetException;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * The guard settings of one cache, read from properties by the rules of {@link GuardSettings}.
 */
record CacheSettings(long expectedEntries, double fpp, Funnel<Object> funnel) {

  static CacheSettings resolve(String cacheName, Properties properties, @Nullable ClassLoader classLoader) {
    String expected = lookup(cacheName, GuardSettings.EXPECTED_ENTRIES, properties);
    String fpp = lookup(cacheName, GuardSettings.FPP, properties);
    String funnel = lookup(cacheName, GuardSettings.FUNNEL, properties);
    return new CacheSettings(
        expected == null ? GuardSettings.DEFAULT_EXPECTED_ENTRIES : parseExpected(cacheName, expected),
        fpp == null ? GuardSettings.DEFAULT_FPP : parseFpp(cacheName, fpp),
        funnel == null ? ObjectFunnel.INSTANCE : loadFunnel(cacheName, funnel.trim(), classLoader));
  }

  /** A guard builder for a cache with these settings (the key source is added by the tracker). */
  <K> CuckooGuard.Builder<K> guardBuilder(String cacheName) {
    return CuckooGuard.<K>newBuilder(funnel)
        .expectedInsertions(expectedEntries)
        .fpp(fpp)
        .name("jcache:" + cacheName);
  }

  private static @Nullable String lookup(String cacheName, String setting, Properties properties) {
    String perCache = GuardSettings.CACHE_PREFIX + cacheName + "." + setting;
    String global = GuardSettings.PREFIX + setting;
    for (String name : new String[] {perCache, global}) {
      String value = properties.getProperty(name);
      if (value == null) {
        value = System.getProperty(name);
      }
      if (value != null) {
        return value;
      }
    }
    return null;
  }

  private static String propertyName(String cacheName, String setting) {
    return GuardSettings.PREFIX + setting + " (or " + GuardSettings.CACHE_PREFIX + cacheName + "." + setting + ")";
  }

  private static long parseExpected(String cacheName, String value) {
    String name = propertyName(cacheName, GuardSettings.EXPECTED_ENTRIES);
    try {
      return GuardSettings.checkExpectedEntries(Long.parseLong(value.trim()), name);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " (" + value + ") must be a positive integer, e.g. 100000", e);
    }
  }

  private static double parseFpp(String cacheName, String value) {
    String name = propertyName(cacheName, GuardSettings.FPP);
    try {
      return GuardSettings.checkFpp(Double.parseDouble(value.trim()), name);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " (" + value + ") must be a number in (0, 1), e.g. 0.01", e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Funnel<Object> loadFunnel(String cacheName, String className, @Nullable ClassLoader classLoader) {
    String name = propertyName(cacheName, GuardSettings.FUNNEL);
    try {
      Class<?> type = Class.forName(className, true, classLoader);
      if (!Funnel.class.isAssignableFrom(type)) {
        throw new IllegalArgumentException(name + " (" + className + ") does not implement " + Funnel.class.getName());
      }
      return (Funnel<Object>) type.getConstructor().newInstance();
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(name + " (" + className + ") was not found by the cache manager's"
          + " class loader; give the fully qualified name of a Funnel class on the class path", e);
    } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
      throw new IllegalArgumentException(name + " (" + className + ") needs a public no-argument constructor", e);
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException(name + " (" + className + "): the constructor threw " + e.getCause(), e);
    }
  }
}
