package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.Funnels;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A dump session (each pins a copy of the filter) does not outlive its joiner: it is dropped when
 * Hazelcast removes the joiner, or once idle for {@link DumpServer#IDLE_MILLIS}, without any
 * further OPEN. Clock injected; no cluster.
 */
class DumpServerSessionsTest {

  private final AtomicLong now = new AtomicLong(1_000);
  private final CuckooFilter<Long> filter =
      CuckooFilter.newBuilder(Funnels.longFunnel()).expectedInsertions(10_000).fpp(0.01).build();
  private final DumpServer<Long> server = new DumpServer<>(() -> filter, now::get);
  private final UUID joinerA = UUID.randomUUID();
  private final UUID joinerB = UUID.randomUUID();

  private DumpReply open(UUID joiner) {
    return server.handle(new DumpTask("ids", joiner, DumpTask.Kind.OPEN, 0, 0, 0, 0));
  }

  @Test
  @Timeout(10)
  void aRemovedJoinersSessionsAreDroppedAndOnlyTheirs() {
    for (long k = 0; k < 1_000; k++) {
      filter.add(k);
    }
    open(joinerA);
    open(joinerA);
    DumpReply b = open(joinerB);
    assertThat(server.openSessions()).isEqualTo(3);

    server.joinerGone(joinerA);

    assertThat(server.openSessions()).isEqualTo(1);
    DumpReply piece =
        server.handle(
            new DumpTask("ids", joinerB, DumpTask.Kind.PIECE, b.session, b.nextCursor, 0, 64));
    assertThat(piece.refusal).as("B's session still serves").isNull();
  }

  @Test
  @Timeout(10)
  void anIdleSessionIsDroppedBySweepWithoutAnotherOpen() {
    DumpReply a = open(joinerA);
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(DumpServer.IDLE_MILLIS / 2));
    DumpReply b = open(joinerB);
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(DumpServer.IDLE_MILLIS / 2 + 1));

    server.dropIdle(now.get());

    assertThat(server.openSessions()).as("A idle past the limit, B not").isEqualTo(1);
    DumpReply refused =
        server.handle(
            new DumpTask("ids", joinerA, DumpTask.Kind.PIECE, a.session, a.nextCursor, 0, 64));
    assertThat(refused.refusal).contains("no dump session " + a.session);
    assertThat(b.refusal).isNull();
  }
}
