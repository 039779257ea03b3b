package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The kinds of keys ({@link #NUMBER}, {@link #TEXT}, {@link #BYTES}, {@link #UUIDS}) one guard
 * declared with {@code @CuckooGuarded} has been given, so that a lookup of another kind is not
 * answered by a filter that hashes kinds apart. A database converts between kinds ({@code where id
 * = '12'} finds the row of the {@code bigint} id 12, {@code where code = 12} the {@code varchar}
 * {@code '012'} in MySQL), so a key of a kind the guard does not hold may still name a row the
 * guard holds under another kind.
 *
 * <p>A kind is <em>given</em> when the guard's funnel ({@link #funnel()}) hashes a key of that kind
 * for a write or a scan: an add, a scanned key, an enter replicated from another instance, a direct
 * call on the bean. The interceptor asks the filter only for a key of the one kind the guard was
 * given, or of any kind while it was given none ({@link #answers}); for any other (a kind never
 * given, a guard given two kinds) it answers "might contain" without touching the guard. Kinds the
 * add methods and the key scan declare statically are given at startup ({@link #give(int)}), so
 * that a guard that starts empty or joins a cluster from another instance's dump (which carries
 * fingerprints, not keys) answers from its first call.
 *
 * <p><b>Why no present key is reported absent.</b> The set of kinds only grows, and every key that
 * enters a filter is hashed by the funnel, which records the key's kind before it hashes it, and so
 * before the fingerprint is added and before the key can become visible in the store (the enter
 * precedes the write; a scanned key is funnelled before the rebuilt filter is swapped in; a
 * replicated enter is applied here before the writer's write goes on). Take a lookup of a key
 * {@code k} whose row is visible and was entered as the key {@code e} (the same value, or one the
 * database equates with it): it reads a set that holds the kind of {@code e}. If the set is the
 * kind of {@code k} alone, {@code e} is of that kind too, and the funnel hashes {@code k} as {@code
 * e} (within a kind, values the database equates have one canonical form: {@link
 * CanonicalKeyFunnel}), so the filter answers "might contain"; otherwise the lookup passes through.
 * A lookup racing with the first enter of a kind either reads the set before the kind (and passes
 * through for keys of that kind, or, if the set was empty, asks the filter, as any lookup
 * concurrent with an enter does) or after; a row of that enter is not visible before the enter
 * returned, so answering "absent" for it before then is a lookup that came first. A guard given no
 * kind has no fingerprint of an enter in its filter, so its answer from the filter is right for
 * every kind. The one case this cannot see is a filter loaded from another instance's dump holding
 * a kind that this instance neither declares statically nor was given since; with the add methods'
 * key types known (the common case) that cannot happen.
 *
 * <p>Thread-safe: one int, updated by compare-and-set.
 */
final class KeyKinds {

  private static final System.Logger LOG = System.getLogger(KeyKinds.class.getName());

  /** {@code Long}, {@code Integer}, {@code Short}, {@code Byte}: one key space of longs. */
  static final int NUMBER = 1;

  /** {@code CharSequence} and enums by name: one key space of text. */
  static final int TEXT = 2;

  /** {@code byte[]}. */
  static final int BYTES = 4;

  /**
   * {@code UUID}: a kind of its own, although hashed by its text, since a database accepts other
   * spellings of a {@code uuid} (no hyphens, braces, upper case) that the text form does not meet.
   */
  static final int UUIDS = 8;

  private static final VarHandle GIVEN;

  static {
    try {
      GIVEN = MethodHandles.lookup().findVarHandle(KeyKinds.class, "given", int.class);
    } catch (ReflectiveOperationException ex) {
      throw new ExceptionInInitializerError(ex);
    }
  }

  private final String guard;
  private final Funnel<Object> funnel = new RecordingFunnel();

  @SuppressWarnings("unused") // through GIVEN
  private volatile int given;

  KeyKinds(String guard) {
    this.guard = guard;
  }

  /** The kind of a key, 0 for a type the canonical funnel does not take. */
  static int kindOf(Object key) {
    if (key instanceof Long
        || key instanceof Integer
        || key instanceof Short
        || key instanceof Byte) {
      return NUMBER;
    }
    if (key instanceof UUID) {
      return UUIDS;
    }
    if (key instanceof CharSequence || key instanceof Enum<?>) {
      return TEXT;
    }
    return key instanceof byte[] ? BYTES : 0;
  }

  /**
   * The kind every value of the declared type {@code type} has, or 0 if that is not known ({@code
   * Object}, {@code Serializable}, a type the funnel does not take).
   */
  static int kindOf(@Nullable Class<?> type) {
    if (type == null) {
      return 0;
    }
    Class<?> boxed = ClassUtils.resolvePrimitiveIfNecessary(type);
    if (boxed == Long.class
        || boxed == Integer.class
        || boxed == Short.class
        || boxed == Byte.class) {
      return NUMBER;
    }
    if (boxed == UUID.class) {
      return UUIDS;
    }
    if (CharSequence.class.isAssignableFrom(boxed) || Enum.class.isAssignableFrom(boxed)) {
      return TEXT;
    }
    return boxed == byte[].class ? BYTES : 0;
  }

  /** The kind's name in messages: "numbers", "text", "byte arrays". */
  static String describe(int kinds) {
    StringBuilder out = new StringBuilder();
    for (int kind : new int[] {NUMBER, TEXT, BYTES, UUIDS}) {
      if ((kinds & kind) != 0) {
        out.append(out.length() == 0 ? "" : " and ")
            .append(
                kind == NUMBER
                    ? "numbers"
                    : kind == TEXT ? "text" : kind == BYTES ? "byte arrays" : "UUIDs");
      }
    }
    return out.length() == 0 ? "no keys" : out.toString();
  }

  /** The funnel of the guard: {@link CanonicalKeyFunnel}'s bytes, recording each key's kind. */
  Funnel<Object> funnel() {
    return funnel;
  }

  /**
   * Gives the guard the kinds in {@code kinds}, declared by its add methods or its key scan (a key
   * of them may enter it). Not logged: two declared kinds fail the start ({@link KeyKindCheck}).
   */
  void give(int kinds) {
    give(kinds, false);
  }

  /** Gives the guard the kinds in {@code kinds}; logs if it then holds two, when {@code warn}. */
  private void give(int kinds, boolean warn) {
    int current;
    do {
      current = (int) GIVEN.getVolatile(this);
      if ((current | kinds) == current) {
        return;
      }
    } while (!GIVEN.compareAndSet(this, current, current | kinds));
    int now = current | kinds;
    if (warn && Integer.bitCount(current) <= 1 && Integer.bitCount(now) > 1) {
      LOG.log(
          Level.WARNING,
          () ->
              "Guard '"
                  + guard
                  + "' was given keys of more than one kind ("
                  + describe(now)
                  + "). A database converts a key of one kind to the other, so the guard cannot "
                  + "tell which rows a key names: its finders run unguarded from now on, until "
                  + "the application restarts. Give a guard keys of one type (map them in the key "
                  + "expressions).");
    }
  }

  /**
   * Whether the filter may answer a lookup of {@code key}: if the guard was given keys of that kind
   * and of no other, or none at all yet (its filter then holds no key's fingerprint but those of a
   * dump, see the class comment; the lookup's kind, recorded by the funnel, counts as given from
   * then on, which only makes later lookups of other kinds pass through).
   */
  boolean answers(Object key) {
    int kind = kindOf(key);
    int given = (int) GIVEN.getVolatile(this);
    return kind != 0 && (given == kind || given == 0);
  }

  /** Whether the guard was given keys of {@code key}'s kind: a leave of it may pair an enter. */
  boolean holds(Object key) {
    int kind = kindOf(key);
    return kind != 0 && ((int) GIVEN.getVolatile(this) & kind) != 0;
  }

  /** The kinds given so far. */
  int given() {
    return (int) GIVEN.getVolatile(this);
  }

  private final class RecordingFunnel implements Funnel<Object> {
    @Override
    public void funnel(Object key, KeySink sink) {
      int kind = kindOf(key);
      if (kind != 0) {
        give(kind, true); // before the bytes, so before the fingerprint is added
      }
      CanonicalKeyFunnel.INSTANCE.funnel(key, sink);
    }

    @Override
    public String id() {
      return CanonicalKeyFunnel.INSTANCE.id();
    }

    @Override
    public String toString() {
      return "CanonicalKeyFunnel of guard '" + guard + "'";
    }
  }
}
