package io.github.cuckooguard.spring.datajpa;

import jakarta.persistence.EntityManager;
import org.springframework.data.jpa.repository.support.JpaEntityInformation;
import org.springframework.data.jpa.repository.support.SimpleJpaRepository;
import org.springframework.transaction.annotation.Transactional;

/** Reviewer's repository base class (R13): implements {@link ReviewPersistingRepository}. */
public class ReviewBaseRepositoryImpl<T, ID> extends SimpleJpaRepository<T, ID>
    implements ReviewPersistingRepository<T, ID> {

  private final EntityManager entityManager;

  public ReviewBaseRepositoryImpl(
      JpaEntityInformation<T, ?> entityInformation, EntityManager entityManager) {
    super(entityInformation, entityManager);
    this.entityManager = entityManager;
  }

  @Override
  @Transactional
  public <S extends T> S persist(S entity) {
    entityManager.persist(entity);
    return entity;
  }
}
