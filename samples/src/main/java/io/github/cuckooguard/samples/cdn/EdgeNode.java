package io.github.cuckooguard.samples.cdn;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The edge: serves a path from its small memory tier, else from the storage node, else from the
 * origin, and then stores what the origin sent in both tiers. With a guard it skips the storage
 * node for paths the guard says it definitely does not hold.
 *
 * <p>Every answer is checked against the origin's content, and every "definitely not stored" is
 * checked against the storage node's store (in-process, no probe): the counters {@link
 * #wrongAnswers} and {@link #falseNegatives} must stay zero. Thread-safe.
 */
final class EdgeNode {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final Cache<String, byte[]> memoryTier;
  private final StorageNode storage;
  private final @Nullable CaffeineGuard<String, StorageNode.Item> guard;
  private final URI origin;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();

  final LongAdder requests = new LongAdder();
  final LongAdder memoryHits = new LongAdder();
  final LongAdder probes = new LongAdder();
  final LongAdder probeHits = new LongAdder();
  final LongAdder probesAvoided = new LongAdder();
  final LongAdder originFetches = new LongAdder();
  final LongAdder falseNegatives = new LongAdder();
  final LongAdder wrongAnswers = new LongAdder();

  /** An edge with its own memory tier, in front of {@code storage} and {@code origin}. */
  EdgeNode(int memoryItems, Duration ttl, StorageNode storage, URI origin, boolean useGuard) {
    this(
        Caffeine.newBuilder().maximumSize(memoryItems).expireAfterWrite(ttl).build(),
        storage,
        origin,
        useGuard);
  }

  private EdgeNode(
      Cache<String, byte[]> memoryTier, StorageNode storage, URI origin, boolean useGuard) {
    this.memoryTier = memoryTier;
    this.storage = storage;
    this.guard = useGuard ? storage.guard() : null;
    this.origin = origin;
  }

  /** An edge on the same tiers as this one, with its counters at zero. */
  EdgeNode withFreshCounters() {
    return new EdgeNode(memoryTier, storage, origin, guard != null);
  }

  /** Serves one request for {@code path}. */
  void serve(String path) throws IOException, InterruptedException {
    requests.increment();
    byte[] content = memoryTier.getIfPresent(path);
    if (content != null) {
      memoryHits.increment();
    } else {
      content = fromStorage(path);
      if (content == null) {
        content = get(origin.resolve(path));
        originFetches.increment();
        put(URI.create(storage.items() + path), content); // the item arrives in the large tier
      }
      memoryTier.put(path, content);
    }
    if (content == null || !Origin.isContentOf(path, content)) {
      wrongAnswers.increment();
    }
  }

  private byte @Nullable [] fromStorage(String path) throws IOException, InterruptedException {
    if (guard != null) {
      long asked = System.nanoTime();
      if (!guard.mightContain(path)) {
        probesAvoided.increment();
        if (storage.storedContinuouslySince(path, asked)) {
          falseNegatives.increment(); // the guard said "not stored" about a stored item
        }
        return null;
      }
    }
    probes.increment();
    byte[] content = get(URI.create(storage.items() + path));
    if (content != null) {
      probeHits.increment();
    } else if (guard != null) {
      guard.reportFalsePositive(path); // "might contain", but the probe found nothing
    }
    return content;
  }

  private byte @Nullable [] get(URI uri) throws IOException, InterruptedException {
    HttpResponse<byte[]> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(TIMEOUT).build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() == 404) {
      return null;
    }
    if (response.statusCode() != 200) {
      throw new IOException("GET " + uri + " answered " + response.statusCode());
    }
    return response.body();
  }

  private void put(URI uri, byte[] content) throws IOException, InterruptedException {
    HttpResponse<Void> response =
        http.send(
            HttpRequest.newBuilder(uri)
                .timeout(TIMEOUT)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(content))
                .build(),
            HttpResponse.BodyHandlers.discarding());
    if (response.statusCode() != 204) {
      throw new IOException("PUT " + uri + " answered " + response.statusCode());
    }
  }
}
