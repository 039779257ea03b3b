/**
 * Implementation of the JCache adapter: the event listener that feeds the guard, the in-flight
 * bridge, the key source, the default key funnel, delegate discovery and configuration views.
 * Not API: may change in any release.
 */
@NullMarked
package io.github.cuckooguard.jcache.internal;

import org.jspecify.annotations.NullMarked;
