package io.github.cuckooguard.spring.datajpa;

import org.springframework.data.repository.NoRepositoryBean;
import org.springframework.data.repository.Repository;

/**
 * Reviewer's base repository interface (R13), shaped like Hypersistence Utils' {@code
 * BaseJpaRepository} (recommended instead of {@code save}): {@code persist} is implemented by the
 * repository base class {@link ReviewBaseRepositoryImpl}.
 */
@NoRepositoryBean
public interface ReviewPersistingRepository<T, ID> extends Repository<T, ID> {

  /** Persists a new entity (EntityManager.persist). */
  <S extends T> S persist(S entity);
}
