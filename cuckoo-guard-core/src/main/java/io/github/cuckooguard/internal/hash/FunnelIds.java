package io.github.cuckooguard.internal.hash;

import io.github.cuckooguard.Funnel;
import java.nio.charset.StandardCharsets;

/**
 * The checks on {@link Funnel#id()}: its length when a filter is built, and at a dump that it is
 * not a lambda's default id.
 */
public final class FunnelIds {

  private FunnelIds() {}

  /**
   * {@code funnel}, once its id is known to be storable: not null, at most {@value
   * Funnel#MAX_ID_BYTES} UTF-8 bytes.
   *
   * @throws NullPointerException if the id is null
   * @throws IllegalArgumentException if the id is longer
   */
  public static <F extends Funnel<?>> F checked(F funnel) {
    String id = funnel.id();
    if (id == null) {
      throw new NullPointerException(
          "id() of funnel " + funnel.getClass().getName() + " returned null");
    }
    int bytes = utf8Length(id);
    if (bytes > Funnel.MAX_ID_BYTES) {
      throw new IllegalArgumentException(
          "funnel id '"
              + abbreviated(id)
              + "' is "
              + bytes
              + " UTF-8 bytes long; at most "
              + Funnel.MAX_ID_BYTES
              + " are allowed, as every dump stores it:"
              + " give the funnel a shorter id()");
    }
    return funnel;
  }

  /**
   * The id to write into a dump of a filter of {@code funnel}.
   *
   * @throws IllegalStateException if the funnel is a lambda (or another hidden class) that kept the
   *     default id, which names a class generated for this JVM run: no other JVM could read the
   *     dump
   */
  public static String forDump(Funnel<?> funnel) {
    String id = checked(funnel).id();
    Class<?> type = funnel.getClass();
    if (type.isHidden() && id.equals(type.getName())) {
      throw new IllegalStateException(
          "the filter's funnel is a lambda, whose default id '"
              + id
              + "' names a class generated for this JVM run, so no other JVM could read the dump: give the"
              + " funnel a stable id(): implement Funnel in a named class or enum that overrides id()"
              + " (e.g. \"order-key-v1\"), or use a funnel from Funnels");
    }
    return id;
  }

  private static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length; // once per filter, never per key
  }

  private static String abbreviated(String id) {
    return id.length() <= 64 ? id : id.substring(0, 61) + "...";
  }
}
