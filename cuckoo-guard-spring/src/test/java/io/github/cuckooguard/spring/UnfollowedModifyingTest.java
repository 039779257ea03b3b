package io.github.cuckooguard.spring;

import static io.github.cuckooguard.spring.support.StartupFailures.startupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.datajpa.Item;
import io.github.cuckooguard.spring.datajpa.ItemByNameRepository;
import io.github.cuckooguard.spring.datajpa.ItemCommentedInsertRepository;
import io.github.cuckooguard.spring.datajpa.ItemDefinitionRepository;
import io.github.cuckooguard.spring.datajpa.ItemJpaConfig;
import io.github.cuckooguard.spring.datajpa.ItemKeyUpdateRepository;
import io.github.cuckooguard.spring.datajpa.ItemNamedInsertRepository;
import io.github.cuckooguard.spring.datajpa.ItemOverloadRepository;
import io.github.cuckooguard.spring.datajpa.ItemRepository;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

/**
 * Writes of a guarded Spring Data JPA repository (H2, Hibernate 7) that the startup check let
 * through although the guard does not follow them: a {@code @Modifying} update that assigns the key
 * (the id, or the attribute another guard is keyed by), a {@code @Modifying} method without
 * {@code @Query} that runs a named insert, an insert behind a comment, an unannotated overload of
 * the guarded insert, and the writes of a repository declared with {@code @RepositoryDefinition}.
 * Each now fails the start of the context, naming the method and why it counts as a write; updates
 * that assign no key (and a re-declared {@code save(S)} annotated as an insert) still start.
 *
 * <p>Before the fix each of these contexts started, and of 10 rows written through the unfollowed
 * method (committed, checked on a connection of its own) 10 of 10 were answered "absent" by the
 * guarded finder ({@code findById}; {@code findByName}): JPQL key update 10 of 10, native key
 * update 10 of 10, named native insert 10 of 10, named JPQL insert-select 10 of 10, named query
 * added in code 10 of 10, insert after a block comment 10 of 10, after a line comment 10 of 10,
 * overload 10 of 10, insert of the {@code @RepositoryDefinition} repository 10 of 10, rename of a
 * guard keyed by name 10 of 10 (the CTE insert is PostgreSQL syntax and was not run on H2); the six
 * startup tests failed ("Expecting code to raise a throwable"). After the fix: none of these
 * contexts starts. {@link #renumberedRowIsAnsweredAbsentByTheGuardedFinder} pins, on a repository
 * that starts, the false negative the check prevents.
 */
@Timeout(120)
class UnfollowedModifyingTest {

  @Configuration(proxyBeanMethods = false)
  @Import(ItemJpaConfig.class)
  @EnableJpaRepositories(
      basePackageClasses = Item.class,
      includeFilters =
          @ComponentScan.Filter(
              type = FilterType.ASSIGNABLE_TYPE,
              classes = ItemKeyUpdateRepository.class))
  static class KeyUpdateConfig {}

  @Configuration(proxyBeanMethods = false)
  @Import(ItemJpaConfig.class)
  @EnableJpaRepositories(
      basePackageClasses = Item.class,
      includeFilters =
          @ComponentScan.Filter(
              type = FilterType.ASSIGNABLE_TYPE,
              classes = ItemNamedInsertRepository.class))
  static class NamedInsertConfig {}

  @Configuration(proxyBeanMethods = false)
  @Import(ItemJpaConfig.class)
  @EnableJpaRepositories(
      basePackageClasses = Item.class,
      includeFilters =
          @ComponentScan.Filter(
              type = FilterType.ASSIGNABLE_TYPE,
              classes = ItemCommentedInsertRepository.class))
  static class CommentedInsertConfig {}

  @Configuration(proxyBeanMethods = false)
  @Import(ItemJpaConfig.class)
  @EnableJpaRepositories(
      basePackageClasses = Item.class,
      includeFilters =
          @ComponentScan.Filter(
              type = FilterType.ASSIGNABLE_TYPE,
              classes = ItemOverloadRepository.class))
  static class OverloadConfig {}

  @Configuration(proxyBeanMethods = false)
  @Import(ItemJpaConfig.class)
  @EnableJpaRepositories(
      basePackageClasses = Item.class,
      includeFilters =
          @ComponentScan.Filter(
              type = FilterType.ASSIGNABLE_TYPE,
              classes = ItemDefinitionRepository.class))
  static class DefinitionConfig {}

  @Configuration(proxyBeanMethods = false)
  @Import(ItemJpaConfig.class)
  @EnableJpaRepositories(
      basePackageClasses = Item.class,
      includeFilters =
          @ComponentScan.Filter(
              type = FilterType.ASSIGNABLE_TYPE,
              classes = ItemByNameRepository.class))
  static class ByNameConfig {}

