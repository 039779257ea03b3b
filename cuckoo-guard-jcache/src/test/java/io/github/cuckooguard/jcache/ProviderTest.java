package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How the wrapping provider finds its delegate, hands out managers and reads guard settings. */
class ProviderTest {

  private static final String CAFFEINE = CaffeineCachingProvider.class.getName();

  private GuardedCachingProvider provider;

  @AfterEach
  void tearDown() {
    System.clearProperty(GuardSettings.DELEGATE);
    System.clearProperty("cuckooguard.fpp");
    if (provider != null) {
      provider.close();
    }
  }

  private static MutableConfiguration<Long, String> config() {
    return new MutableConfiguration<Long, String>().setTypes(Long.class, String.class);
  }

  @Test
  void withSeveralRegisteredProvidersTheDelegateMustBeNamed() {
    // this class path registers Caffeine's, Ehcache's and Hazelcast's providers
    assertThatThrownBy(GuardedCachingProvider::new)
        .isInstanceOf(CacheException.class)
        .hasMessageContaining(GuardSettings.DELEGATE)
        .hasMessageContaining(CAFFEINE)
        .hasMessageContaining("org.ehcache.jsr107.EhcacheCachingProvider");
  }

  @Test
  void theSystemPropertyNamesTheDelegateAndCachingSelectsTheWrapperByClassName() throws Exception {
    System.setProperty(GuardSettings.DELEGATE, CAFFEINE);
    try (URLClassLoader loader = new URLClassLoader(new URL[0], getClass().getClassLoader())) {
      CachingProvider selected =
          Caching.getCachingProvider(GuardedCachingProvider.class.getName(), loader);

      assertThat(selected).isInstanceOf(GuardedCachingProvider.class);
      assertThat(((GuardedCachingProvider) selected).delegate())
          .isInstanceOf(CaffeineCachingProvider.class);
      CacheManager manager = selected.getCacheManager(selected.getDefaultURI(), loader);
      assertThat(manager.createCache("selected", config())).isInstanceOf(GuardedCache.class);
      selected.close();
    }
  }

