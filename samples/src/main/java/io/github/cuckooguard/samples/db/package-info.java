/**
 * Story 2, a DB-backed repository: a Spring application with a JPA repository on H2, guarded by the
 * cuckoo-guard-spring in front of the repository and the cuckoo-guard-hibernate under it. Start at
 * {@link io.github.cuckooguard.samples.db.DbRepositoryStory}.
 */
@NullMarked
package io.github.cuckooguard.samples.db;

import org.jspecify.annotations.NullMarked;
