package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.internal.GuardOperation.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The startup half of {@link KeyKinds}: the key types the guarded methods of each guard declare,
 * checked once every declaring bean type was parsed, so that a finder or a remove whose key is of a
 * kind the guard is never given (a {@code String} finder on a guard of {@code Long} ids: the
 * database converts {@code "12"} to 12 and finds the row the guard would call absent) fails the
 * start with a message that says how to convert. Methods parsed later (beans created lazily) are
 * checked when they are parsed. Only declared types are checked; a key of a type not known before
 * the call ({@code Object}, most expressions) is dealt with at run time by {@link KeyKinds}.
 * Thread-safe (synchronized).
 */
final class KeyKindCheck {

  /**
   * One guarded method's key, or the key scan (role {@code null}).
   *
   * @param type the declared type of the key, or the element type of the scan
   * @param spel the key as a SpEL expression over the arguments ({@code #p0}), for suggestions
   */
  record Declared(@Nullable Kind role, String where, Class<?> type, String spel) {
    int kind() {
      return KeyKinds.kindOf(type);
    }
  }

  private final Map<String, List<Declared>> methods = new LinkedHashMap<>();
  private final Map<String, Declared> scans = new LinkedHashMap<>();
  private boolean started;

  /** Records a guarded method's key; checks its guard at once if the context has started. */
  synchronized void declare(String guard, Declared declared) {
    methods.computeIfAbsent(guard, g -> new ArrayList<>()).add(declared);
    if (started) {
      check(guard);
    }
  }

  /** Records the element type of the guard's key scan. */
  synchronized void scan(String guard, Declared declared) {
    scans.put(guard, declared);
    if (started) {
      check(guard);
    }
  }

  /** The guards with a guarded method declared. */
  synchronized Set<String> guards() {
    return new LinkedHashSet<>(methods.keySet());
  }

  /**
   * Checks every guard, and from now on each method as it is declared.
   *
   * @throws IllegalStateException naming the first method whose key kind the guard is not given
   */
  synchronized void checkAll() {
    started = true;
    for (String guard : methods.keySet()) {
      check(guard);
    }
  }

  private void check(String guard) {
    List<Declared> givers = new ArrayList<>();
    Declared scan = scans.get(guard);
    if (scan != null && scan.kind() != 0) {
      givers.add(scan);
    }
    List<Declared> declared = methods.getOrDefault(guard, List.of());
    for (Declared d : declared) {
      if (d.role() == Kind.ADD && d.kind() != 0) {
        givers.add(d);
      }
    }
    int given = 0;
    for (Declared d : givers) {
      given |= d.kind();
    }
    if (Integer.bitCount(given) > 1) {
      throw new IllegalStateException(
          "@CuckooGuarded: guard '"
              + guard
              + "' is given keys of two kinds: "
              + givers(givers, 0, true)
              + ". A key column has one type and the database converts a key of the other kind to "
              + "it (\"12\" to 12), so the guard, which hashes the kinds apart, could answer "
              + "\"absent\" for a row that exists. Map the keys to one type in the key expressions.");
    }
    if (given == 0) {
      return;
    }
    Declared held = givers.get(0);
    for (Declared d : declared) {
      int kind = d.kind();
      if (d.role() == Kind.ADD || kind == 0 || kind == given) {
        continue;
      }
      boolean find = d.role() == Kind.FIND;
      throw new IllegalStateException(
          d.where()
              + ": the "
              + (find ? "finder" : "remove")
              + " passes a "
              + name(d.type())
              + ", but guard '"
              + guard
              + "' holds "
              + name(held.type())
              + " keys (from "
              + givers(givers, given, false)
              + "). The database converts "
              + (kind == KeyKinds.TEXT ? "\"12\" to 12" : "between the two")
              + (find
                  ? " and finds the row, which the guard, hashing the kinds apart, would report absent."
                  : " and deletes the row, while the guard would take a fingerprint no add gave it.")
              + " Convert the key in the key expression: "
              + suggestion(d, held)
              + ".");
    }
  }

  private static String suggestion(Declared lookup, Declared held) {
    Class<?> target = ClassUtils.resolvePrimitiveIfNecessary(held.type());
    if (lookup.kind() == KeyKinds.TEXT && held.kind() == KeyKinds.NUMBER) {
      return "key = \"T(Long).parseLong(" + lookup.spel() + ")\"";
    }
    if (lookup.kind() == KeyKinds.NUMBER && CharSequence.class.isAssignableFrom(target)) {
      return "key = \"T(String).valueOf(" + lookup.spel() + ")\"";
    }
    return "map " + lookup.spel() + " to a " + target.getSimpleName();
  }

  /** The givers of {@code kind} (0: all), each once, with their key types if {@code typed}. */
  private static String givers(List<Declared> givers, int kind, boolean typed) {
    Set<String> out = new LinkedHashSet<>();
    for (Declared d : givers) {
      if (kind == 0 || d.kind() == kind) {
        out.add(typed ? name(d.type()) + " by " + d.where() : d.where());
      }
    }
    return String.join(", ", out);
  }

  private static String name(Class<?> type) {
    return ClassUtils.resolvePrimitiveIfNecessary(type).getSimpleName();
  }
}
