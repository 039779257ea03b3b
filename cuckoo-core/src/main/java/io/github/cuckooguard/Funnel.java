package io.github.cuckooguard;

/**
 * Turns a key into the bytes that are hashed, separately from the hash function itself (the same
 * split as Guava's {@code Funnel}). A funnel must be deterministic: equal keys must put equal
 * bytes, across JVMs and restarts, or a filter read back from a dump stops finding its keys.
 *
 * <p>Funnels for the common key types are in {@link Funnels}; they hash without allocating. A
 * custom funnel writes into a {@link KeySink}, which allocates nothing either for keys up to 4 KiB.
 *
 * <p>A custom funnel should override {@link #id()} with a stable name so that a dump written with
 * one funnel cannot be read back with another by mistake.
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
   * default is the class name, which is stable for a named class but not for a lambda.
   *
   * @return the encoding's name, at most 255 UTF-8 bytes
   */
  default String id() {
    return getClass().getName();
  }
}
