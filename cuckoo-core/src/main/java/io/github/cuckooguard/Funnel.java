package io.github.cuckooguard;

import com.dynatrace.hash4j.hashing.HashSink;

/**
 * Turns a key into the bytes that are hashed, separately from the hash function itself (the same
 * split as Guava's {@code Funnel}). A funnel must be deterministic: equal keys must put equal
 * bytes, across JVMs and restarts, or a filter read back from a dump stops finding its keys.
 *
 * <p>Funnels for the common key types are in {@link Funnels}. A custom funnel should override
 * {@link #id()} with a stable name so that a dump written with one funnel cannot be read back
 * with another by mistake.
 *
 * @param <T> the key type
 */
@FunctionalInterface
public interface Funnel<T> {

  /**
   * Writes the bytes that identify {@code key} into {@code sink}.
   *
   * @param key the key, never null
   * @param sink where the bytes go
   */
  void funnel(T key, HashSink sink);

  /**
   * A stable name of the byte encoding, stored in dumps and checked when they are read back.
   * The default is the class name, which is stable for a named class but not for a lambda.
   *
   * @return the encoding's name, at most 255 UTF-8 bytes
   */
  default String id() {
    return getClass().getName();
  }
}
