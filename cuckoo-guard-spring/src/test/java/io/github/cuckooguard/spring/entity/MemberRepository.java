package io.github.cuckooguard.spring.entity;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

/**
 * A Spring Data JPA repository whose finders ask cuckoo-guard-hibernate's guard of {@link Member}:
 * only finders are annotated; {@code save} and {@code deleteById} are Spring Data's own and are
 * followed by Hibernate.
 */
@CuckooGuarded(entity = Member.class)
public interface MemberRepository extends JpaRepository<Member, Long> {

  @Override
  @GuardedFind
  Optional<Member> findById(Long id);

  @Override
  @GuardedFind
  boolean existsById(Long id);

  /** A derived query by id: Hibernate alone could not short-circuit it. */
  @GuardedFind
  Optional<Member> findOneById(Long id);
}
