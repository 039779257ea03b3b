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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.Indexer;
import org.springframework.expression.spel.ast.IntLiteral;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
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
 *       {@link GuardedAdd}/{@link GuardedRemove} naming no guard or the repository's own: an
 *       annotation that names another guard makes that guard follow the write, not this one. {@code
 *       save} is an upsert that may assign the id after the call and {@code deleteById} ignores a
 *       missing id, so the guard cannot follow them itself (see {@link GuardedAdd} and {@link
 *       GuardedRemove}); the message says what to declare instead.
 *   <li>Why no present key is answered "absent" through an allowed method: the only
 *       {@code @Modifying} queries allowed unannotated are updates (read with comments and literals
 *       removed) whose {@code set} clause assigns none of the key names ({@link RepositoryDomain}:
 *       the domain type's id attribute, Hibernate's {@code id}, their columns, and the attributes
 *       the keys of the guard's methods read with their columns; a positional key such as {@code
 *       #p0} or {@code #root.args[0]} reads the parameter of that position, by its name); such an
 *       update changes no row's key and creates no row, so the set of keys is the same after it.
 *       When the key's attribute cannot be determined from a key expression (an unnamed parameter,
 *       a whole entity, a computed value), every {@code @Modifying} update counts as a write. Any
 *       query containing {@code update} other than its own leading statement and a row lock ({@code
 *       for update}) is a write ({@link QueryWrites}).
 *   <li>A method without {@code @Query} is read through its named query ({@code @NamedQuery},
 *       {@code META-INF/jpa-named-queries.properties}). When that query is not found, a
 *       {@code @Modifying} method is a write, and so is any other method unless it is declared by
 *       Spring Data, named as a derived query that reads ({@code find…By}, {@code count…By}, … as
 *       PartTree parses them), a read of the repository base class ({@code findAll}, {@code count},
 *       …), or annotated {@link GuardedFind}: Spring Data runs a named query declared where the
 *       check cannot see it (orm.xml, in code), or a method of the repository base class or of a
 *       fragment ({@code persist}), which may insert.
 *   <li>Everything the check cannot read (an unknown id attribute, an unreadable query, a second
 *       statement) counts as a write: the start fails and the message says why, rather than the
 *       guard missing a key.
 *   <li>Matching is per method (name and parameter types, as the interceptor resolves annotations),
 *       so an unannotated overload of an annotated insert is a write of its own.
 *   <li>Not checked: class-based repositories, and the methods of a Spring Data repository's
 *       fragments (custom implementations) and base class whose names read as derived queries
 *       (which of their methods write is known only to their author); a select of a function with
 *       side effects ({@code select my_insert_fn(:id)}); and a repository without {@code
 *       CuckooGuarded} that names the guard on its methods ({@code @GuardedFind(guard = "items")}):
 *       its inherited {@code save} is not checked against that guard.
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

  private static final String PARAM = "org.springframework.data.repository.query.Param";

  private static final SpelExpressionParser PARSER = new SpelExpressionParser();

  private static final ParameterNameDiscoverer PARAMETER_NAMES =
      new DefaultParameterNameDiscoverer();

  /** A positional variable of a key expression: {@code p0}, {@code a0}. */
  private static final Pattern POSITIONAL = Pattern.compile("[pa][0-9]+");

  /**
   * The names of Spring Data derived queries that read, as PartTree parses them: a read prefix, a
   * subject and {@code By} ({@code findDistinctFirst3ByName}).
   */
  private static final Pattern DERIVED_READ =
      Pattern.compile("^(find|read|get|query|search|stream|count|exists)(\\p{Lu}.*?)??By.*$");

  /**
   * The read methods of Spring Data's repository base classes ({@code SimpleJpaRepository}), which
   * a repository interface may re-declare ({@code List<T> findAll()} in a plain {@code
   * Repository}): Spring Data routes them to the base class by signature.
   */
  private static final Set<String> BASE_READS =
      Set.of(
          "findAll",
          "findAllById",
          "findById",
          "findOne",
          "findBy",
          "count",
          "exists",
          "existsById",
          "getById",
          "getOne",
          "getReferenceById");

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
    KeyNames keyNames = keyNames(type, guard, domain);
    List<String> inherited = new ArrayList<>();
    List<String> declared = new ArrayList<>();
    Map<String, String> reasons = new TreeMap<>();
    for (Method method : type.getMethods()) {
      if (method.isDefault()
          || Modifier.isStatic(method.getModifiers())
          || followed(method, guard)) {
        continue;
      }
      String reason = whyWrite(method, type, domain, keyNames);
      if (reason == null) {
        continue;
      }
      String other = otherGuard(method);
      if (other != null) {
        reason +=
            "; its " + other + " names another guard, which follows it instead of '" + guard + "'";
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
      if (reasons.values().stream().anyMatch(r -> r.contains("which attribute the key is"))) {
        message.append(
            "The check reads the key's attribute from the guard's key expressions: write them with "
                + "named parameters (key = \"#name\", key = \"#entity.code\"; compile with "
                + "-parameters or add @Param) rather than as #p0, #a0 or #root.args[0] of an "
                + "unnamed parameter, a whole entity or a computed value; until it can, every "
                + "@Modifying update counts as a write. ");
      }
      if (reasons.values().stream().anyMatch(r -> r.contains("no Spring Data derived query"))) {
        message.append(
            "A method without @Query whose name is no derived query (find…By, count…By, exists…By "
                + "…) runs a named query, the repository base class or a fragment, which the check "
                + "cannot read: declare its @Query, annotate it @GuardedAdd or @GuardedRemove if it "
                + "writes, or @GuardedFind if it only reads. ");
      }
      if (reasons.values().stream().anyMatch(r -> r.contains("names another guard"))) {
        message.append(
            "A write annotated for another guard is not followed by this one (a method carries "
                + "one @GuardedAdd): give this guard's repository a write of its own, or keep the "
                + "two guards' writes in separate methods that both guards follow. ");
      }
      if (reasons.values().stream()
          .anyMatch(
              r ->
                  r.contains("cannot")
                      && !r.contains("no @Id attribute found")
                      && !r.contains("which attribute the key is")
                      && !r.contains("no Spring Data derived query"))) {
        message.append(
            "A query the check cannot read counts as a write: if it changes no key, give the method "
                + "a plain @Query(\"update … set …\") that assigns no key, or move it to a repository "
                + "that is not guarded. ");
      }
    }
    throw new IllegalStateException(message.toString().trim());
  }

  /**
   * Whether the guard {@code guard} follows {@code method} itself: the method, or one it overrides,
   * carries {@link GuardedAdd} or {@link GuardedRemove} naming no guard (the repository's) or
   * {@code guard}. An annotation naming another guard makes that guard follow the write, not this
   * one (one method cannot carry two): a row it inserts would be answered "absent" by this guard's
   * finders, so the method is checked as if unannotated. Matched per method, not per name: an
   * unannotated overload of an annotated write is a write of its own. This is the lookup the
   * interceptor makes for the method a call comes in on ({@link GuardOperationSource}): a JDK proxy
   * of the repository interface passes the methods of {@link Class#getMethods()}, where a
   * re-declaration ({@code <S extends T> S save(S)} re-declared with {@code @GuardedAdd}) hides the
   * inherited method, and its compiler-generated bridge is a default method, skipped by the caller.
   */
  private static boolean followed(Method method, String guard) {
    for (Class<? extends Annotation> kind : List.of(GuardedAdd.class, GuardedRemove.class)) {
      MergedAnnotation<?> annotation =
          MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY).get(kind);
      if (annotation.isPresent()) {
        String named = annotation.getString("guard");
        return named.isEmpty() || named.equals(guard);
      }
    }
    return false;
  }

  /**
   * {@code @GuardedAdd(guard = "…")} or {@code @GuardedRemove(guard = "…")} if {@code method}
   * carries one (then naming another guard than the repository's, as {@link #followed} returned
   * false), else {@code null}.
   */
  private static @Nullable String otherGuard(Method method) {
    for (Class<? extends Annotation> kind : List.of(GuardedAdd.class, GuardedRemove.class)) {
      MergedAnnotation<?> annotation =
          MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY).get(kind);
      if (annotation.isPresent()) {
        return "@" + kind.getSimpleName() + "(guard = \"" + annotation.getString("guard") + "\")";
      }
    }
    return null;
  }

  /**
   * The key names of the guard {@code guard}: those of the domain type's id ({@link
   * RepositoryDomain#keyNames()}), and the attributes the keys of the guard's annotated methods
   * read, with their columns ({@code #user.email} names {@code email}: a guard may be keyed by
   * another unique attribute than the id). A positional key ({@code #p0}, {@code #a0}, {@code
   * #root.args[0]}, or none: the {@link GuardKey} or only parameter) names the parameter's name
   * (from {@code -parameters}, else its {@code @Param}). When the attribute cannot be determined
   * (an unnamed parameter, a key that is a whole entity, an expression other than a path on a
   * parameter), {@link KeyNames#unknown} says why and every update counts as a write. {@code null}
   * if the domain type's id is not known.
   */
  private static @Nullable KeyNames keyNames(Class<?> type, String guard, RepositoryDomain domain) {
    KeyNames names = domain.keyNames();
    if (names == null) {
      return null;
    }
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
        String where = "@" + kind.getSimpleName() + " " + Describe.method(method);
        String key = annotation.getString("key");
        if (key.isEmpty()) {
          int index = keyParameter(method);
          if (index < 0) {
            names.unknown(
                where + " names no key (no key expression, @GuardKey or single parameter)");
          } else {
            addParameter(names, domain, method, index, true, false, where, "its key parameter");
          }
        } else {
          addExpression(names, domain, method, key, where);
        }
      }
    }
    return names;
  }

  /** The parameter an empty key names: the one annotated {@link GuardKey}, or the only one. */
  private static int keyParameter(Method method) {
    Parameter[] parameters = method.getParameters();
    for (int i = 0; i < parameters.length; i++) {
      if (parameters[i].isAnnotationPresent(GuardKey.class)) {
        return i;
      }
    }
    return parameters.length == 1 ? 0 : -1;
  }

  /**
   * Adds the names of the key expression {@code key}: every word that is no SpEL word (with the
   * columns of the attribute of that name), and the name of every parameter it reads by position.
   */
  private static void addExpression(
      KeyNames names, RepositoryDomain domain, Method method, String key, String where) {
    String origin = "which the key of " + where + " names";
    Matcher word = KEY_WORD.matcher(key.toLowerCase(Locale.ROOT));
    while (word.find()) {
      if (!SPEL_WORDS.matcher(word.group()).matches()) {
        names.add(word.group(), origin);
        domain.addColumns(names, word.group(), origin);
      }
    }
    SpelNode ast;
    try {
      ast = ((SpelExpression) PARSER.parseExpression(key)).getAST();
    } catch (ParseException | ClassCastException ex) {
      names.unknown(where + ": its key expression \"" + key + "\" cannot be parsed");
      return;
    }
    List<SpelNode> chain = new ArrayList<>();
    if (ast instanceof CompoundExpression) {
      for (int i = 0; i < ast.getChildCount(); i++) {
        chain.add(ast.getChild(i));
      }
    } else {
      chain.add(ast);
    }
    String unreadable =
        where
            + ": the check cannot tell which attribute its key expression \""
            + key
            + "\" reads (only a parameter, or a path of properties and methods on one, is read)";
    if (!(chain.get(0) instanceof VariableReference variable)) {
      names.unknown(unreadable);
      return;
    }
    String name = variable.toStringAST().substring(1);
    int index;
    int rest = 1;
    if (name.equals("root")) {
      // #root.args[N]
      if (chain.size() < 3
          || !(chain.get(1) instanceof PropertyOrFieldReference args)
          || !args.getName().equals("args")
          || !(chain.get(2) instanceof Indexer indexer)
          || indexer.getChildCount() != 1
          || !(indexer.getChild(0) instanceof IntLiteral literal)) {
        names.unknown(unreadable);
        return;
      }
      index = literal.getLiteralValue().getValue() instanceof Integer n ? n : -1;
      rest = 3;
    } else if (POSITIONAL.matcher(name).matches()) {
      index = Integer.parseInt(name.substring(1));
    } else {
      String[] parameterNames = PARAMETER_NAMES.getParameterNames(method);
      index = parameterNames == null ? -1 : List.of(parameterNames).indexOf(name);
      if (index < 0) {
        index = paramIndex(method, name);
      }
    }
    if (index < 0 || index >= method.getParameterCount()) {
      names.unknown(unreadable);
      return;
    }
    for (SpelNode node : chain.subList(rest, chain.size())) {
      if (!(node instanceof PropertyOrFieldReference)
          && !(node instanceof MethodReference && node.getChildCount() == 0)) {
        names.unknown(unreadable);
        return;
      }
    }
    addParameter(
        names,
        domain,
        method,
        index,
        rest == chain.size(),
        name.equals("root") || POSITIONAL.matcher(name).matches(),
        where,
        "\"" + key + "\"");
  }

  /**
   * Adds the name of the parameter {@code index} of {@code method} ({@code positional}: the key
   * names it by position, which the message then says); if {@code bare} (the key is the parameter
   * itself, not a path on it) and the parameter is an entity, records that the key's attribute is
   * unknown.
   */
  private static void addParameter(
      KeyNames names,
      RepositoryDomain domain,
      Method method,
      int index,
      boolean bare,
      boolean positional,
      String where,
      String key) {
    String name = parameterName(method, index);
    if (name == null) {
      names.unknown(
          where
              + ": "
              + key
              + " is parameter "
              + index
              + ", whose name the check cannot find; compile with -parameters or annotate it with "
              + "@Param, and write the key as key = \"#name\"");
      return;
    }
    String origin =
        "which the key of " + where + " names" + (positional ? " (parameter '" + name + "')" : "");
    names.add(name, origin);
    domain.addColumns(names, name, origin);
    Class<?> parameterType = domain.parameterType(method, index);
    if (bare && !isEntity(parameterType, domain) && !domain.hasAttribute(name)) {
      // the parameter holds the key, but its name is no attribute ("value" for the code): which
      // column holds the key is not known, so every unannotated update counts as a write
      names.unknown(
          where
              + ": its key parameter '"
              + name
              + "' is named like no attribute of "
              + domain.describe()
              + ", so the check cannot tell which attribute holds the key; name the parameter"
              + " like the attribute (e.g. findByCode(String code), key = \"#code\")");
    }
    if (bare && isEntity(parameterType, domain)) {
      names.unknown(
          where
              + ": its key is the whole "
              + parameterType.getSimpleName()
              + " parameter '"
              + name
              + "', not an attribute of it; name the attribute, e.g. key = \"#"
              + name
              + ".id\"");
    }
  }

  /** The name of parameter {@code index}: from the class file, else its {@code @Param}. */
  private static @Nullable String parameterName(Method method, int index) {
    String[] names = PARAMETER_NAMES.getParameterNames(method);
    if (names != null && index < names.length) {
      return names[index];
    }
    MergedAnnotation<?> param = MergedAnnotations.from(method.getParameters()[index]).get(PARAM);
    return param.isPresent() && !param.getString("value").isEmpty()
        ? param.getString("value")
        : null;
  }

  /** The parameter whose {@code @Param} is {@code name}, or -1. */
  private static int paramIndex(Method method, String name) {
    Parameter[] parameters = method.getParameters();
    for (int i = 0; i < parameters.length; i++) {
      MergedAnnotation<?> param = MergedAnnotations.from(parameters[i]).get(PARAM);
      if (param.isPresent() && name.equals(param.getString("value"))) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether a key of type {@code type} may be an entity: the domain type, a super- or subtype of it
   * ({@code Object}, an unresolved type variable's bound), or a type annotated {@code @Entity}.
   */
  private static boolean isEntity(Class<?> type, RepositoryDomain domain) {
    Class<?> domainType = domain.type();
    if (domainType != null
        && (type.isAssignableFrom(domainType) || domainType.isAssignableFrom(type))) {
      return true;
    }
    MergedAnnotations annotations = MergedAnnotations.from(type);
    return annotations.isPresent("jakarta.persistence.Entity")
        || annotations.isPresent("javax.persistence.Entity");
  }

  /**
   * Why Spring Data's implementation of {@code method} may add or remove keys, or {@code null} if
   * it certainly does neither; when the check cannot tell, a reason.
   */
  private static @Nullable String whyWrite(
      Method method, Class<?> type, RepositoryDomain domain, @Nullable KeyNames keyNames) {
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
    Matcher write = WRITE_NAME.matcher(method.getName());
    if (write.matches()) {
      return "a " + write.group(1) + "… method without a query the check can read";
    }
    if (method.getDeclaringClass().getName().startsWith("org.springframework.data.")
        || DERIVED_READ.matcher(method.getName()).matches()
        || BASE_READS.contains(method.getName())
        || annotations.isPresent(GuardedFind.class)) {
      return null; // a derived query that reads, a base class read, or a declared guarded finder
    }
    return "it has no @Query and its name is no Spring Data derived query, so Spring Data runs the "
        + "named query '"
        + named
        + "' (not found where the check can read it: @NamedQuery or @NamedNativeQuery on "
        + domain.describe()
        + ", META-INF/jpa-named-queries.properties) or a method of the repository base class or "
        + "of a fragment, which the check cannot read";
  }
}
