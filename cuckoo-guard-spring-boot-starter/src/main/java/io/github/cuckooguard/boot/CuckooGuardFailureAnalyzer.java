package io.github.cuckooguard.boot;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Turns the configuration errors of Cuckoo Guard's adapters into a description and an action
 * instead of a stack trace: a write path of a guarded repository that the guard does not follow, a
 * key type the guard cannot take, a Hazelcast member without cuckoo-guard-hazelcast, and an unknown
 * or malformed setting ({@code cuckooguard.*}, {@code hibernate.cuckoo.*}; an unknown key under
 * {@code cuckooguard.} with the accepted names). An error is recognised as the adapters' when it is
 * thrown by a class of {@code io.github.cuckooguard} (the innermost such cause is reported).
 * Registered in {@code META-INF/spring.factories}.
 */
public final class CuckooGuardFailureAnalyzer implements FailureAnalyzer, Ordered {

  private static final String PACKAGE = "io.github.cuckooguard.";

  /** A setting's name in a message: cuckooguard.… or hibernate.cuckoo.…, not a class name. */
  private static final Pattern SETTING =
      Pattern.compile("(?<![\\w.])(cuckooguard|hibernate\\.cuckoo)\\.[a-z]");

  /**
   * Before Boot's analyzers, so that an unknown key under {@code cuckooguard.} is reported with the
   * accepted names; every other failure is left to them (this analyzer answers only for its own).
   */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  public @Nullable FailureAnalysis analyze(Throwable failure) {
    FailureAnalysis unknown = unknownKeys(failure);
    if (unknown != null) {
      return unknown;
    }
    Throwable cause = ours(failure);
    if (cause == null || cause.getMessage() == null) {
      return null;
    }
    String message = cause.getMessage();
    return new FailureAnalysis(describe(message), action(cause, message), failure);
  }

  /**
   * Unknown keys under {@code cuckooguard.} that Boot's binder left unbound, with what is known.
   */
  private static @Nullable FailureAnalysis unknownKeys(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof UnboundConfigurationPropertiesException unbound) {
        Set<String> names = new TreeSet<>();
        for (ConfigurationProperty p : unbound.getUnboundProperties()) {
          String name = p.getName().toString();
          if (name.startsWith(CuckooGuardProperties.PREFIX + ".")) {
            names.add(name);
          }
        }
        if (names.isEmpty()) {
          return null;
        }
        StringBuilder description = new StringBuilder("Cuckoo Guard is misconfigured:");
        for (String name : names) {
          Map.Entry<String, Set<String>> known = KnownSettings.nearest(name);
          description
              .append(" unknown setting ")
              .append(name)
              .append("; the settings under ")
              .append(known.getKey())
              .append(" are ")
              .append(known.getValue())
              .append('.');
        }
        return new FailureAnalysis(
            description.toString(),
            "Correct the setting named above in application.properties/application.yml, using one"
                + " of the accepted names.",
            failure);
      }
    }
    return null;
  }

  private static @Nullable Throwable ours(Throwable failure) {
    Throwable found = null;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if ((t instanceof IllegalStateException || t instanceof IllegalArgumentException)
          && thrownByUs(t)) {
        found = found == null || !(found instanceof CuckooGuardPropertyException) ? t : found;
        if (t instanceof CuckooGuardPropertyException) {
          return t;
        }
      }
    }
    return found;
  }

  private static boolean thrownByUs(Throwable t) {
    StackTraceElement[] trace = t.getStackTrace();
    return t instanceof CuckooGuardPropertyException
        || trace.length > 0 && trace[0].getClassName().startsWith(PACKAGE);
  }

  private static String describe(String message) {
    return "Cuckoo Guard is misconfigured: " + message;
  }

  private static String action(Throwable cause, String message) {
    if (message.contains("the guard does not follow")) {
      return "Follow every write path of the guarded repository: annotate its inserts with @GuardedAdd and its "
          + "deletes with @GuardedRemove, extend org.springframework.data.repository.Repository<T, ID> instead of "
          + "CrudRepository/JpaRepository, or guard a Hibernate entity with @GuardedEntity and "
          + "@CuckooGuarded(entity = …), which follows save and delete itself.";
    }
    if (message.contains("the key is a")) {
      return "Give the guarded method a key of a supported type (see the message), or convert the key in the "
          + "key expression, e.g. key = \"#date.toEpochDay()\".";
    }
    if (message.contains("cuckoo-guard-hazelcast") && message.contains("not on the class path")) {
      return "Add io.github.cuckooguard:cuckoo-guard-hazelcast (and com.hazelcast:hazelcast) to the "
          + "application's dependencies, so that the guards of every instance of the application stay "
          + "exact; or, if this application is the only instance that writes the guarded stores, set "
          + EnvironmentClusterSettings.ENABLED
          + "=false in application.properties/application.yml (the HazelcastInstance bean then "
          + "serves only its other uses).";
    }
    if (cause instanceof CuckooGuardPropertyException
        || message.contains("unknown setting")
        || SETTING.matcher(message).find()) {
      return "Correct the setting named above in application.properties/application.yml (cuckooguard.* or "
          + "spring.jpa.properties.hibernate.cuckoo.*), using one of the accepted names and a value in range.";
    }
    return "Correct the declaration named above, as the message says.";
  }
}
