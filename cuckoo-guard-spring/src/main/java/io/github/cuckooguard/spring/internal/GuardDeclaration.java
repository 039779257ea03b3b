package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.CuckooGuarded;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Everything the beans of a context say about one guard name: the {@link CuckooGuarded} annotations
 * (one guard may be declared by several repositories, which must then agree) and the
 * {@code @GuardKeySource} method, if any. Collected before any bean is created; not thread-safe
 * (used by the registrar only).
 */
final class GuardDeclaration {

  private final String name;
  private final List<String> declaredBy = new ArrayList<>();
  private long expectedInsertions = CuckooGuarded.UNSET;
  private double fpp = CuckooGuarded.UNSET;
  private String specBean = "";
  private String keySourceBean = "";
  private boolean startsEmpty;
  private KeyScan.@Nullable OfMethod keyScanMethod;

  GuardDeclaration(String name) {
    this.name = name;
  }

  String name() {
    return name;
  }

  long expectedInsertions() {
    return expectedInsertions;
  }

  double fpp() {
    return fpp;
  }

  /** The name of the {@code GuardSpec} bean, or empty. */
  String specBean() {
    return specBean;
  }

  boolean startsEmpty() {
    return startsEmpty;
  }

  /** Where the declarations are, for messages. */
  String declaredBy() {
    return String.join(", ", declaredBy);
  }

  /**
   * Adds one {@code @CuckooGuarded} of class {@code where}.
   *
   * @throws IllegalStateException if it configures the guard differently from an earlier one
   */
  void merge(CuckooGuarded annotation, String where) {
    if (declaredBy.contains(where)) {
      return;
    }
    expectedInsertions =
        agree(
            "expectedInsertions",
            expectedInsertions,
            annotation.expectedInsertions(),
            CuckooGuarded.UNSET,
            where);
    fpp = agree("fpp", fpp, annotation.fpp(), (double) CuckooGuarded.UNSET, where);
    specBean = agree("spec", specBean, annotation.spec(), "", where);
    if (!specBean.isEmpty()
        && (expectedInsertions != CuckooGuarded.UNSET || fpp != CuckooGuarded.UNSET)) {
      throw new IllegalStateException(
          "Guard '"
              + name
              + "' is declared with spec = \""
              + specBean
              + "\" and with "
              + "expectedInsertions or fpp (by "
              + declaredBy()
              + (declaredBy.isEmpty() ? "" : ", ")
              + where
              + "); the "
              + "GuardSpec bean holds every setting: set them there, or drop spec.");
    }
    keySourceBean = agree("keySource", keySourceBean, annotation.keySource(), "", where);
    startsEmpty = agree("startsEmpty", startsEmpty, annotation.startsEmpty(), false, where);
    declaredBy.add(where);
  }

  private <T> T agree(String attribute, T current, T declared, T unset, String where) {
    if (Objects.equals(current, unset) || Objects.equals(current, declared)) {
      return declared;
    }
    if (Objects.equals(declared, unset)) {
      return current;
    }
    throw new IllegalStateException(
        "Guard '"
            + name
            + "' is declared with "
            + attribute
            + " = "
            + current
            + " by "
            + declaredBy()
            + " and "
            + attribute
            + " = "
            + declared
            + " by "
            + where
            + "; declarations of one guard must agree. Set it in one place only.");
  }

  /**
   * Adds a {@code @GuardKeySource} method.
   *
   * @throws IllegalStateException if the guard already has a different key source
   */
  void keyScanMethod(KeyScan.OfMethod scan) {
    KeyScan.OfMethod current = keyScanMethod;
    if (current != null && !current.method().equals(scan.method())) {
      throw new IllegalStateException(
          "Guard '"
              + name
              + "' has two @GuardKeySource methods, "
              + Describe.method(current.method())
              + " and "
              + Describe.method(scan.method())
              + "; a guard has one key source.");
    }
    if (current == null) {
      keyScanMethod = scan;
    }
  }

  /** Whether anything beyond the name is configured (not allowed for a guard bean of your own). */
  boolean configuresGuard() {
    return expectedInsertions != CuckooGuarded.UNSET
        || fpp != CuckooGuarded.UNSET
        || !specBean.isEmpty()
        || !keySourceBean.isEmpty()
        || startsEmpty
        || keyScanMethod != null;
  }

  /**
   * The key source of the guard, or null if it starts empty and has none.
   *
   * @throws IllegalStateException if it has two, or none without {@code startsEmpty}
   */
  @Nullable KeyScan keyScan() {
    KeyScan.OfMethod method = keyScanMethod;
    if (method != null && !keySourceBean.isEmpty()) {
      throw new IllegalStateException(
          "Guard '"
              + name
              + "' has two key sources: keySource = \""
              + keySourceBean
              + "\" (declared by "
              + declaredBy()
              + ") and "
              + method.describe()
              + "; keep one.");
    }
    if (method != null) {
      return method;
    }
    if (!keySourceBean.isEmpty()) {
      return new KeyScan.OfBean(keySourceBean);
    }
    if (!startsEmpty()) {
      throw new IllegalStateException(
          "Guard '"
              + name
              + "' (declared by "
              + declaredBy()
              + ") has no "
              + "key source, so it cannot learn the keys that exist when the application starts, and "
              + "would answer \"absent\" for them. Name a KeySource bean with @CuckooGuarded(keySource "
              + "= \"…\"), or annotate a repository method that returns all keys with @GuardKeySource; "
              + "only if the store is empty at every start, declare @CuckooGuarded(startsEmpty = true).");
    }
    return null;
  }
}
