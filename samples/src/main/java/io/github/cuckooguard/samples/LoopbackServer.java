package io.github.cuckooguard.samples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP server of the JDK ({@code com.sun.net.httpserver}) bound to 127.0.0.1 on a port the
 * system picks, serving one handler on a small pool of daemon threads. Nothing listens beyond
 * loopback. Close it to stop it.
 */
public final class LoopbackServer implements AutoCloseable {

  static {
    // Without TCP_NODELAY the JDK server's separate header and body writes meet the client's
    // delayed ACK: every small response then takes about 40 ms on Linux. Read once, at the first
    // server's creation.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private final HttpServer server;
  private final ExecutorService executor;

  private LoopbackServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Starts a server that passes every request to {@code handler} on one of {@code threads} threads.
   */
  public static LoopbackServer start(String name, int threads, HttpHandler handler)
      throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 64);
    AtomicInteger count = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, name + "-" + count.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.createContext(
        "/",
        exchange -> {
          try {
            handler.handle(exchange);
          } finally {
            exchange.close();
          }
        });
    server.setExecutor(executor);
    server.start();
    return new LoopbackServer(server, executor);
  }

  /** {@code http://127.0.0.1:<port>}. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Sends {@code body} with status 200. */
  public static void ok(HttpExchange exchange, byte[] body) throws IOException {
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** Sends an empty response with {@code status} (e.g. 204, 404). */
  public static void empty(HttpExchange exchange, int status) throws IOException {
    exchange.sendResponseHeaders(status, -1);
  }

  /** Reads the whole request body. */
  public static byte[] body(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      return in.readAllBytes();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
