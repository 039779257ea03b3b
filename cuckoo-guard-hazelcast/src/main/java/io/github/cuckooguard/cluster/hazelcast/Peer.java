package io.github.cuckooguard.cluster.hazelcast;

/**
 * What this member, as writer and lease grantor, knows about one other member. Guarded by its own
 * monitor: a grant and a revocation of the same peer never interleave, which is what lets a writer
 * that revoked read the last grant and know that no later grant exists.
 */
final class Peer {
  /**
   * The peer's epoch (incarnation of its filter) as last announced by its JOIN; -1: never joined.
   */
  long epoch = -1;

  /** No more grants for {@link #epoch}: some write went ahead (or will) without the peer's ack. */
  boolean revoked;

  /** Whether {@link #lastGrant} holds a grant for {@link #epoch}. */
  boolean granted;

  /**
   * This member's {@code System.nanoTime()} when it last granted the peer a lease for {@link
   * #epoch}.
   */
  long lastGrant;
}
