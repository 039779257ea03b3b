package io.github.cuckooguard;

/**
 * Turns a key into the bytes that are hashed, separately from the hash function itself (the same
 * split as Guava's {@code Funnel}). A funnel must be deterministic: equal keys must put equal
 * bytes, across JVMs and restarts, or a filter read back from a dump stops finding its keys.
 *
 * <p>Funnels for the common key types are in {@link Funnels}; they hash without allocating. A
 * custom funnel writes into a {@link KeySink}, which allocates nothing either for keys up to 4 KiB.
 *
 * <p>Ids. A filter or guard checks its funnel's {@link #id()} when it is built: at most {@value
 * #MAX_ID_BYTES} UTF-8 bytes. A dump stores the id and a reader checks it, so a custom funnel whose
 * filters are dumped must override {@link #id()} with a stable name. A lambda may serve as a funnel
 * for filters that are never dumped; its default id names a class generated for one JVM run, so
 * {@code writeTo} and {@code scanDump} refuse it.
 *
 * <pre>{@code
 * enum OrderKeyFunnel implements Funnel<OrderKey> {
 *   INSTANCE;
 *   public void funnel(OrderKey key, KeySink sink) {
 *     sink.putLong(key.customerId()).putUtf8(key.orderNumber());
 *   }
 *   public String id() { return "order-key-v1"; }
 * }
 * }</pre>
 *
 * @param <T> the key type
 */
@FunctionalInterface
public interface Funnel<T> {

  /** The longest {@link #id()}, in UTF-8 bytes. */
  int MAX_ID_BYTES = 255;

  /**
   * Writes the bytes that identify {@code key} into {@code sink}. Called on every add, lookup and
   * remove of the key, on the caller's thread; must not keep {@code sink}.
   *
   * @param key the key, never null
   * @param sink where the bytes go; valid during this call only
   */
  void funnel(T key, KeySink sink);

  /**
   * A stable name of the byte encoding, stored in dumps and checked when they are read back. The
   * default is the class name, which is stable for a named class but not for a lambda (whose dumps
   * are therefore refused).
   *
   * @return the encoding's name, at most {@value #MAX_ID_BYTES} UTF-8 bytes
   */
  default String id() {
    return getClass().getName();
  }
}
