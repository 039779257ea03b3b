/**
 * The samples: three stories, each a small program that runs its workload with and without a Cuckoo
 * Guard and prints what was measured. {@link io.github.cuckooguard.samples.Main} runs them; the
 * rest of this package is what they share (options, the alternating workload, the report). Not a
 * library: nothing here is API.
 */
@NullMarked
package io.github.cuckooguard.samples;

import org.jspecify.annotations.NullMarked;
