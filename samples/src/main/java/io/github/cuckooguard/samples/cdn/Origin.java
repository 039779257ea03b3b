package io.github.cuckooguard.samples.cdn;

import io.github.cuckooguard.samples.LoopbackServer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The origin: a loopback HTTP server that answers every {@code GET <path>} after a fixed latency
 * with the content of that path. The content is a pure function of the path ({@link #content}), so
 * the edge can check every answer it serves.
 */
final class Origin implements AutoCloseable {

  /** Bytes of every item. */
  static final int ITEM_BYTES = 1024;

  private final LoopbackServer server;
  private final LongAdder fetches = new LongAdder();

  Origin(Duration latency) throws IOException {
    server =
        LoopbackServer.start(
            "origin",
            16,
            exchange -> {
              fetches.increment();
              pause(latency);
              LoopbackServer.ok(exchange, content(exchange.getRequestURI().getPath()));
            });
  }

  /** Where the origin listens. */
  URI uri() {
    return server.uri();
  }

  /** Requests the origin has answered so far. */
  long fetches() {
    return fetches.sum();
  }

  /** The content the origin serves for {@code path}. */
  static byte[] content(String path) {
    byte[] body = new byte[ITEM_BYTES];
    long x = path.hashCode() * 0x9E3779B97F4A7C15L;
    for (int i = 0; i < body.length; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      body[i] = (byte) x;
    }
    return body;
  }

  /** Whether {@code body} is what the origin serves for {@code path}. */
  static boolean isContentOf(String path, byte[] body) {
    return Arrays.equals(content(path), body);
  }

  private static void pause(Duration latency) {
    long end = System.nanoTime() + latency.toNanos();
    for (long left = latency.toNanos(); left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
