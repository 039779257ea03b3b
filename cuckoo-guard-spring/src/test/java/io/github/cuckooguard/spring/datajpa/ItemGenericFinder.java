package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.GuardedFind;
import java.util.Optional;
import org.springframework.data.repository.NoRepositoryBean;
import org.springframework.data.repository.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * A generic finder keyed positionally by its {@code ID} parameter: the check resolves {@code ID}
 * against the repository ({@code Long} for {@link ItemStillReadsRepository}), so the key is an id,
 * not a whole entity, and updates that assign no key still start.
 */
@NoRepositoryBean
public interface ItemGenericFinder<T, ID> extends Repository<T, ID> {

  @GuardedFind(key = "#root.args[0]")
  @Transactional(readOnly = true)
  Optional<T> findFirstById(ID id);
}
