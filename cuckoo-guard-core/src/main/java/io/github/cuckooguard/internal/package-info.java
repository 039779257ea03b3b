/**
 * Implementation of the filter: tables, sizing, dump format. Not API: may change in any release.
 */
package io.github.cuckooguard.internal;
