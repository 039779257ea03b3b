/** Implementation of the Hibernate integration; not API, may change in any release. */
@NullMarked
package io.github.cuckooguard.hibernate.internal;

import org.jspecify.annotations.NullMarked;
