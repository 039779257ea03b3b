package io.github.cuckooguard.jcache;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.jcache.internal.CacheTracker;
import io.github.cuckooguard.jcache.internal.ObjectFunnel;
import java.lang.reflect.InvocationTargetException;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * The guard settings of one cache, read from properties by the rules of {@link GuardSettings}.
 */
record CacheSettings(long expectedEntries, double fpp, Funnel<Object> funnel) {

  /** A property that was set: its name, where it was found, and its value. */
  private record Setting(String name, String value) {}

  static CacheSettings resolve(String cacheName, Properties properties, @Nullable ClassLoader classLoader) {
    Setting expected = lookup(cacheName, GuardSettings.EXPECTED_ENTRIES, properties);
    Setting fpp = lookup(cacheName, GuardSettings.FPP, properties);
    Setting funnel = lookup(cacheName, GuardSettings.FUNNEL, properties);
    return new CacheSettings(
        expected == null ? GuardSettings.DEFAULT_EXPECTED_ENTRIES : parseExpected(expected),
        fpp == null ? GuardSettings.DEFAULT_FPP : parseFpp(fpp),
        funnel == null ? ObjectFunnel.INSTANCE : loadFunnel(funnel, classLoader));
  }

  /**
   * A tracker, with its guard, for a cache with these settings.
   *
   * @throws IllegalArgumentException if the filter cannot be built with these settings (e.g. an
   *     fpp below what the widest fingerprints reach); the message names the cache and settings
   */
  <K> CacheTracker<K> newTracker(String cacheName) {
    CuckooGuard.Builder<K> builder = CuckooGuard.<K>newBuilder(funnel)
        .expectedInsertions(expectedEntries)
        .fpp(fpp)
        .name("jcache:" + cacheName);
    try {
      return new CacheTracker<>(builder);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("The guard of cache '" + cacheName + "' cannot be built with "
          + GuardSettings.EXPECTED_ENTRIES + "=" + expectedEntries + " and " + GuardSettings.FPP + "=" + fpp + ": "
          + e.getMessage() + "; change the " + GuardSettings.PREFIX + "* properties (see GuardSettings)", e);
    }
  }

  private static @Nullable Setting lookup(String cacheName, String setting, Properties properties) {
    String perCache = GuardSettings.CACHE_PREFIX + cacheName + "." + setting;
    String global = GuardSettings.PREFIX + setting;
    for (String name : new String[] {perCache, global}) {
      String value = properties.getProperty(name);
      if (value != null) {
        return new Setting(name + " (cache manager property)", value);
      }
      value = System.getProperty(name);
      if (value != null) {
        return new Setting(name + " (system property)", value);
      }
    }
    return null;
  }

  private static long parseExpected(Setting setting) {
    String name = setting.name();
    String value = setting.value();
    try {
      return GuardSettings.checkExpectedEntries(Long.parseLong(value.trim()), name);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " (" + value + ") must be a positive integer, e.g. 100000", e);
    }
  }

  private static double parseFpp(Setting setting) {
    String name = setting.name();
    String value = setting.value();
    try {
      return GuardSettings.checkFpp(Double.parseDouble(value.trim()), name);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " (" + value + ") must be a number in (0, 1), e.g. 0.01", e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Funnel<Object> loadFunnel(Setting setting, @Nullable ClassLoader classLoader) {
    String name = setting.name();
    String className = setting.value().trim();
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
