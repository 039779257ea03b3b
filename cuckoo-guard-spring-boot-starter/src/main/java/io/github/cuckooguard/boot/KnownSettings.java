package io.github.cuckooguard.boot;

import java.beans.PropertyDescriptor;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.BeanUtils;

/**
 * The names bound under each level of {@link CuckooGuardProperties}, read from its classes so that
 * they cannot drift from what the binder accepts: {@code cuckooguard.}, {@code
 * cuckooguard.metrics.}, {@code cuckooguard.cluster.}. For the failure analyzer's message.
 */
final class KnownSettings {

  private static final Map<String, Class<?>> LEVELS =
      Map.of(
          CuckooGuardProperties.PREFIX + ".",
          CuckooGuardProperties.class,
          CuckooGuardProperties.PREFIX + ".metrics.",
          CuckooGuardProperties.Metrics.class,
          CuckooGuardProperties.PREFIX + ".cluster.",
          CuckooGuardProperties.Cluster.class);

  private KnownSettings() {}

  /** The deepest known level {@code name} is under, and its setting names in kebab-case. */
  static Map.Entry<String, Set<String>> nearest(String name) {
    String best = CuckooGuardProperties.PREFIX + ".";
    for (String level : LEVELS.keySet()) {
      if (name.startsWith(level) && level.length() > best.length()) {
        best = level;
      }
    }
    Set<String> names = new TreeSet<>();
    for (PropertyDescriptor d :
        BeanUtils.getPropertyDescriptors(Objects.requireNonNull(LEVELS.get(best)))) {
      if (!d.getName().equals("class")) {
        names.add(kebab(d.getName()));
      }
    }
    return Map.entry(best, names);
  }

  private static String kebab(String camel) {
    StringBuilder b = new StringBuilder();
    for (char c : camel.toCharArray()) {
      if (Character.isUpperCase(c)) {
        b.append('-').append(Character.toLowerCase(c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
