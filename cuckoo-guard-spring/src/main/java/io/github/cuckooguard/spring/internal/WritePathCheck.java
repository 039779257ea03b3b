package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedRemove;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
 *       would be answered "absent": a false negative), a derived {@code deleteBy…}/ {@code
 *       removeBy…} query, or a {@code @Modifying} query that inserts or deletes, unless it is
 *       annotated {@link GuardedAdd}/{@link GuardedRemove}. {@code save} is an upsert that may
 *       assign the id after the call and {@code deleteById} ignores a missing id, so the guard
 *       cannot follow them itself (see {@link GuardedAdd} and {@link GuardedRemove}); the message
 *       says what to declare instead. A {@code @Modifying} update is allowed: it changes no key.
 *       Class-based repositories cannot be checked: which of their methods write is known only to
 *       their author.
 *   <li>A repository declared with {@code @CuckooGuarded(entity = …)} may not carry a {@link
 *       GuardedAdd} or {@link GuardedRemove} that names no guard of its own: Hibernate already
 *       follows that entity's writes.
 * </ul>
 */
final class WritePathCheck {

  private static final String SPRING_DATA_REPOSITORY =
      "org.springframework.data.repository.Repository";
  private static final String MODIFYING = "org.springframework.data.jpa.repository.Modifying";
  private static final String QUERY = "org.springframework.data.jpa.repository.Query";

  /**
   * Method names of Spring Data writes: {@code save…}, {@code delete…}, {@code remove…}, {@code
   * insert…}.
   */
  private static final Pattern WRITE_NAME =
      Pattern.compile("^(save|delete|remove|insert)(\\p{Lu}.*)?$");

  /** Queries that add or remove rows. */
  private static final Pattern KEY_CHANGING_QUERY =
      Pattern.compile(
          "^\\s*(insert|delete|merge|replace|truncate|upsert)\\b", Pattern.CASE_INSENSITIVE);

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
   * Whether {@code type} is an interface extending Spring Data's {@code Repository} (by name:
   * optional).
   */
  private static boolean isSpringDataRepository(Class<?> type) {
    if (!type.isInterface()) {
      return false;
    }
    if (type.getName().equals(SPRING_DATA_REPOSITORY)) {
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
    Set<String> followed = new LinkedHashSet<>();
    for (Method method : type.getMethods()) {
      if (AnnotatedElementUtils.hasAnnotation(method, GuardedAdd.class)
          || AnnotatedElementUtils.hasAnnotation(method, GuardedRemove.class)) {
        followed.add(method.getName() + "/" + method.getParameterCount());
      }
    }
    List<String> inherited = new ArrayList<>();
    List<String> declared = new ArrayList<>();
    for (Method method : type.getMethods()) {
      if (method.isDefault()
          || Modifier.isStatic(method.getModifiers())
          || followed.contains(method.getName() + "/" + method.getParameterCount())
          || !writes(method)) {
        continue;
      }
      (method.getDeclaringClass().getName().startsWith("org.springframework.data.")
              ? inherited
              : declared)
          .add(Describe.method(method));
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
    all.addAll(declared);
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
                  + "(deletes, reporting whether they removed it), or remove it.");
    }
    throw new IllegalStateException(message.toString().trim());
  }

  /** Whether Spring Data implements {@code method} as a write that adds or removes keys. */
  private static boolean writes(Method method) {
    MergedAnnotations annotations =
        MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY);
    if (annotations.isPresent(MODIFYING)) {
      MergedAnnotation<?> query = annotations.get(QUERY);
      return query.isPresent() && KEY_CHANGING_QUERY.matcher(query.getString("value")).find();
    }
    if (annotations.isPresent(QUERY)) {
      return false; // a query without @Modifying reads
    }
    return WRITE_NAME.matcher(method.getName()).matches();
  }
}
