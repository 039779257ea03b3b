package io.github.cuckooguard.jcache.internal;

import com.hazelcast.cache.CacheEventType;
import com.hazelcast.cache.impl.CacheEventData;
import com.hazelcast.cache.impl.CacheEventListener;
import com.hazelcast.cache.impl.CacheEventSet;
import com.hazelcast.cache.impl.CacheProxy;
import com.hazelcast.cache.impl.ICacheService;
import com.hazelcast.spi.impl.NodeEngine;
import java.util.UUID;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * The guard's Created events on a Hazelcast member, taken from Hazelcast's cache event service
 * directly rather than through a JCache listener registration. A JCache listener registered on a
 * Hazelcast cache proxy, synchronous or not, takes part in the proxy's completion latches: a
 * synchronous one can hold a write until Hazelcast's completion timeout (minutes; an update whose
 * expiry is zero, a read-only entry processor, a write whose writer throws), and an asynchronous
 * one counts down the latch of the application's synchronous listeners when it handles its own
 * copy of the event, so a write can return before their listeners ran. A plain
 * {@link CacheEventListener} registered with the cache service does neither: it receives every
 * member's events, asynchronously, and never touches a latch.
 */
final class HazelcastEvents {

  private HazelcastEvents() {}

  /**
   * Registers a listener entering every created key of {@code cache} into {@code guard}.
   *
   * @return what deregisters it, or null if {@code cache} is not a Hazelcast member's cache proxy
   */
  static <K> @Nullable Runnable register(Cache<K, ?> cache, CacheGuard<K> guard) {
    if (!(cache instanceof CacheProxy)) {
      return null;
    }
    CacheProxy<?, ?> proxy = (CacheProxy<?, ?>) cache;
    NodeEngine engine = proxy.getNodeEngine();
    ICacheService service = engine.getService(ICacheService.SERVICE_NAME);
    String name = proxy.getPrefixedName();
    CacheEventListener listener = event -> handle(engine, guard, event);
    UUID id = service.registerListener(name, listener);
    return () -> service.deregisterListener(name, id);
  }

  @SuppressWarnings("unchecked")
  private static <K> void handle(NodeEngine engine, CacheGuard<K> guard, Object event) {
    try {
      if (event instanceof CacheEventSet set) {
        if (set.getEventType() == CacheEventType.CREATED) {
          for (CacheEventData data : set.getEvents()) {
            guard.created((K) engine.getSerializationService().toObject(data.getDataKey()));
          }
        }
      } else if (event instanceof CacheEventData data && data.getCacheEventType() == CacheEventType.CREATED) {
        guard.created((K) engine.getSerializationService().toObject(data.getDataKey()));
      }
    } catch (RuntimeException | Error e) {
      guard.failed("a Hazelcast Created event", e);
    }
  }
}
