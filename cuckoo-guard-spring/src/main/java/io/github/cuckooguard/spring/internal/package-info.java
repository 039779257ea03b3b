/**
 * Implementation of {@code @EnableCuckooGuard}: configuration, pointcut, interceptor, guard bean
 * registration, warm-up. Not API: may change in any release.
 */
@NullMarked
package io.github.cuckooguard.spring.internal;

import org.jspecify.annotations.NullMarked;
