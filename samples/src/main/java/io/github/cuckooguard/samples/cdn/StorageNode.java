package io.github.cuckooguard.samples.cdn;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import io.github.cuckooguard.samples.LoopbackServer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The edge's large tier: a storage node that holds many items for a time to live, reached over HTTP
 * on loopback ({@code GET} and {@code PUT /items/<path>}), so that every probe costs a round trip.
 * Its store is a Caffeine cache; with a guard, the cache is built by {@link CaffeineGuard}, which
 * keeps a cuckoo filter of the cached paths exactly in step with every write, eviction and expiry
 * of the cache.
 *
 * <p>The edge and the node run in one JVM here, so the edge asks the node's guard directly ({@link
 * #guard()}) before it pays for a probe: "definitely not stored" goes straight to the origin.
 */
final class StorageNode implements AutoCloseable {

  /** What the node stores per path: the content, and when the store made it visible. */
  static final class Item {
    final byte[] content;
    volatile long visibleSince;

    Item(byte[] content) {
      this.content = content;
    }
  }

  private final Cache<String, Item> store;
  private final @Nullable CaffeineGuard<String, Item> guard;
  private final LoopbackServer server;

  StorageNode(int capacity, Duration ttl, double fpp, boolean guarded) throws IOException {
    Caffeine<Object, Object> builder =
        Caffeine.newBuilder()
            .maximumSize(capacity)
            .expireAfterWrite(ttl)
            .scheduler(Scheduler.systemScheduler()); // expire on time, not only on the next write
    if (guarded) {
      guard =
          CaffeineGuard.<String, Item>newBuilder(Funnels.stringFunnel())
              .fpp(fpp)
              .name("storage-node")
              .build();
      store = guard.wrap(builder); // the filter is sized from maximumSize
    } else {
      guard = null;
      store = builder.build();
    }
    server =
        LoopbackServer.start(
            "storage-node",
            8,
            exchange -> {
              String path = exchange.getRequestURI().getPath().substring("/items".length());
              if (exchange.getRequestMethod().equals("PUT")) {
                Item item = new Item(LoopbackServer.body(exchange));
                store.put(path, item);
                item.visibleSince = System.nanoTime();
                LoopbackServer.empty(exchange, 204);
              } else {
                Item item = store.getIfPresent(path);
                if (item == null) {
                  LoopbackServer.empty(exchange, 404);
                } else {
                  LoopbackServer.ok(exchange, item.content);
                }
              }
            });
  }

  /** {@code http://127.0.0.1:<port>/items}. */
  URI items() {
    return URI.create(server.uri() + "/items");
  }

  /** The guard of the store, or null for a node without one. */
  @Nullable CaffeineGuard<String, Item> guard() {
    return guard;
  }

  /**
   * Whether {@code path} has been stored, without interruption, since before {@code nanoTime}: the
   * same item is still there and was visible then. If so, a guard asked at {@code nanoTime} had to
   * answer "might contain"; the edge uses this to count false negatives. Reads the cache directly,
   * in-process, with no probe and no guard.
   */
  boolean storedContinuouslySince(String path, long nanoTime) {
    Item item = store.asMap().get(path);
    long since = item == null ? 0 : item.visibleSince;
    return since != 0 && since - nanoTime < 0;
  }

  /** Items stored now (an estimate, as Caffeine's). */
  long size() {
    return store.estimatedSize();
  }

  @Override
  public void close() {
    server.close();
  }
}