  @Configuration(proxyBeanMethods = false)
  @Import(ItemJpaConfig.class)
  @EnableJpaRepositories(
      basePackageClasses = Item.class,
      includeFilters =
          @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = ItemRepository.class))
  static class FollowedConfig {}

  private static String failureOf(Class<?> configuration) {
    return startupFailure(() -> Contexts.start(H2.newUrl(), configuration).close());
  }

  private static String method(Class<?> repository, String signature) {
    return repository.getName() + "." + signature;
  }

  @Test
  void updatesThatAssignTheKeyFailTheStart() {
    assertThat(failureOf(KeyUpdateConfig.class))
        .contains(
            "Spring Data repository "
                + ItemKeyUpdateRepository.class.getName()
                + " is guarded by 'items' (@CuckooGuarded), but the guard does not follow its write"
                + " methods ")
        .contains(
            method(ItemKeyUpdateRepository.class, "renumber(long, long)")
                + " (its update assigns 'id', the id attribute 'id' of "
                + Item.class.getName())
        .contains(
            method(ItemKeyUpdateRepository.class, "renumberNative(long, String, long)")
                + " (its update assigns 'item_no', the id attribute 'id' of "
                + Item.class.getName()
                + " (its column))")
        .contains(
            "write it as a @GuardedRemove delete of the old key and a @GuardedAdd insert of the"
                + " new one")
        .contains("its finders would answer \"absent\" for it (a false negative)")
        .doesNotContain("insert(long, String)")
        .doesNotContain("CrudRepository");
  }

  @Test
  void updateThatAssignsTheAttributeAGuardIsKeyedByFailsTheStart() {
    assertThat(failureOf(ByNameConfig.class))
        .contains("is guarded by 'itemNames'")
        .contains(
            method(ItemByNameRepository.class, "rename(long, String)")
                + " (its update assigns 'name', which the key of @GuardedFind "
                + method(ItemByNameRepository.class, "findByName(String)")
                + " names)");
  }

  @Test
  void modifyingMethodsWithoutQueryThatRunNamedInsertsFailTheStart() {
    assertThat(failureOf(NamedInsertConfig.class))
        .contains(
            method(ItemNamedInsertRepository.class, "register(long, String)")
                + " (it runs the named query 'Item.register': its query contains 'insert')")
        .contains(
            method(ItemNamedInsertRepository.class, "copy(long, long)")
                + " (it runs the named query 'Item.copy': its query contains 'insert')")
        .contains(
            method(ItemNamedInsertRepository.class, "restore(long, String)")
                + " (it is @Modifying without a @Query, so Spring Data runs the named query"
                + " 'Item.restore', which the check cannot read")
        .contains("A query the check cannot read counts as a write");
  }

  @Test
  void insertsBehindACommentOrACommonTableExpressionFailTheStart() {
    assertThat(failureOf(CommentedInsertConfig.class))
        .contains(
            method(ItemCommentedInsertRepository.class, "audited(long, String)")
                + " (its query contains 'insert')")
        .contains(
            method(ItemCommentedInsertRepository.class, "imported(long, String)")
                + " (its query contains 'insert')")
        .contains(
            method(ItemCommentedInsertRepository.class, "fromCommonTableExpression(long, String)")
                + " (its query contains 'insert')");
  }

  @Test
  void unannotatedOverloadOfTheGuardedInsertFailsTheStart() {
    assertThat(failureOf(OverloadConfig.class))
        .contains(
            "does not follow its write method "
                + method(ItemOverloadRepository.class, "insert(String, long)")
                + " (its query contains 'insert')")
        .contains(
            "Annotate each of " + method(ItemOverloadRepository.class, "insert(String, long)"))
        .doesNotContain("insert(long, String)");
  }

  @Test
  void repositoryDefinitionWithAnUnannotatedInsertAndAProcedureFailsTheStart() {
    assertThat(failureOf(DefinitionConfig.class))
        .contains(
            method(ItemDefinitionRepository.class, "insert(long, String)")
                + " (its query contains 'insert')")
        .contains(
            method(ItemDefinitionRepository.class, "importItem(long)")
                + " (it calls a stored procedure (@Procedure), which the check cannot read)");
  }

  @Test
  @SuppressWarnings("unchecked")
  void updatesThatAssignNoKeyAndARedeclaredSaveStartAndEveryRowStaysFound() {
    String url = H2.newUrl();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, FollowedConfig.class)) {
      ItemRepository items = context.getBean(ItemRepository.class);
      CuckooGuard<Object> guard = context.getBean("items", CuckooGuard.class);
      Await.until("warm-up of guard 'items'", () -> !guard.isPassThrough());

      assertThat(items.insert(1, "one")).isEqualTo(1);
      assertThat(items.rename(1, "uno")).isEqualTo(1);
      assertThat(items.findById(1L)).get().extracting(Item::getName).isEqualTo("uno");
      assertThat(items.renameNative(1, "eins")).isEqualTo(1);
      assertThat(items.findById(1L))
          .get()
          .extracting(Item::getName)
          .isEqualTo("eins (id = 1; insert)");
      assertThat(items.relabel(1, "un")).isEqualTo(1);
      assertThat(items.findById(1L)).get().extracting(Item::getName).isEqualTo("un");

      items.save(new Item(2, "two"));
      assertThat(ItemJpaConfig.committedItemExists(url, 2)).isTrue();
      assertThat(items.findById(2L)).as("saved through the annotated save(S)").isPresent();
      assertThat(guard.stats().size()).isEqualTo(2);
    }
  }

  /**
   * What the check prevents, on a repository that starts: a committed row whose key an update
   * assigns behind the guard (here a statement on a connection of its own, as the rejected {@code
   * renumber} would run it) is answered "absent" by the guarded finder: 10 of 10 before a rebuild.
   */
  @Test
  @SuppressWarnings("unchecked")
  void renumberedRowIsAnsweredAbsentByTheGuardedFinder() {
    String url = H2.newUrl();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, FollowedConfig.class)) {
      ItemRepository items = context.getBean(ItemRepository.class);
      CuckooGuard<Object> guard = context.getBean("items", CuckooGuard.class);
      Await.until("warm-up of guard 'items'", () -> !guard.isPassThrough());
      int absent = 0;
      for (long id = 1; id <= 10; id++) {
        items.insert(id, "item " + id);
        H2.execute(url, "update item set item_no = " + (id + 100) + " where item_no = " + id);
        assertThat(ItemJpaConfig.committedItemExists(url, id + 100)).isTrue();
        if (items.findById(id + 100).isEmpty() && !guard.mightContain(id + 100)) {
          absent++;
        }
      }
      assertThat(absent).as("renumbered rows answered absent").isEqualTo(10);
    }
  }
}
