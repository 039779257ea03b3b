package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spi.ReplicatedGuard;
import org.jspecify.annotations.Nullable;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.support.DefaultConversionService;

/**
 * A guard bean as the interceptor uses it: the guard, its group on the cluster if the context
 * clusters, and how an argument becomes a key of the guard's key type. Immutable and thread-safe.
 */
final class GuardHandle {

  private final String name;
  private final CuckooGuard<Object> guard;
  private final KeyType keyType;
  private final @Nullable KeyKinds kinds;
  private final @Nullable ReplicatedGuard<Object> replicated;

  /**
   * @param kinds the key kinds of a guard built from {@code @CuckooGuarded}, null for a guard bean
   *     with a funnel of its own (whose key type is the bean's)
   */
  GuardHandle(
      String name,
      CuckooGuard<Object> guard,
      KeyType keyType,
      @Nullable KeyKinds kinds,
      @Nullable ReplicatedGuard<Object> replicated) {
    this.name = name;
    this.guard = guard;
    this.keyType = keyType;
    this.kinds = kinds;
    this.replicated = replicated;
  }

  /**
   * Whether the guard may be asked about {@code key} at all: false for a key of a kind the guard of
   * {@code @CuckooGuarded} was not given alone ({@link KeyKinds#answers}), whose lookup must pass
   * through without touching the guard.
   */
  boolean answers(Object key) {
    KeyKinds k = kinds;
    return k == null || k.answers(key);
  }

  /**
   * Whether a leave of {@code key} may pair an enter: false for a key of a kind the guard was never
   * given ({@link KeyKinds#holds}).
   */
  boolean holds(Object key) {
    KeyKinds k = kinds;
    return k == null || k.holds(key);
  }

  /** The kinds given, for messages; empty for a guard bean of its own. */
  String givenKinds() {
    KeyKinds k = kinds;
    return k == null ? "" : KeyKinds.describe(k.given());
  }

  /**
   * The guard's group on the cluster (whose local guard is {@link #guard()}), or null if the
   * context does not cluster.
   */
  @Nullable ReplicatedGuard<Object> replicated() {
    return replicated;
  }

  /**
   * False only if {@code key} is definitely absent: through the group if there is one (absent only
   * with a lease and a complete filter), otherwise the guard's answer.
   */
  boolean mightContain(Object key) {
    @Nullable ReplicatedGuard<Object> r = replicated;
    return r != null ? r.mightContain(key) : guard.mightContain(key);
  }

  String name() {
    return name;
  }

  CuckooGuard<Object> guard() {
    return guard;
  }

  /**
   * The key of the guard for an argument value.
   *
   * @throws IllegalArgumentException naming the guard and the type if the value cannot be a key
   */
  Object toKey(Object value) {
    return keyType.toKey(name, value);
  }

  /** How argument values become keys of a guard. */
  abstract static sealed class KeyType {

    /** The guards built from {@code @CuckooGuarded}: the canonical funnel's types, unchanged. */
    static KeyType canonical() {
      return Canonical.INSTANCE;
    }

    /** A guard bean declared as {@code CuckooGuard<type>}: values are converted to that type. */
    static KeyType of(@Nullable Class<?> type) {
      return type == null || type == Object.class ? Unknown.INSTANCE : new Converted(type);
    }

    abstract Object toKey(String guard, Object value);

    /** Whether the guard hashes with {@link CanonicalKeyFunnel} ({@link #canonical()}). */
    boolean isCanonical() {
      return false;
    }

    /**
     * Checks when the context starts that keys of the declared type {@code type} can be keys.
     *
     * @throws IllegalStateException naming {@code where}, the guard and the type otherwise
     */
    void check(String where, String guard, Class<?> type) {}
  }

  private static final class Canonical extends KeyType {
    static final Canonical INSTANCE = new Canonical();

    @Override
    boolean isCanonical() {
      return true;
    }

    @Override
    Object toKey(String guard, Object value) {
      if (!CanonicalKeyFunnel.supports(value)) {
        throw new IllegalArgumentException(
            "Guard '"
                + guard
                + "': a key of type "
                + value.getClass().getName()
                + " is not supported ("
                + CanonicalKeyFunnel.SUPPORTED
                + "); map it to one of these "
                + "in the key expression, e.g. key = \"#user.id\"");
      }
      return value;
    }

    @Override
    void check(String where, String guard, Class<?> type) {
      if (!CanonicalKeyFunnel.mayHold(type)) {
        throw new IllegalStateException(
            where
                + ": the key is a "
                + type.getName()
                + ", which guard '"
                + guard
                + "' cannot take (it takes "
                + CanonicalKeyFunnel.SUPPORTED
                + "). Map the key to one of these "
                + "in the key expression (e.g. key = \"#date.toEpochDay()\"), or define a CuckooGuard bean "
                + "named '"
                + guard
                + "' with a Funnel for "
                + type.getSimpleName()
                + ".");
      }
    }
  }

  private static final class Unknown extends KeyType {
    static final Unknown INSTANCE = new Unknown();

    @Override
    Object toKey(String guard, Object value) {
      return value;
    }
  }

  private static final class Converted extends KeyType {
    private static final ConversionService CONVERSION =
        DefaultConversionService.getSharedInstance();
    private final Class<?> type;

    Converted(Class<?> type) {
      this.type = type;
    }

    @Override
    void check(String where, String guard, Class<?> declared) {
      if (declared != Object.class && !CONVERSION.canConvert(declared, type)) {
        throw new IllegalStateException(
            where
                + ": the key is a "
                + declared.getName()
                + ", but guard '"
                + guard
                + "' takes "
                + type.getName()
                + " keys and there is no conversion between them. Map the key "
                + "in the key expression, or declare the guard bean with the key type it is given.");
      }
    }

    @Override
    Object toKey(String guard, Object value) {
      if (type.isInstance(value)) {
        return value;
      }
      try {
        Object converted = CONVERSION.convert(value, type);
        if (converted != null) {
          return converted;
        }
      } catch (ConversionException ex) {
        throw new IllegalArgumentException(
            "Guard '"
                + guard
                + "' takes "
                + type.getName()
                + " keys; "
                + value.getClass().getName()
                + " value "
                + value
                + " cannot be converted",
            ex);
      }
      throw new IllegalArgumentException(
          "Guard '"
              + guard
              + "' takes "
              + type.getName()
              + " keys; "
              + value.getClass().getName()
              + " value "
              + value
              + " converts to null");
    }
  }
}
