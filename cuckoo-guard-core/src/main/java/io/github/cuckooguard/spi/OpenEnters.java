package io.github.cuckooguard.spi;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The enters of each key that are open on one member (begun and not ended: its own writers' and the
 * other members' it applied), as far as its leaves need to know: whether an enter of a leave's key
 * was open at any moment while the leave was. {@link ReplicatedGuard} and {@link RemoteWrites} of
 * one member share one instance; {@link #none()} tracks nothing.
 *
 * <p>Why a leave that overlapped an enter of its key keeps the fingerprint ({@link
 * ReplicatedGuard.Leave#gone()}). A leave takes one copy of its key's fingerprint; a key that is
 * gone then holds no copy of its own. That is right as long as every copy belongs to an incarnation
 * of the key that became visible before the removal, and no write makes the key visible again
 * without an enter of its own begun after. A source that may apply one write twice breaks the
 * second half: Hazelcast re-invokes an operation whose target member left before the caller had all
 * acknowledgements, on the new owner, although the first run may have been applied there already. A
 * removal between the two runs takes the copy of the write's enter, still open, and the second run
 * makes the key visible again with no copy left (RetriedWriteAfterOwnerCrashTest). Such a removal
 * ran while the write's enter was open on the remover's member: the enter was begun everywhere
 * before its first run (rule 1 of {@link GroupEngine}), and it ends only after its second run
 * returned, so after the removal did. A leave during which an enter of its key was open (at its
 * begin, or begun later) is therefore cancelled instead of gone: the copy stays, a false positive
 * until the next rebuild if the key is gone for good. The removing member decides, and the others
 * follow its gone or cancel ({@link RemoteWrites} only counts their enters), since only there the
 * order is known: the leave began before the removal ran, and the write's end comes after it. What
 * remains: a removing member that never applied the write's begin (it did not acknowledge in time
 * and was waited out; it passes through until it rejoins) does not see the enter, and its gone
 * takes the copy on the others; that needs a lost member (the re-invocation) and a second member
 * that missed an acknowledgement in the same write.
 *
 * <p>Thread safety: all methods may be called concurrently; one key's counts change inside {@link
 * ConcurrentHashMap#compute}, atomically. A key's record lives while one of its enters or leaves is
 * open.
 *
 * @param <K> the key type
 */
public final class OpenEnters<K> {

  private static final OpenEnters<?> NONE = new OpenEnters<>(false);

  /** {@link #leaveBegun}'s token when an enter of the key was open at the leave's begin. */
  private static final long OPEN_AT_BEGIN = -1;

  private static final class Counts {
    int openEnters;
    int openLeaves;

    /** Enters of the key begun while its record lived; never negative. */
    long entersBegun;
  }

  private final boolean tracking;
  private final ConcurrentHashMap<K, Counts> keys = new ConcurrentHashMap<>();

  /** A tracker of the open enters of one member's guard. */
  public OpenEnters() {
    this(true);
  }

  private OpenEnters(boolean tracking) {
    this.tracking = tracking;
  }

  /** A tracker that tracks nothing: every leave ends as its caller says. */
  @SuppressWarnings("unchecked")
  public static <K> OpenEnters<K> none() {
    return (OpenEnters<K>) NONE;
  }

  /** Whether this tracks anything (not {@link #none()}). */
  public boolean tracking() {
    return tracking;
  }

  /** An enter of {@code key} began on this member (once per enter applied here). */
  void enterBegun(K key) {
    if (!tracking) {
      return;
    }
    keys.compute(
        key,
        (k, c) -> {
          Counts counts = c != null ? c : new Counts();
          counts.openEnters++;
          counts.entersBegun++;
          return counts;
        });
  }

  /** An enter of {@code key} that {@link #enterBegun} counted ended (visible or aborted). */
  void enterEnded(K key) {
    if (!tracking) {
      return;
    }
    keys.computeIfPresent(key, (k, c) -> --c.openEnters == 0 && c.openLeaves == 0 ? null : c);
  }

  /**
   * A leave of {@code key} began on this member.
   *
   * @return the token for {@link #leaveEnded}
   */
  long leaveBegun(K key) {
    if (!tracking) {
      return 0;
    }
    long[] token = new long[1];
    keys.compute(
        key,
        (k, c) -> {
          Counts counts = c != null ? c : new Counts();
          counts.openLeaves++;
          token[0] = counts.openEnters > 0 ? OPEN_AT_BEGIN : counts.entersBegun;
          return counts;
        });
    return token[0];
  }

  /**
   * Ends a leave of {@code key} begun with {@code token}.
   *
   * @param ownEnters enters of the key that the leave's own call began after the leave (an entry
   *     processor's write, which began after its leave was announced): not counted as overlapping
   * @return whether an enter of the key other than the call's own was open at some moment since the
   *     leave began (always false for {@link #none()})
   */
  boolean leaveEnded(K key, long token, int ownEnters) {
    if (!tracking) {
      return false;
    }
    boolean[] overlapped = new boolean[1];
    keys.computeIfPresent(
        key,
        (k, c) -> {
          overlapped[0] = token == OPEN_AT_BEGIN || c.entersBegun - token > ownEnters;
          return --c.openLeaves == 0 && c.openEnters == 0 ? null : c;
        });
    return overlapped[0];
  }

  /** Keys with an open enter or leave (for tests). */
  int size() {
    return keys.size();
  }
}
