package io.github.cuckooguard.spring.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * What {@link WritePathCheck} knows of the domain type of a Spring Data repository interface, read
 * from annotations by name (JPA, Spring Data and Hibernate are optional): the names that may denote
 * its key in a query, and its named queries.
 *
 * <p>The domain type is the first type argument of {@code Repository<T, ID>} as the interface
 * resolves it, or {@code @RepositoryDefinition(domainClass = …)}. Its key names are those of the
 * attributes annotated {@code @Id} or {@code @EmbeddedId} (Jakarta or javax Persistence, or Spring
 * Data's {@code @Id}) on fields or getters of the type and its superclasses, in lower case: the
 * attribute's name, the name in snake case (Spring Boot's naming strategy), the {@code name} of its
 * {@code @Column}/{@code @JoinColumn}, and for an embedded id the same names of the embeddable's
 * fields and of {@code @AttributeOverride} columns, and the columns that an
 * {@code @AttributeOverride}/{@code @AttributeOverrides} on the type or a superclass gives the id
 * (the usual way to name a mapped superclass's id column per table). {@code id} is always a key
 * name (exact-only, {@link KeyNames}): Hibernate resolves {@code alias.id} to the identifier
 * whatever the id attribute is called. A column named by a custom physical naming strategy is
 * unknown to it; give the id an explicit {@code @Column(name = …)}.
 *
 * <p>{@link #addColumns} adds the same names for another attribute, one a guard's key names (the
 * column of a unique {@code code} stored as {@code code_text}).
 *
 * <p>Why these names are enough for an update to be read as "assigns no key": an assignment changes
 * a row's key only through the key attribute's own column; HQL names that column by the attribute,
 * by {@code id} or by a path ending in one of them, native SQL by the column's name, which JPA
 * takes from {@code @Column}, an {@code @AttributeOverride} or the naming strategy (snake case in
 * Spring Boot). Each of these is among the names.
 *
 * <p>Named queries are looked up as Spring Data JPA does for a method without {@code @Query}: in
 * {@code META-INF/jpa-named-queries.properties} (the default location), then in the
 * {@code @NamedQuery}/{@code @NamedNativeQuery} annotations of the domain type and its
 * superclasses. A named query declared elsewhere (orm.xml, another entity, in code) is not found.
 */
final class RepositoryDomain {

  private static final String SPRING_DATA_REPOSITORY =
      "org.springframework.data.repository.Repository";
  private static final String REPOSITORY_DEFINITION =
      "org.springframework.data.repository.RepositoryDefinition";
  private static final String NAMED_QUERIES_PROPERTIES = "META-INF/jpa-named-queries.properties";

  private static final Set<String> ID =
      Set.of(
          "jakarta.persistence.Id",
          "javax.persistence.Id",
          "org.springframework.data.annotation.Id");
  private static final Set<String> EMBEDDED_ID =
      Set.of("jakarta.persistence.EmbeddedId", "javax.persistence.EmbeddedId");
  private static final Set<String> COLUMN =
      Set.of(
          "jakarta.persistence.Column",
          "javax.persistence.Column",
          "jakarta.persistence.JoinColumn",
          "javax.persistence.JoinColumn");
  private static final Set<String> ATTRIBUTE_OVERRIDE =
      Set.of("jakarta.persistence.AttributeOverride", "javax.persistence.AttributeOverride");
  private static final Set<String> ATTRIBUTE_OVERRIDES =
      Set.of("jakarta.persistence.AttributeOverrides", "javax.persistence.AttributeOverrides");
  private static final Set<String> NAMED_QUERY =
      Set.of(
          "jakarta.persistence.NamedQuery",
          "jakarta.persistence.NamedNativeQuery",
          "javax.persistence.NamedQuery",
          "javax.persistence.NamedNativeQuery",
          "org.hibernate.annotations.NamedQuery",
          "org.hibernate.annotations.NamedNativeQuery");
  private static final Set<String> NAMED_QUERIES =
      Set.of(
          "jakarta.persistence.NamedQueries",
          "jakarta.persistence.NamedNativeQueries",
          "javax.persistence.NamedQueries",
          "javax.persistence.NamedNativeQueries",
          "org.hibernate.annotations.NamedQueries",
          "org.hibernate.annotations.NamedNativeQueries");

  private static final String HIBERNATE_ID = "id";

  private final Class<?> repository;
  private final @Nullable Class<?> type;

  private RepositoryDomain(Class<?> repository, @Nullable Class<?> type) {
    this.repository = repository;
    this.type = type;
  }

  /** The domain of the Spring Data repository interface {@code repository}. */
  static RepositoryDomain of(Class<?> repository) {
    return new RepositoryDomain(repository, domainType(repository));
  }

  /**
   * The type of parameter {@code index} of {@code method} as the repository interface resolves it
   * ({@code ID} of a generic base interface: the id type), else its erasure.
   */
  Class<?> parameterType(Method method, int index) {
    Class<?> resolved = ResolvableType.forMethodParameter(method, index, repository).resolve();
    return resolved != null ? resolved : method.getParameterTypes()[index];
  }

  /** The domain type, or {@code null} if the repository's declaration does not resolve it. */
  @Nullable Class<?> type() {
    return type;
  }

  /**
   * New key names holding the names that may denote the id in a query, each with where it comes
   * from; {@code null} if the domain type or its id attribute is not known.
   */
  @Nullable KeyNames keyNames() {
    if (type == null) {
      return null;
    }
    KeyNames names = idNames(type);
    if (names.isEmpty()) {
      return null;
    }
    names.addExact(
        HIBERNATE_ID,
        "Hibernate's 'id', which names the identifier of "
            + type.getName()
            + " in a query whatever its id attribute is called");
    return names;
  }

  /**
   * Adds to {@code names} the names of the attribute {@code attribute} of the domain type (matched
   * case-insensitively on its fields and getters and those of its superclasses): its snake case
   * name, the {@code name} of its {@code @Column}/{@code @JoinColumn}, and the column an
   * {@code @AttributeOverride} on the type gives it. Does nothing if the domain type is not known
   * or has no such attribute.
   */
  void addColumns(KeyNames names, String attribute, String origin) {
    if (type == null) {
      return;
    }
    names.add(snakeCase(attribute), origin);
    for (Declaration declaration : declarations(attribute)) {
      addNames(names, declaration.element(), declaration.name(), origin);
    }
    addOverrides(names, type, attribute, origin);
  }

  /**
   * Whether the domain type is known and has an attribute {@code attribute} (a field or getter of
   * it or a superclass, matched case-insensitively).
   */
  boolean hasAttribute(String attribute) {
    return !declarations(attribute).isEmpty();
  }

  /** A field or getter declaring an attribute, with the attribute's name as declared. */
  private record Declaration(AnnotatedElement element, String name) {}

  /**
   * The fields and getters of the domain type and its superclasses that declare {@code attribute}
   * (matched case-insensitively); empty if the domain type is not known.
   */
  private List<Declaration> declarations(String attribute) {
    List<Declaration> found = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (!Modifier.isStatic(field.getModifiers())
            && field.getName().equalsIgnoreCase(attribute)) {
          found.add(new Declaration(field, field.getName()));
        }
      }
      for (Method method : c.getDeclaredMethods()) {
        String property = property(method);
        if (property != null && property.equalsIgnoreCase(attribute)) {
          found.add(new Declaration(method, property));
        }
      }
    }
    return found;
  }

  /**
   * Adds the columns that {@code @AttributeOverride}s on {@code type} and its superclasses give
   * {@code attribute} or one of its parts ({@code attribute.part}).
   */
  private static void addOverrides(KeyNames names, Class<?> type, String attribute, String origin) {
    String lower = attribute.toLowerCase(Locale.ROOT);
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (AnnotationAttributes override :
          annotations(c, ATTRIBUTE_OVERRIDE, ATTRIBUTE_OVERRIDES)) {
        String name = override.getString("name").toLowerCase(Locale.ROOT);
        if (name.equals(lower) || name.startsWith(lower + ".")) {
          AnnotationAttributes column = override.getAnnotation("column");
          names.add(
              column.getString("name"),
              origin + " (its column, by @AttributeOverride on " + c.getSimpleName() + ")");
        }
      }
    }
  }

  /** The simple name of the domain type, or "the domain type" if it is not known. */
  String describe() {
    return type == null ? "the domain type" : type.getSimpleName();
  }

  /**
   * The text of the named query {@code name} where this check can see it, or {@code null}.
   *
   * @param repository the repository interface, whose class loader holds the properties file
   */
  @Nullable String namedQuery(String name, Class<?> repository) {
    String text = propertiesQuery(name, repository.getClassLoader());
    if (text != null || type == null) {
      return text;
    }
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (AnnotationAttributes query : annotations(c, NAMED_QUERY, NAMED_QUERIES)) {
        if (name.equals(query.getString("name"))) {
          return query.getString("query");
        }
      }
    }
    return null;
  }

  private static @Nullable String propertiesQuery(String name, @Nullable ClassLoader loader) {
    try {
      Enumeration<URL> files =
          loader == null
              ? ClassLoader.getSystemResources(NAMED_QUERIES_PROPERTIES)
              : loader.getResources(NAMED_QUERIES_PROPERTIES);
      while (files.hasMoreElements()) {
        Properties properties = new Properties();
        try (InputStream in = files.nextElement().openStream()) {
          properties.load(in);
        }
        String text = properties.getProperty(name);
        if (text != null) {
          return text;
        }
      }
      return null;
    } catch (IOException ex) {
      throw new IllegalStateException(
          "Cannot read "
              + NAMED_QUERIES_PROPERTIES
              + " to check the named query '"
              + name
              + "' of a guarded repository: "
              + ex.getMessage(),
          ex);
    }
  }

  private static @Nullable Class<?> domainType(Class<?> repository) {
    MergedAnnotation<?> definition =
        MergedAnnotations.from(repository, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
            .get(REPOSITORY_DEFINITION);
    if (definition.isPresent()) {
      return definition.getClass("domainClass");
    }
    Class<?> base;
    try {
      base = ClassUtils.forName(SPRING_DATA_REPOSITORY, repository.getClassLoader());
    } catch (ClassNotFoundException | LinkageError ex) {
      return null;
    }
    return ResolvableType.forClass(repository).as(base).getGeneric(0).resolve();
  }

  private static KeyNames idNames(Class<?> type) {
    KeyNames names = new KeyNames();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (!Modifier.isStatic(field.getModifiers())) {
          addIfId(names, type, field, field.getName(), field.getType());
        }
      }
      for (Method method : c.getDeclaredMethods()) {
        String property = property(method);
        if (property != null) {
          addIfId(names, type, method, property, method.getReturnType());
        }
      }
    }
    return names;
  }

  private static void addIfId(
      KeyNames names,
      Class<?> type,
      AnnotatedElement element,
      String attribute,
      Class<?> attributeType) {
    boolean embedded = has(element, EMBEDDED_ID);
    if (!embedded && !has(element, ID)) {
      return;
    }
    String origin = "the id attribute '" + attribute + "' of " + type.getName();
    addNames(names, element, attribute, origin);
    addOverrides(names, type, attribute, origin);
    if (embedded) {
      for (Field part : attributeType.getDeclaredFields()) {
        if (!Modifier.isStatic(part.getModifiers())) {
          addNames(names, part, part.getName(), origin + " (its part '" + part.getName() + "')");
        }
      }
      for (AnnotationAttributes override :
          annotations(element, ATTRIBUTE_OVERRIDE, ATTRIBUTE_OVERRIDES)) {
        AnnotationAttributes column = override.getAnnotation("column");
        names.add(column.getString("name"), origin + " (a column of its parts)");
      }
    }
  }

  private static void addNames(
      KeyNames names, AnnotatedElement element, String attribute, String origin) {
    names.add(attribute, origin);
    names.add(snakeCase(attribute), origin);
    names.add(snakeCase(attribute) + "_id", origin + " (its join column)");
    for (AnnotationAttributes column : annotations(element, COLUMN, Set.of())) {
      names.add(column.getString("name"), origin + " (its column)");
    }
  }

  /**
   * The attributes of the annotations named {@code single} on {@code element}, and of those inside
   * the containers named {@code containers} (repeated annotations).
   */
  private static List<AnnotationAttributes> annotations(
      AnnotatedElement element, Set<String> single, Set<String> containers) {
    List<AnnotationAttributes> found = new ArrayList<>();
    for (Annotation annotation : element.getDeclaredAnnotations()) {
      String name = annotation.annotationType().getName();
      if (single.contains(name)) {
        found.add(AnnotationUtils.getAnnotationAttributes(annotation, false, true));
      } else if (containers.contains(name)) {
        AnnotationAttributes container =
            AnnotationUtils.getAnnotationAttributes(annotation, false, true);
        Collections.addAll(found, container.getAnnotationArray("value"));
      }
    }
    return found;
  }

  private static boolean has(AnnotatedElement element, Set<String> names) {
    for (Annotation annotation : element.getDeclaredAnnotations()) {
      if (names.contains(annotation.annotationType().getName())) {
        return true;
      }
    }
    return false;
  }

  /** The bean property read by {@code method} if it is a getter, else {@code null}. */
  private static @Nullable String property(Method method) {
    if (method.getParameterCount() != 0 || Modifier.isStatic(method.getModifiers())) {
      return null;
    }
    String name = method.getName();
    int prefix = name.startsWith("get") ? 3 : name.startsWith("is") ? 2 : 0;
    if (prefix == 0 || name.length() == prefix) {
      return null;
    }
    return StringUtils.uncapitalize(name.substring(prefix));
  }

  /** {@code itemNo} → {@code item_no}. */
  private static String snakeCase(String name) {
    StringBuilder out = new StringBuilder(name.length() + 4);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isUpperCase(c) && i > 0) {
        out.append('_');
      }
      out.append(Character.toLowerCase(c));
    }
    return out.toString();
  }
}
