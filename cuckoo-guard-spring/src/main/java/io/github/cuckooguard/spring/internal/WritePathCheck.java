package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKey;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Checks, from the bean definitions alone (before any bean exists, so also for repositories that
 * are lazy or never injected), that every write path of a guarded repository is one the guard
 * follows.
 *
 * <ul>
 *   <li>A Spring Data repository with a guard of its own ({@code @CuckooGuarded(name = …)}) may not
 *       have a write method the guard does not follow: an inherited {@code save}, {@code saveAll},
 *       {@code delete…} of {@code CrudRepository}/{@code JpaRepository} (a row saved through it
 *       would be answered "absent": a false negative), a derived {@code save…}/{@code delete…}/
 *       {@code remove…}/{@code insert…}, a {@code @Procedure}, or a query that may add or remove a
 *       key ({@link QueryWrites}), unless the method itself (or one it overrides) is annotated
 *       {@link GuardedAdd}/{@link GuardedRemove}. {@code save} is an upsert that may assign the id
 *       after the call and {@code deleteById} ignores a missing id, so the guard cannot follow them
 *       itself (see {@link GuardedAdd} and {@link GuardedRemove}); the message says what to declare
 *       instead.
 *   <li>Why no present key is answered "absent" through an allowed method: the only
 *       {@code @Modifying} queries allowed unannotated are updates (read with comments and literals
 *       removed) whose {@code set} clause assigns none of the key names ({@link RepositoryDomain}:
 *       the domain type's id attribute and its columns, and the names the keys of the guard's
 *       methods use); such an update changes no row's key and creates no row, so the set of keys is
 *       the same after it. A {@code @Modifying} method without {@code @Query} is read through its
 *       named query, and is a write when that query is not found. Everything the check cannot read
 *       (an unknown id attribute, an unreadable query, a second statement) counts as a write: the
 *       start fails and the message says why, rather than the guard missing a key.
 *   <li>Matching is per method (name and parameter types, as the interceptor resolves annotations),
 *       so an unannotated overload of an annotated insert is a write of its own.
 *   <li>Class-based repositories and the fragments of a Spring Data repository (custom
 *       implementations) cannot be checked: which of their methods write is known only to their
 *       author.
 *   <li>A repository declared with {@code @CuckooGuarded(entity = …)} may not carry a {@link
 *       GuardedAdd} or {@link GuardedRemove} that names no guard of its own: Hibernate already
 *       follows that entity's writes.
 * </ul>
 */
final class WritePathCheck {

  private static final String SPRING_DATA_REPOSITORY =
      "org.springframework.data.repository.Repository";
  private static final String REPOSITORY_DEFINITION =
      "org.springframework.data.repository.RepositoryDefinition";
  private static final String MODIFYING = "org.springframework.data.jpa.repository.Modifying";
  private static final String QUERY = "org.springframework.data.jpa.repository.Query";

  /**
   * Method names of Spring Data writes without a query: {@code save…}, {@code delete…}, {@code
   * remove…}, {@code insert…}, and {@code update…} ({@code JpaSpecificationExecutor.update(
   * UpdateSpecification)} may assign the key).
   */
  private static final Pattern WRITE_NAME =
      Pattern.compile("^(save|delete|remove|insert|update)(\\p{Lu}.*)?$");

  private static final String PROCEDURE = "org.springframework.data.jpa.repository.query.Procedure";

  /** The words of a SpEL key expression. */
  private static final Pattern KEY_WORD = Pattern.compile("[a-z_][a-z0-9_]*");

  /** SpEL words of a key that name no attribute. */
  private static final Pattern SPEL_WORDS =
      Pattern.compile(
          "result|root|args|method|target|targetclass|this|[pa][0-9]+|t|new|true|false|null");

  private WritePathCheck() {}

  /**
   * Checks the repository {@code type} declared with {@code declared} (null if none).
   *
   * @throws IllegalStateException naming every unfollowed write method and what to do
   */
  static void check(Class<?> type, @Nullable CuckooGuarded declared) {
    if (declared == null) {
      return;
    }
    if (declared.entity() != void.class) {
      checkNoOwnWrites(type, declared.entity());
    } else if (StringUtils.hasText(declared.name()) && isSpringDataRepository(type)) {
      checkSpringDataWrites(type, declared.name());
    }
  }

  /** The message of an add or remove on a repository whose writes Hibernate follows. */
  static IllegalStateException entityWriteRejected(String where, Class<?> entity) {
    return new IllegalStateException(
        where
            + ": the repository is @CuckooGuarded(entity = "
            + entity.getSimpleName()
            + ".class), whose guard cuckoo-guard-hibernate keeps in step with "
            + "every insert and committed delete of "
            + entity.getName()
            + " by itself; this "
            + "annotation would count the write twice (a second remove can make another id a false "
            + "negative). Remove it, or name a guard of its own with guard = \"…\".");
  }

