/**
 * What a guard saves where it is used: JMH benchmarks of the adapters against the same stack
 * without the guard, in the same run. {@link
 * io.github.cuckooguard.benchmarks.integration.HibernateFindBenchmark} times {@code Session.find}
 * on embedded H2, {@link io.github.cuckooguard.benchmarks.integration.JCacheClusterGetBenchmark} a
 * JCache {@code get} on one member of a two-member Hazelcast cluster; {@link
 * io.github.cuckooguard.benchmarks.integration.CaffeineCacheBenchmark} and {@link
 * io.github.cuckooguard.benchmarks.integration.CaffeineJCacheGetBenchmark} a guarded Caffeine cache
 * and Caffeine-JCache cache beside the plain ones, and {@link
 * io.github.cuckooguard.benchmarks.integration.ObjectKeyFilterBenchmark} the object-key filter and
 * guard beside the primitive filter (with {@code -prof gc}); {@link
 * io.github.cuckooguard.benchmarks.integration.GuardRatios} runs them and prints guarded /
 * unguarded ratios.
 */
package io.github.cuckooguard.benchmarks.integration;
