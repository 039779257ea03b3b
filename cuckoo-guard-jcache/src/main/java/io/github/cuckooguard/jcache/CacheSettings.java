package io.github.cuckooguard.jcache;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import io.github.cuckooguard.jcache.internal.CacheGuard;
import io.github.cuckooguard.jcache.internal.GroupSettings;
import io.github.cuckooguard.jcache.internal.ObjectFunnel;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The guard settings of one cache, read from properties by the rules of {@link GuardSettings}: four
 * layers (per cache, then for all caches; each in the manager's properties, then in the system
 * properties), each checked by {@link GuardSpec#parse}, then merged setting by setting.
 */
record CacheSettings(
    GuardSpec spec,
    Funnel<Object> funnel,
    boolean cluster,
    @Nullable Duration clusterLease,
    int clusterMinimumMembers) {

  private static final Logger LOGGER = System.getLogger(CacheSettings.class.getName());

  /** Names under the prefixes that this adapter reads itself (after the prefix). */
  @SuppressWarnings("deprecation")
  private static final Set<String> ADAPTER_NAMES =
      Set.of(
          GuardSettings.FUNNEL,
          GuardSettings.EXPECTED_ENTRIES,
          "delegate",
          GuardSettings.CLUSTER,
          GuardSettings.CLUSTER_LEASE,
          GuardSettings.CLUSTER_MINIMUM_MEMBERS);

  /** One layer: the settings found under one prefix in one set of properties. */
  private record Layer(String prefix, String source, Map<String, String> settings) {}

  static CacheSettings resolve(
      String cacheName, @Nullable Properties properties, @Nullable ClassLoader classLoader) {
    Properties manager = properties != null ? properties : new Properties();
    Properties system = System.getProperties();
    String perCache = GuardSettings.CACHE_PREFIX + cacheName + ".";
    List<Layer> layers =
        List.of(
            layer(perCache, manager, "cache manager property"),
            layer(perCache, system, "system property"),
            layer(GuardSettings.PREFIX, manager, "cache manager property"),
            layer(GuardSettings.PREFIX, system, "system property"));
    Map<String, String> merged =
        new LinkedHashMap<>(); // canonical name -> value; the first layer wins
    String funnel = null;
    String funnelName = null;
    Map<String, String[]> adapter = new HashMap<>(); // canonical -> value, property, source
    for (Layer layer : layers) {
      check(layer);
      for (Map.Entry<String, String> e : layer.settings().entrySet()) {
        String name = e.getKey().substring(layer.prefix().length());
        String canonical = canonical(name);
        if (canonical.equals("delegate")) {
          continue;
        }
        if (canonical.equals(canonical(GuardSettings.FUNNEL))) {
          if (funnel == null) {
            funnel = e.getValue();
            funnelName = e.getKey() + " (" + layer.source() + ")";
          }
          continue;
        }
        if (canonical.equals(canonical(GuardSettings.CLUSTER))
            || canonical.equals(canonical(GuardSettings.CLUSTER_LEASE))
            || canonical.equals(canonical(GuardSettings.CLUSTER_MINIMUM_MEMBERS))) {
          adapter.putIfAbsent(canonical, new String[] {e.getValue(), e.getKey(), layer.source()});
          continue;
        }
        if (canonical.equals("expectedentries")) {
          LOGGER.log(
              Level.WARNING,
              e.getKey()
                  + " is deprecated; use "
                  + layer.prefix()
                  + GuardSettings.EXPECTED_INSERTIONS);
          canonical = "expectedinsertions";
        }
        merged.putIfAbsent(canonical, e.getValue());
      }
    }
    return new CacheSettings(
        GuardSpec.parse(merged, "", Set.of()),
        funnel == null || funnelName == null
            ? ObjectFunnel.INSTANCE
            : loadFunnel(funnelName, funnel, classLoader),
        cluster(adapter.get(canonical(GuardSettings.CLUSTER))),
        lease(adapter.get(canonical(GuardSettings.CLUSTER_LEASE))),
        minimumMembers(adapter.get(canonical(GuardSettings.CLUSTER_MINIMUM_MEMBERS))));
  }

  /** The group settings for {@link GuardedCache#wrapExisting}, or null without a group. */
  @Nullable GroupSettings group() {
    return cluster ? new GroupSettings(clusterLease, clusterMinimumMembers) : null;
  }

  private static int minimumMembers(String @Nullable [] setting) {
    if (setting == null) {
      return GuardSettings.DEFAULT_CLUSTER_MINIMUM_MEMBERS;
    }
    int members;
    try {
      members = Integer.parseInt(setting[0].trim());
    } catch (NumberFormatException e) {
      members = -1;
    }
    if (members < GuardSettings.MIN_CLUSTER_MINIMUM_MEMBERS
        || members > GuardSettings.MAX_CLUSTER_MINIMUM_MEMBERS) {
      throw new IllegalArgumentException(
          setting[1]
              + " ("
              + setting[2]
              + ") must be a whole number of members in ["
              + GuardSettings.MIN_CLUSTER_MINIMUM_MEMBERS
              + ", "
              + GuardSettings.MAX_CLUSTER_MINIMUM_MEMBERS
              + "] (a majority of the cluster), not '"
              + setting[0]
              + "'");
    }
    return members;
  }

  private static boolean cluster(String @Nullable [] setting) {
    if (setting == null) {
      return GuardSettings.DEFAULT_CLUSTER;
    }
    String value = setting[0].trim().toLowerCase(Locale.ROOT);
    if (!value.equals("true") && !value.equals("false")) {
      throw new IllegalArgumentException(
          setting[1] + " (" + setting[2] + ") must be true or false, not '" + setting[0] + "'");
    }
    return Boolean.parseBoolean(value);
  }

  private static @Nullable Duration lease(String @Nullable [] setting) {
    if (setting == null) {
      return null;
    }
    long millis;
    try {
      millis = Long.parseLong(setting[0].trim());
    } catch (NumberFormatException e) {
      millis = -1;
    }
    if (millis < HazelcastGuardGroup.MIN_LEASE_MILLIS) {
      throw new IllegalArgumentException(
          setting[1]
              + " ("
              + setting[2]
              + ") must be a number of milliseconds, at least "
              + HazelcastGuardGroup.MIN_LEASE_MILLIS
              + ", not '"
              + setting[0]
              + "'");
    }
    return Duration.ofMillis(millis);
  }

  /**
   * The guard for a cache with these settings.
   *
   * @throws IllegalArgumentException if the filter cannot be built with these settings (e.g. an fpp
   *     below what the widest fingerprints reach); the message names the cache and settings
   */
  <K> CacheGuard<K> newGuard(String cacheName, boolean eventsBeforeReturn) {
    CuckooGuard.Builder<K> builder =
        CuckooGuard.<K>newBuilder(funnel).spec(spec).name("jcache:" + cacheName);
    try {
      return new CacheGuard<>(builder, eventsBeforeReturn);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "The guard of cache '"
              + cacheName
              + "' cannot be built with "
              + spec
              + ": "
              + e.getMessage()
              + "; change the "
              + GuardSettings.PREFIX
              + "* properties (see GuardSettings)",
          e);
    }
  }

  /** The settings of {@code properties} under {@code prefix}: names without a further dot. */
  private static Layer layer(String prefix, Properties properties, String source) {
    Map<String, String> settings = new HashMap<>();
    for (String key : properties.stringPropertyNames()) {
      if (key.startsWith(prefix) && key.indexOf('.', prefix.length()) < 0) {
        settings.put(key, properties.getProperty(key));
      }
    }
    return new Layer(prefix, source, settings);
  }

  /**
   * Rejects unknown names and bad values of one layer, naming the property and where it was found.
   */
  private static void check(Layer layer) {
    try {
      GuardSpec.parse(layer.settings(), layer.prefix(), ADAPTER_NAMES);
      for (Map.Entry<String, String> e : layer.settings().entrySet()) {
        if (canonical(e.getKey().substring(layer.prefix().length())).equals("expectedentries")) {
          String asNewName = layer.prefix() + GuardSettings.EXPECTED_INSERTIONS;
          try {
            GuardSpec.parse(Map.of(asNewName, e.getValue()), layer.prefix(), Set.of());
          } catch (IllegalArgumentException bad) {
            throw new IllegalArgumentException(
                String.valueOf(bad.getMessage()).replace(asNewName, e.getKey()), bad);
          }
        }
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (" + layer.source() + ")", e);
    }
  }

  private static String canonical(String name) {
    return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  @SuppressWarnings("unchecked")
  private static Funnel<Object> loadFunnel(
      String name, String value, @Nullable ClassLoader classLoader) {
    String className = value.trim();
    try {
      Class<?> type = Class.forName(className, true, classLoader);
      if (!Funnel.class.isAssignableFrom(type)) {
        throw new IllegalArgumentException(
            name + " (" + className + ") does not implement " + Funnel.class.getName());
      }
      return (Funnel<Object>) type.getConstructor().newInstance();
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(
          name
              + " ("
              + className
              + ") was not found by the cache manager's"
              + " class loader; give the fully qualified name of a Funnel class on the class path",
          e);
    } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
      throw new IllegalArgumentException(
          name + " (" + className + ") needs a public no-argument constructor", e);
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException(
          name + " (" + className + "): the constructor threw " + e.getCause(), e);
    }
  }
}