  private static void checkNoOwnWrites(Class<?> type, Class<?> entity) {
    Set<Method> writes =
        MethodIntrospector.selectMethods(
            type,
            (ReflectionUtils.MethodFilter)
                m -> ownGuard(m, GuardedAdd.class) || ownGuard(m, GuardedRemove.class));
    for (Method method : writes) {
      String annotation =
          AnnotatedElementUtils.hasAnnotation(method, GuardedAdd.class)
              ? "@GuardedAdd"
              : "@GuardedRemove";
      throw entityWriteRejected(annotation + " on " + Describe.method(method), entity);
    }
  }

  /** Whether {@code method} carries {@code annotation} without naming a guard. */
  private static boolean ownGuard(
      Method method, Class<? extends java.lang.annotation.Annotation> annotation) {
    MergedAnnotation<?> found =
        MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
            .get(annotation);
    return found.isPresent() && found.getString("guard").isEmpty();
  }

  /**
   * Whether {@code type} is an interface extending Spring Data's {@code Repository} or annotated
   * {@code @RepositoryDefinition} (by name: optional).
   */
  private static boolean isSpringDataRepository(Class<?> type) {
    if (!type.isInterface()) {
      return false;
    }
    if (type.getName().equals(SPRING_DATA_REPOSITORY)
        || MergedAnnotations.from(type).isPresent(REPOSITORY_DEFINITION)) {
      return true;
    }
    for (Class<?> extended : type.getInterfaces()) {
      if (isSpringDataRepository(extended)) {
        return true;
      }
    }
    return false;
  }

  private static void checkSpringDataWrites(Class<?> type, String guard) {
    RepositoryDomain domain = RepositoryDomain.of(type);
    Map<String, String> keyNames = keyNames(type, guard, domain);
    List<String> inherited = new ArrayList<>();
    List<String> declared = new ArrayList<>();
    Map<String, String> reasons = new TreeMap<>();
    for (Method method : type.getMethods()) {
      if (method.isDefault() || Modifier.isStatic(method.getModifiers()) || followed(method)) {
        continue;
      }
      String reason = whyWrite(method, type, domain, keyNames);
      if (reason == null) {
        continue;
      }
      String name = Describe.method(method);
      if (method.getDeclaringClass().getName().startsWith("org.springframework.data.")) {
        inherited.add(name);
      } else {
        declared.add(name);
        reasons.put(name, reason);
      }
    }
    if (inherited.isEmpty() && declared.isEmpty()) {
      return;
    }
    inherited.sort(null);
    declared.sort(null);
    StringBuilder message =
        new StringBuilder("Spring Data repository ")
            .append(type.getName())
            .append(" is guarded by '")
            .append(guard)
            .append("' (@CuckooGuarded), but the guard does not follow ");
    List<String> all = new ArrayList<>(inherited);
    for (String name : declared) {
      all.add(name + " (" + reasons.get(name) + ")");
    }
    message
        .append(all.size() == 1 ? "its write method " : "its write methods ")
        .append(String.join(", ", all))
        .append(
            ": a row written through them is unknown to the guard, and its finders would answer "
                + "\"absent\" for it (a false negative). ");
    if (!inherited.isEmpty()) {
      message.append(
          "save (an upsert that may assign the id after the call) and the delete methods of "
              + "CrudRepository/JpaRepository (silent on a missing id) cannot be followed: extend "
              + "org.springframework.data.repository.Repository<T, ID> instead and declare the writes you need, "
              + "e.g. @GuardedAdd(key = \"#id\") @Modifying @Query(value = \"insert …\", nativeQuery = true) "
              + "int insert(…) and @GuardedRemove(key = \"#id\") @Modifying @Query(\"delete …\") int delete(…) "
              + "(see @GuardedAdd and @GuardedRemove); or, for a Hibernate entity guarded by cuckoo-guard-hibernate, "
              + "use @CuckooGuarded(entity = …), which follows save and delete itself. ");
    }
    if (!declared.isEmpty()) {
      message
          .append("Annotate each of ")
          .append(String.join(", ", declared))
          .append(
              " with @GuardedAdd (inserts, reporting whether they created the key) or @GuardedRemove "
                  + "(deletes, reporting whether they removed it), or remove it. ");
      if (reasons.values().stream().anyMatch(r -> r.contains("assigns"))) {
        message.append(
            "An update that assigns the key moves a row to a key the guard never saw: write it as a "
                + "@GuardedRemove delete of the old key and a @GuardedAdd insert of the new one. ");
      }
      if (reasons.values().stream().anyMatch(r -> r.contains("no @Id attribute found"))) {
        message.append(
            "The check reads the key from the @Id or @EmbeddedId annotation on a field or getter of "
                + "the repository's domain type (an id mapped in orm.xml is not seen); until it can, "
                + "every @Modifying update counts as a write. ");
      }
      if (reasons.values().stream()
          .anyMatch(r -> r.contains("cannot") && !r.contains("no @Id attribute found"))) {
        message.append(
            "A query the check cannot read counts as a write: if it changes no key, give the method "
                + "a plain @Query(\"update … set …\") that assigns no key, or move it to a repository "
                + "that is not guarded. ");
      }
    }
    throw new IllegalStateException(message.toString().trim());
  }

