package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Lookups, adds and removes through the ready funnels and a custom funnel allocate nothing. Counted
 * with the JVM's per-thread allocation counter over 50,000 operations, less what the counting
 * itself allocates (measured around an empty run); the paths contain no allocation at all (not one
 * that the JIT must remove), so the count holds in the interpreter too. The keys are boxed before
 * counting. The JMH figures (-prof gc) are in the benchmarks README.
 */
class ObjectKeyAllocationTest {

  private static final int OPS = 50_000;

  private static long allocatedBy(Runnable work) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThat(
            threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled())
        .as("the JVM counts allocated bytes per thread")
        .isTrue();
    long id = Thread.currentThread().getId();
    work.run(); // first use: the thread's scratch buffer, class loading
    long before = threads.getThreadAllocatedBytes(id);
    long baseline = threads.getThreadAllocatedBytes(id) - before; // the counter's own cost
    before = threads.getThreadAllocatedBytes(id);
    work.run();
    return threads.getThreadAllocatedBytes(id) - before - baseline;
  }

  private static <T> void assertNoAllocation(String what, Funnel<T> funnel, T[] keys) {
    CuckooFilter<T> filter =
        CuckooFilter.newBuilder(funnel).expectedInsertions(keys.length * 2L).seed(1).build();
    CuckooGuard<T> guard =
        CuckooGuard.newBuilder(funnel).expectedInsertions(keys.length * 2L).seed(1).build();
    Consumer<T> op =
        key -> {
          filter.add(key);
          if (!filter.mightContain(key) || !guard.mightContain(key)) {
            throw new AssertionError("false negative");
          }
          filter.remove(key);
        };
    for (T key : keys) {
      guard.keyEntered(key);
    }
    long bytes =
        allocatedBy(
            () -> {
              for (int i = 0; i < OPS; i++) {
                op.accept(keys[i % keys.length]);
              }
            });
    // slack for one-off runtime events (< 0.1 B/op); 384 B per hash, as the old hashing path
    // allocated, would be 77 MB
    assertThat(bytes)
        .as("%s: bytes allocated by %s add + mightContain + guard + remove", what, OPS)
        .isLessThan(4096);
  }

  @Test
  void readyAndCustomFunnelsHashAddLookUpAndRemoveWithoutAllocating() {
    int n = 1000;
    Long[] longs = new Long[n];
    Integer[] ints = new Integer[n];
    CharSequence[] strings = new CharSequence[n];
    byte[][] bytes = new byte[n][];
    UUID[] uuids = new UUID[n];
    for (int i = 0; i < n; i++) {
      longs[i] = 1_000_000L + i;
      ints[i] = 1_000_000 + i;
      strings[i] = (i % 2 == 0 ? "key-" : "k\u00e9y-\u20ac-") + i;
      bytes[i] = strings[i].toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      uuids[i] = new UUID(i, -i);
    }
    assertNoAllocation("long", Funnels.longFunnel(), longs);
    assertNoAllocation("int", Funnels.integerFunnel(), ints);
    assertNoAllocation("string", Funnels.stringFunnel(), strings);
    assertNoAllocation("bytes", Funnels.byteArrayFunnel(), bytes);
    assertNoAllocation("uuid", Funnels.uuidFunnel(), uuids);
    assertNoAllocation(
        "custom", (Funnel<Long>) (key, sink) -> sink.putLong(key).putUtf8("tag").putInt(3), longs);
  }
}
