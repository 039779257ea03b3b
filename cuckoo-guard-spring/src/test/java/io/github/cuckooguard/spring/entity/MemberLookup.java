package io.github.cuckooguard.spring.entity;

import java.util.Optional;
import org.springframework.data.repository.Repository;

/** Unguarded finders of {@link Member}: what a miss costs without the Spring-level guard. */
public interface MemberLookup extends Repository<Member, Long> {

  /** Spring Data's {@code findById} (read-only transaction), short-circuited by Hibernate only. */
  Optional<Member> findById(Long id);

  /** A derived query by id, which nothing short-circuits. */
  Optional<Member> readById(Long id);
}
