/**
 * Key hashing: the per-thread {@code KeySink} of custom funnels, the direct path of the ready
 * funnels, and the checks on funnel ids. Not API: may change in any release.
 */
@NullMarked
package io.github.cuckooguard.internal.hash;

import org.jspecify.annotations.NullMarked;
