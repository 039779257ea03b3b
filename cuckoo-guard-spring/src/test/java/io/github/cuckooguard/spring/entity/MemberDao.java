package io.github.cuckooguard.spring.entity;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedFind;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.transaction.annotation.Transactional;

/** A class-based repository of {@link Member} on the shared {@code EntityManager}. */
@CuckooGuarded(entity = Member.class)
public class MemberDao {

  @PersistenceContext private EntityManager entityManager;

  @GuardedFind
  @Transactional(readOnly = true)
  public Member find(long id) {
    return entityManager.find(Member.class, id);
  }
}
