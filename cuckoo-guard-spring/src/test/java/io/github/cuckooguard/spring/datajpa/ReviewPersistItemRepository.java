package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;

/**
 * Reviewer's repository (R13): the guarded {@link GuardedItems} plus the base class's {@code
 * persist}, which WritePathCheck does not count as a write (no query, and its name is not
 * save/delete/remove/insert/update).
 *
 * <p>This describes main before the R13 fix (40e5d87); WritePathCheckGapsTest now expects the start
 * to fail naming the method.
 */
@CuckooGuarded(name = "items")
public interface ReviewPersistItemRepository
    extends GuardedItems, ReviewPersistingRepository<Item, Long> {}
