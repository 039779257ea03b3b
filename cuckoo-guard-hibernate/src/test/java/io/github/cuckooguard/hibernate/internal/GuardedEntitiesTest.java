package io.github.cuckooguard.hibernate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import io.github.cuckooguard.hibernate.GuardedEntity;
import io.github.cuckooguard.hibernate.model.Animal;
import io.github.cuckooguard.hibernate.model.Book;
import io.github.cuckooguard.hibernate.model.Cat;
import io.github.cuckooguard.hibernate.model.Dog;
import io.github.cuckooguard.hibernate.model.Ledger;
import io.github.cuckooguard.hibernate.model.Plain;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.util.List;
import java.util.Map;
import org.hibernate.annotations.SQLRestriction;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which entities the integrator guards, from the boot model alone (no session factory). */
class GuardedEntitiesTest {

  @Entity
  @GuardedEntity(fpp = 2)
  static class BadFpp {
    @Id Long id;
  }

  @Entity
  @GuardedEntity
  @SQLRestriction("active = true")
  static class Restricted {
    @Id Long id;
    boolean active;
  }

  private StandardServiceRegistry registry;

  @AfterEach
  void close() {
    if (registry != null) {
      StandardServiceRegistryBuilder.destroy(registry);
    }
  }

  private Metadata metadata(Class<?>... entities) {
    registry =
        new StandardServiceRegistryBuilder()
            .applySetting("hibernate.dialect", "org.hibernate.dialect.H2Dialect")
            .applySetting("hibernate.boot.allow_jdbc_metadata_access", "false")
            .build();
    MetadataSources sources = new MetadataSources(registry);
    for (Class<?> entity : entities) {
      sources.addAnnotatedClass(entity);
    }
    return sources.buildMetadata();
  }

  private static GuardSettings settings(Map<String, Object> values) {
    return GuardSettings.from(values);
  }

  @Test
  void annotatedAndListedEntitiesAreGuardedPerRoot() {
    Metadata metadata =
        metadata(Book.class, Animal.class, Dog.class, Cat.class, Ledger.class, Plain.class);
    List<EntityConfig> configs =
        CuckooGuardIntegrator.guardedEntities(
            metadata,
            settings(
                Map.of(CuckooGuardSettings.ENTITIES, "Ledger", CuckooGuardSettings.FPP, 0.02)));

    assertThat(configs)
        .extracting(EntityConfig::rootEntityName)
        .containsExactlyInAnyOrder(
            Book.class.getName(), Animal.class.getName(), Ledger.class.getName());
    EntityConfig book =
        configs.stream()
            .filter(c -> c.rootEntityName().equals(Book.class.getName()))
            .findFirst()
            .orElseThrow();
    assertThat(book.spec().expectedInsertions()).isEqualTo(10_000); // the annotation wins
    assertThat(book.spec().fpp()).isEqualTo(0.01);
    EntityConfig ledger =
        configs.stream()
            .filter(c -> c.rootEntityName().equals(Ledger.class.getName()))
            .findFirst()
            .orElseThrow();
    assertThat(ledger.spec().fpp()).isEqualTo(0.02); // the setting's default
    assertThat(ledger.spec().expectedInsertions())
        .isEqualTo(CuckooGuardSettings.DEFAULT_EXPECTED_INSERTIONS);
  }

  @Test
  void unknownListedEntityFailsWithItsName() {
    Metadata metadata = metadata(Book.class);
    assertThatThrownBy(
            () ->
                CuckooGuardIntegrator.guardedEntities(
                    metadata, settings(Map.of(CuckooGuardSettings.ENTITIES, "Nope"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[Nope]")
        .hasMessageContaining("not mapped");
  }

  @Test
  void badAnnotationValueNamesTheEntity() {
    Metadata metadata = metadata(BadFpp.class);
    assertThatThrownBy(() -> CuckooGuardIntegrator.guardedEntities(metadata, settings(Map.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("@GuardedEntity on")
        .hasMessageContaining("BadFpp")
        .hasMessageContaining("fpp (2.0)");
  }

  @Test
  void restrictedEntityCannotBeGuarded() {
    Metadata metadata = metadata(Restricted.class);
    assertThatThrownBy(() -> CuckooGuardIntegrator.guardedEntities(metadata, settings(Map.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("@SQLRestriction");
  }
}
