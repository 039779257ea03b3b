package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.springframework.util.ClassUtils;

/**
 * The funnel of the guards declared with {@code @CuckooGuarded}, whose keys come from SpEL
 * expressions and parameters of any declared type. Integral numbers are one key space: an {@code
 * int} parameter of a finder and the {@code Long} id of an entity must hash alike, or the finder
 * would miss keys the add stored. The bytes match the {@code Funnels} of cuckoo-guard-core for the
 * same type (a long as 8 bytes, a string as UTF-8, a UUID as two longs, an enum as its name).
 *
 * <p>Stateless and thread-safe.
 */
public enum CanonicalKeyFunnel implements Funnel<Object> {
  INSTANCE;

  /** The key types this funnel accepts, for error messages. */
  static final String SUPPORTED =
      "Long, Integer, Short, Byte, CharSequence (String), UUID, byte[] or an enum";

  private static final Class<?>[] ACCEPTED = {
    Long.class,
    Integer.class,
    Short.class,
    Byte.class,
    String.class,
    UUID.class,
    byte[].class,
    Enum.class
  };

  /**
   * Whether {@code key} has a type this funnel accepts.
   *
   * @param key a non-null key
   */
  static boolean supports(Object key) {
    return key instanceof Long
        || key instanceof Integer
        || key instanceof Short
        || key instanceof Byte
        || key instanceof CharSequence
        || key instanceof UUID
        || key instanceof byte[]
        || key instanceof Enum<?>;
  }

  /**
   * Whether a value of the declared type {@code type} may be a key this funnel accepts: false only
   * if no accepted type is assignable to it (a {@code LocalDate}, a {@code double}).
   */
  static boolean mayHold(Class<?> type) {
    Class<?> boxed = ClassUtils.resolvePrimitiveIfNecessary(type);
    if (CharSequence.class.isAssignableFrom(boxed) || Enum.class.isAssignableFrom(boxed)) {
      return true;
    }
    for (Class<?> accepted : ACCEPTED) {
      if (boxed.isAssignableFrom(accepted)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void funnel(Object key, KeySink sink) {
    if (key instanceof Long
        || key instanceof Integer
        || key instanceof Short
        || key instanceof Byte) {
      sink.putLong(((Number) key).longValue());
    } else if (key instanceof CharSequence chars) {
      sink.putBytes(chars.toString().getBytes(StandardCharsets.UTF_8));
    } else if (key instanceof UUID uuid) {
      sink.putLong(uuid.getMostSignificantBits());
      sink.putLong(uuid.getLeastSignificantBits());
    } else if (key instanceof byte[] bytes) {
      sink.putBytes(bytes);
    } else if (key instanceof Enum<?> constant) {
      sink.putBytes(constant.name().getBytes(StandardCharsets.UTF_8));
    } else {
      throw new IllegalArgumentException(
          "Key type "
              + key.getClass().getName()
              + " is not supported by the guards of @CuckooGuarded ("
              + SUPPORTED
              + "); map the key to one of them in the key expression, or declare a "
              + "CuckooGuard bean of that name with a Funnel for the type");
    }
  }

  @Override
  public String id() {
    return "spring-canonical-v1";
  }
}
