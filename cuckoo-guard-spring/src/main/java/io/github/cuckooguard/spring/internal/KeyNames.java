package io.github.cuckooguard.spring.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The names that may denote the key of a guard in a query ({@link QueryWrites}), each with where it
 * comes from, or why they are not known.
 *
 * <p>A name matches an assigned column or attribute if it is equal to it (case-insensitively), or,
 * unless it is exact-only, if it is the last {@code _}-separated part of it ({@code t_id} for
 * {@code id}). Hibernate's {@code id} pseudo-attribute is exact-only: it is a word of HQL, never
 * part of a column's name. More names only make more updates writes: a name too many costs a false
 * alarm at startup, a name too few a false negative.
 *
 * <p>Mutable while {@link WritePathCheck} collects it; not thread-safe.
 */
final class KeyNames {

  private final Map<String, String> names = new LinkedHashMap<>();
  private final Set<String> exact = new LinkedHashSet<>();
  private @Nullable String unknown;

  /** Adds {@code name} (quotes removed, lower case) unless it is already known. */
  KeyNames add(String name, String origin) {
    String key = name.replace("\"", "").replace("`", "").trim().toLowerCase(Locale.ROOT);
    if (!key.isEmpty()) {
      names.putIfAbsent(key, origin);
    }
    return this;
  }

  /** Adds {@code name} as a name that matches only itself, never as a column's last part. */
  KeyNames addExact(String name, String origin) {
    String key = name.toLowerCase(Locale.ROOT);
    if (!names.containsKey(key)) {
      names.put(key, origin);
      exact.add(key);
    }
    return this;
  }

  /**
   * Records that the key's attribute cannot be determined (the first reason is kept): every update
   * then counts as a write.
   */
  void unknown(String why) {
    if (unknown == null) {
      unknown = why;
    }
  }

  /** Why the key's attribute is not known, or {@code null} if the names are complete. */
  @Nullable String unknown() {
    return unknown;
  }

  /** Whether no name is known. */
  boolean isEmpty() {
    return names.isEmpty();
  }

  /** The names, lower case, each with where it comes from. */
  Map<String, String> names() {
    return Collections.unmodifiableMap(names);
  }

  /**
   * Where the key name that {@code target} (an assigned column or attribute, lower case) denotes
   * comes from, or {@code null} if it denotes none.
   */
  @Nullable String match(String target) {
    for (Map.Entry<String, String> key : names.entrySet()) {
      if (target.equals(key.getKey())
          || !exact.contains(key.getKey()) && target.endsWith("_" + key.getKey())) {
        return key.getValue();
      }
    }
    return null;
  }
}
