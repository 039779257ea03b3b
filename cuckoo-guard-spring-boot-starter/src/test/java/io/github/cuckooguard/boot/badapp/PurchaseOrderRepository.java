package io.github.cuckooguard.boot.badapp;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

/** Issue 15's silent false negative: a guard of its own, and the inherited save not followed. */
@CuckooGuarded(name = "orders")
public interface PurchaseOrderRepository extends JpaRepository<PurchaseOrder, Long> {

  @Override
  @GuardedFind
  Optional<PurchaseOrder> findById(Long id);

  @GuardKeySource
  @Query("select o.id from PurchaseOrder o")
  List<Long> allIds();
}
