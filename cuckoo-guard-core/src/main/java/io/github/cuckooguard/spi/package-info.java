/**
 * Service-provider interface for replicating one guard over a group of JVMs (a Hazelcast cluster,
 * later Redis). The core decides what a replicated write means; an engine only delivers messages,
 * acknowledges them, and keeps the leases that say which members may answer "definitely absent".
 *
 * <ul>
 *   <li>{@link io.github.cuckooguard.spi.ReplicatedGuard}: what a writer calls; wraps the local
 *       {@link io.github.cuckooguard.CuckooGuard} and a {@link
 *       io.github.cuckooguard.spi.GroupEngine}.
 *   <li>{@link io.github.cuckooguard.spi.RemoteWrites}: what an engine calls on a receiving member;
 *       it applies a remote writer's enter or leave to the local guard with the core's own write
 *       protocol (a remote enter stays <em>in flight</em> on the receiver until the writer ends it,
 *       so the receiver's own rebuilds keep it).
 *   <li>{@link io.github.cuckooguard.spi.GroupEngine}: what an engine implements.
 * </ul>
 */
@NullMarked
package io.github.cuckooguard.spi;

import org.jspecify.annotations.NullMarked;