  /**
   * Whether the guard follows {@code method} itself: the method, or one it overrides, carries
   * {@link GuardedAdd} or {@link GuardedRemove}. Matched per method, not per name: an unannotated
   * overload of an annotated write is a write of its own. This is the lookup the interceptor makes
   * for the method a call comes in on ({@link GuardOperationSource}): a JDK proxy of the repository
   * interface passes the methods of {@link Class#getMethods()}, where a re-declaration ({@code <S
   * extends T> S save(S)} re-declared with {@code @GuardedAdd}) hides the inherited method, and its
   * compiler-generated bridge is a default method, skipped by the caller.
   */
  private static boolean followed(Method method) {
    return AnnotatedElementUtils.hasAnnotation(method, GuardedAdd.class)
        || AnnotatedElementUtils.hasAnnotation(method, GuardedRemove.class);
  }

  /**
   * The key names of the domain type, and the names used by the keys of the guard's annotated
   * methods ({@code #user.email} names {@code email}: a guard may be keyed by another unique
   * attribute than the id); {@code null} if the domain type's id is not known.
   */
  private static @Nullable Map<String, String> keyNames(
      Class<?> type, String guard, RepositoryDomain domain) {
    Map<String, String> domainNames = domain.keyNames();
    if (domainNames == null) {
      return null;
    }
    Map<String, String> names = new LinkedHashMap<>(domainNames);
    for (Method method : type.getMethods()) {
      for (Class<? extends Annotation> kind :
          List.of(GuardedFind.class, GuardedAdd.class, GuardedRemove.class)) {
        MergedAnnotation<?> annotation =
            MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                .get(kind);
        if (!annotation.isPresent()
            || !annotation.getString("guard").isEmpty()
                && !annotation.getString("guard").equals(guard)) {
          continue;
        }
        String origin =
            "which the key of @" + kind.getSimpleName() + " " + Describe.method(method) + " names";
        String key = annotation.getString("key");
        if (key.isEmpty()) {
          for (Parameter parameter : keyParameters(method)) {
            names.putIfAbsent(parameter.getName().toLowerCase(Locale.ROOT), origin);
          }
        } else {
          Matcher word = KEY_WORD.matcher(key.toLowerCase(Locale.ROOT));
          while (word.find()) {
            if (!SPEL_WORDS.matcher(word.group()).matches()) {
              names.putIfAbsent(word.group(), origin);
            }
          }
        }
      }
    }
    return names;
  }

  /** The parameters an empty key names: those annotated {@link GuardKey}, or the only one. */
  private static List<Parameter> keyParameters(Method method) {
    List<Parameter> keys = new ArrayList<>();
    for (Parameter parameter : method.getParameters()) {
      if (parameter.isNamePresent() && parameter.isAnnotationPresent(GuardKey.class)) {
        keys.add(parameter);
      }
    }
    if (keys.isEmpty()
        && method.getParameterCount() == 1
        && method.getParameters()[0].isNamePresent()) {
      keys.add(method.getParameters()[0]);
    }
    return keys;
  }

  /**
   * Why Spring Data's implementation of {@code method} may add or remove keys, or {@code null} if
   * it certainly does neither; when the check cannot tell, a reason.
   */
  private static @Nullable String whyWrite(
      Method method,
      Class<?> type,
      RepositoryDomain domain,
      @Nullable Map<String, String> keyNames) {
    MergedAnnotations annotations =
        MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY);
    if (annotations.isPresent(PROCEDURE)) {
      return "it calls a stored procedure (@Procedure), which the check cannot read";
    }
    boolean modifying = annotations.isPresent(MODIFYING);
    MergedAnnotation<?> query = annotations.get(QUERY);
    String text = query.isPresent() ? query.getString("value") : "";
    if (!text.isBlank()) {
      return QueryWrites.whyWrite(text, modifying, keyNames);
    }
    String named =
        query.isPresent() && !query.getString("name").isEmpty()
            ? query.getString("name")
            : domain.describe() + "." + method.getName();
    String namedText = domain.namedQuery(named, type);
    if (namedText != null) {
      String reason = QueryWrites.whyWrite(namedText, modifying, keyNames);
      return reason == null ? null : "it runs the named query '" + named + "': " + reason;
    }
    if (modifying) {
      return "it is @Modifying without a @Query, so Spring Data runs the named query '"
          + named
          + "', which the check cannot read (no @NamedQuery or @NamedNativeQuery of that name on "
          + domain.describe()
          + ", nor in META-INF/jpa-named-queries.properties)";
    }
    if (query.isPresent()) {
      return null; // a named query that is not @Modifying reads
    }
    Matcher write = WRITE_NAME.matcher(method.getName());
    return write.matches()
        ? "a " + write.group(1) + "… method without a query the check can read"
        : null;
  }
}