  @Test
  void aDelegateThatCannotBeUsedIsReportedWithWhatToSet() {
    System.setProperty(GuardSettings.DELEGATE, GuardedCachingProvider.class.getName());
    assertThatThrownBy(GuardedCachingProvider::new)
        .isInstanceOf(CacheException.class)
        .hasMessageContaining("names the guarded provider itself");
    System.setProperty(GuardSettings.DELEGATE, String.class.getName());
    assertThatThrownBy(GuardedCachingProvider::new)
        .isInstanceOf(CacheException.class)
        .hasMessageContaining("is not a javax.cache.spi.CachingProvider");
    System.setProperty(GuardSettings.DELEGATE, "com.example.NoSuchProvider");
    assertThatThrownBy(GuardedCachingProvider::new)
        .isInstanceOf(CacheException.class)
        .hasMessageContaining("com.example.NoSuchProvider");
    assertThatThrownBy(
            () ->
                new GuardedCachingProvider(
                    new GuardedCachingProvider(new CaffeineCachingProvider())))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void oneManagerPerUriAndClassLoaderUntilClosed() throws Exception {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    URI uri = provider.getDefaultURI();
    ClassLoader loader = provider.getDefaultClassLoader();
    GuardedCacheManager manager = provider.getCacheManager();

    assertThat(provider.getCacheManager(uri, loader)).isSameAs(manager);
    assertThat(provider.getCacheManager(null, null, null)).isSameAs(manager);
    assertThat(manager.getCachingProvider()).isSameAs(provider);
    assertThat(manager.getURI()).isEqualTo(uri);
    try (URLClassLoader other = new URLClassLoader(new URL[0], loader)) {
      GuardedCacheManager otherManager = provider.getCacheManager(uri, other);
      assertThat(otherManager).isNotSameAs(manager);
      provider.close(uri, other);
      assertThat(otherManager.isClosed()).isTrue();
      assertThat(manager.isClosed()).isFalse();
    }
    manager.close();
    assertThat(provider.getCacheManager()).isNotSameAs(manager);
  }

  @Test
  void guardSettingsComeFromManagerPropertiesPerCacheThenForAllThenSystemProperties() {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.cache.big.expected-insertions", "200000");
    properties.setProperty("cuckooguard.expectedInsertions", "1000"); // camelCase is read too
    System.setProperty("cuckooguard.fpp", "0.001");
    CacheManager manager =
        provider.getCacheManager(
            provider.getDefaultURI(), provider.getDefaultClassLoader(), properties);

    long big = ((GuardedCache<?, ?>) manager.createCache("big", config())).stats().sizeInBytes();
    long small =
        ((GuardedCache<?, ?>) manager.createCache("small", config())).stats().sizeInBytes();
    System.clearProperty("cuckooguard.fpp");
    long coarse =
        ((GuardedCache<?, ?>) manager.createCache("coarse", config())).stats().sizeInBytes();

    assertThat(big).as("200,000 entries vs 1,000").isGreaterThan(100 * small);
    assertThat(small).as("fpp 0.001 vs the default 0.01").isGreaterThan(coarse);
  }

  @Test
  void theFormerCapacityNameIsStillRead() {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    Properties old = new Properties();
    old.setProperty("cuckooguard.expected-entries", "200000");
    Properties current = new Properties();
    current.setProperty("cuckooguard.expected-insertions", "200000");

    long viaOld =
        ((GuardedCache<?, ?>)
                provider.getCacheManager(URI.create("old"), null, old).createCache("c", config()))
            .stats()
            .sizeInBytes();
    long viaNew =
        ((GuardedCache<?, ?>)
                provider
                    .getCacheManager(URI.create("new"), null, current)
                    .createCache("c", config()))
            .stats()
            .sizeInBytes();

    assertThat(viaOld).isEqualTo(viaNew);
  }

  @Test
  void aBadSettingNamesThePropertyWhereItWasFoundTheValueAndTheRange() {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.cache.c.fpp", "1.5");
    properties.setProperty("cuckooguard.expected-insertions", "lots");
    CacheManager manager =
        provider.getCacheManager(
            provider.getDefaultURI(), provider.getDefaultClassLoader(), properties);

    assertThatThrownBy(() -> manager.createCache("c", config()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cuckooguard.cache.c.fpp: fpp (1.5) must be in (0, 1)")
        .hasMessageContaining("(cache manager property)");
    properties.setProperty("cuckooguard.cache.c.fpp", "0.00001");
    assertThatThrownBy(() -> manager.createCache("c", config()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "cuckooguard.expected-insertions (lots) is not a number (cache manager property)");
    properties.setProperty("cuckooguard.expected-insertions", "5000");
    assertThatThrownBy(() -> manager.createCache("c", config()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "The guard of cache 'c' cannot be built with GuardSpec[expectedInsertions=5000, fpp=1.0E-5");
    properties.setProperty("cuckooguard.cache.c.fpp", "0.01");
    properties.setProperty("cuckooguard.funnel", "com.example.NoSuchFunnel");
    assertThatThrownBy(() -> manager.createCache("c", config()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("com.example.NoSuchFunnel");
    assertThat(manager.getCache("c")).as("nothing was created").isNull();
  }

  @Test
  void anUnknownSettingUnderThePrefixFailsWithTheAcceptedNames() {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.cache.c.fpq", "0.1");
    CacheManager manager =
        provider.getCacheManager(
            provider.getDefaultURI(), provider.getDefaultClassLoader(), properties);

    assertThatThrownBy(() -> manager.createCache("c", config()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown setting cuckooguard.cache.c.fpq=0.1")
        .hasMessageContaining("expected-insertions")
        .hasMessageContaining("fingerprint-bits")
        .hasMessageContaining("funnel");
    assertThat(manager.createCache("other.cache", config()))
        .as("settings of cache c do not concern others")
        .isNotNull();
  }

  @Test
  void theFunnelPropertyChoosesHowKeysAreHashed() {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.cache.funnelled.funnel", CountingFunnel.class.getName());
    CacheManager manager =
        provider.getCacheManager(
            provider.getDefaultURI(), provider.getDefaultClassLoader(), properties);
    Cache<Long, String> cache = manager.createCache("funnelled", config());
    int before = CountingFunnel.CALLS.get();

    cache.put(1L, "one");
    cache.get(2L);

    assertThat(CountingFunnel.CALLS.get() - before).isGreaterThanOrEqualTo(2);
  }

  /** A funnel that counts its calls. */
  public static final class CountingFunnel implements Funnel<Object> {
    static final AtomicInteger CALLS = new AtomicInteger();

    @Override
    public void funnel(Object key, KeySink sink) {
      CALLS.incrementAndGet();
      sink.putInt(key.hashCode());
    }
  }
}
