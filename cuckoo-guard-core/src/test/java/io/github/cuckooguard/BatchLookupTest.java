package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The batch lookups ({@code mightContainAll} into a caller's array, validated once per group of
 * four keys) and batch adds: the same answers as single calls, and no false negative while writers
 * kick fingerprints between buckets.
 */
class BatchLookupTest {

  private static final int CAPACITY = 20_000;
  private static final int OPERATIONS_PER_WRITER = 300_000;

  /**
   * Two writers add and remove their own keys at 90-95 % load (where inserts kick long chains)
   * while two readers look up a resident set (added before, never removed) with {@code
   * mightContainAll} over and over, in slices of every length 1..11 and offset, so that groups and
   * tails both run. Zero misses required. Bounded by the writers' operation count; seeds fixed per
   * row.
   */
  @ParameterizedTest(name = "f={0}")
  @ValueSource(ints = {4, 8, 13, 16})
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void batchLookupsNeverMissAResidentKeyWhileWritersKick(int f) throws InterruptedException {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(CAPACITY)
            .fingerprintBits(f)
            .expansion(0)
            .seed(31L * f)
            .build();
    long slots = filter.info().buckets() * 4;
    long[] residents = new long[(int) (slots * 0.45)];
    for (int i = 0; i < residents.length; i++) {
      residents[i] = i;
      assertThat(filter.add(i)).isTrue();
    }
    AtomicBoolean writersDone = new AtomicBoolean();
    AtomicLong misses = new AtomicLong();
    AtomicLong passes = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      int writer = w;
      threads.add(
          new Thread(
              () -> {
                await(start);
                churn(filter, writer, slots, 0.90, 0.95);
              },
              "writer-" + w));
    }
    for (int r = 0; r < 2; r++) {
      int reader = r;
      threads.add(
          new Thread(
              () -> {
                await(start);
                boolean[] out = new boolean[16];
                int length = 1 + reader;
                do {
                  for (int from = 0; from < residents.length; from += length) {
                    int len = Math.min(length, residents.length - from);
                    filter.mightContainAll(residents, from, len, out);
                    for (int i = 0; i < len; i++) {
                      if (!out[i]) {
                        misses.incrementAndGet();
                      }
                    }
                  }
                  length = length % 11 + 1;
                  passes.incrementAndGet();
                } while (!writersDone.get());
              },
              "reader-" + r));
    }
    for (Thread t : threads) {
      t.setUncaughtExceptionHandler((thread, e) -> failure.compareAndSet(null, e));
      t.start();
    }
    start.countDown();
    threads.get(0).join();
    threads.get(1).join();
    writersDone.set(true);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failure.get()).isNull();
    assertThat(misses.get())
        .as("batch answers false for a resident key (%s reader passes)", passes.get())
        .isZero();
    assertThat(passes.get()).isGreaterThanOrEqualTo(2);
  }

  /**
   * The batch answers what single lookups answer: present keys, absent keys, false positives,
   * tails.
   */
  @ParameterizedTest(name = "f={0}, grown={1}")
  @CsvSource({"8, false", "12, false", "13, false", "16, false", "8, true", "13, true"})
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void batchAnswersEqualSingleLookups(int f, boolean grown) {
    int expected = grown ? 5_000 : 50_000; // grown: about 10 sub-filters
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(expected)
            .fingerprintBits(f)
            .seed(7)
            .build();
    int stored = 50_000;
    long[] keys = new long[stored];
    SplittableRandom random = new SplittableRandom(f);
    for (int i = 0; i < stored; i++) {
      keys[i] = random.nextLong();
      assertThat(filter.add(keys[i])).isTrue();
    }
    assertThat(filter.info().subFilters() > 1).isEqualTo(grown);
    long[] probes = new long[2 * stored + 3];
    for (int i = 0; i < probes.length; i++) {
      probes[i] = i % 2 == 0 ? keys[(i / 2) % stored] : random.nextLong();
    }
    boolean[] out = new boolean[probes.length];
    filter.mightContainAll(probes, out);
    long falsePositives = 0;
    for (int i = 0; i < probes.length; i++) {
      assertThat(out[i]).as("probe %s", i).isEqualTo(filter.mightContain(probes[i]));
      if (i % 2 == 0) {
        assertThat(out[i]).isTrue();
      } else if (out[i]) {
        falsePositives++;
      }
    }
    assertThat(falsePositives)
        .as("some absent probe answers true at f=%s, or the batch is not looking", f)
        .isLessThan(stored);
    boolean[] slice = new boolean[7];
    filter.mightContainAll(probes, 5, 7, slice);
    for (int i = 0; i < 7; i++) {
      assertThat(slice[i]).isEqualTo(out[5 + i]);
    }
    assertThat(filter.mightContainAll(probes)).isEqualTo(out);
  }

  /** The object filter's array and List forms answer as its single lookups. */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void objectFilterBatchesEqualSingleLookups() {
    CuckooFilter<String> filter =
        CuckooFilter.newBuilder(Funnels.stringFunnel())
            .expectedInsertions(10_000)
            .fingerprintBits(8)
            .seed(3)
            .build();
    List<String> probes = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      filter.add("k" + i);
      probes.add("k" + i);
      probes.add("x" + i);
    }
    probes.add("k1");
    boolean[] fromList = new boolean[probes.size()];
    filter.mightContainAll(probes, fromList);
    boolean[] fromArray = new boolean[probes.size()];
    filter.mightContainAll(probes.toArray(new String[0]), fromArray);
    boolean[] fromCollection = filter.mightContainAll((java.util.Collection<String>) probes);
    int positives = 0;
    for (int i = 0; i < probes.size(); i++) {
      boolean single = filter.mightContain(probes.get(i));
      assertThat(fromList[i]).as("list %s", i).isEqualTo(single);
      assertThat(fromArray[i]).as("array %s", i).isEqualTo(single);
      assertThat(fromCollection[i]).as("collection %s", i).isEqualTo(single);
      positives += single ? 1 : 0;
    }
    assertThat(positives).isBetween(10_001, 10_001 + 1_000); // f = 8: fpp about 3 %
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void batchRangesAreChecked() {
    LongCuckooFilter filter = LongCuckooFilter.newBuilder().expectedInsertions(100).build();
    assertThatThrownBy(() -> filter.mightContainAll(new long[4], new boolean[3]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> filter.mightContainAll(new long[4], 2, 3, new boolean[3]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> filter.addAll(new long[4], 0, 4, new boolean[3]))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  /** A batch add stores exactly what single adds store, and reports refusals per key. */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void batchAddEqualsSingleAdds() {
    LongCuckooFilter single =
        LongCuckooFilter.newBuilder().expectedInsertions(3_000).expansion(0).seed(5).build();
    LongCuckooFilter batch =
        LongCuckooFilter.newBuilder().expectedInsertions(3_000).expansion(0).seed(5).build();
    long[] keys = new long[5_000]; // more than fits: some adds are refused
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i * 0x9E3779B97F4A7C15L;
    }
    boolean[] out = new boolean[keys.length];
    batch.addAll(keys, 0, keys.length, out);
    int refused = 0;
    for (int i = 0; i < keys.length; i++) {
      assertThat(out[i]).as("add %s", i).isEqualTo(single.add(keys[i]));
      refused += out[i] ? 0 : 1;
      if (out[i]) {
        assertThat(batch.mightContain(keys[i])).isTrue();
      }
    }
    assertThat(refused).isPositive();
    assertThat(batch.approximateElementCount()).isEqualTo(single.approximateElementCount());
    assertThat(batch.info().subFilters()).isEqualTo(1);
  }

  /**
   * The batch lookups and the batch add into caller arrays allocate nothing: counted with the JVM's
   * per-thread allocation counter over 200 batches of 1,000 keys, less the counter's own cost; 4
   * KiB of slack for one-off runtime events (one boolean[1000] per batch would be 200 KB).
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void batchPathsAllocateNothing() {
    LongCuckooFilter longs =
        LongCuckooFilter.newBuilder().expectedInsertions(100_000).seed(2).build();
    CuckooFilter<String> strings =
        CuckooFilter.newBuilder(Funnels.stringFunnel()).expectedInsertions(100_000).seed(2).build();
    long[] keys = new long[1_000];
    String[] names = new String[1_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i * 31L;
      names[i] = "n" + i;
      strings.add(names[i]);
    }
    List<String> nameList = List.of(names);
    boolean[] out = new boolean[keys.length];
    Runnable work =
        () -> {
          for (int r = 0; r < 200; r++) {
            longs.addAll(keys, 0, keys.length, out);
            longs.mightContainAll(keys, out);
            strings.mightContainAll(names, out);
            strings.mightContainAll(nameList, out);
            longs.mightContainAll(keys, 3, 997, out);
            for (int i = 0; i < keys.length; i++) {
              longs.remove(keys[i]);
            }
          }
        };
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    assertThat(
            threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled())
        .as("the JVM counts allocated bytes per thread")
        .isTrue();
    long id = Thread.currentThread().getId();
    work.run(); // first use: class loading, the hashers' scratch
    long before = threads.getThreadAllocatedBytes(id);
    long baseline = threads.getThreadAllocatedBytes(id) - before;
    before = threads.getThreadAllocatedBytes(id);
    work.run();
    long bytes = threads.getThreadAllocatedBytes(id) - before - baseline;
    assertThat(bytes).as("bytes allocated by 200 rounds of batch calls").isLessThan(4096);
    assertThat(longs.approximateElementCount()).isZero();
  }

  private static void churn(
      LongCuckooFilter filter, int writer, long slots, double low, double high) {
    SplittableRandom random = new SplittableRandom(writer);
    ArrayDeque<Long> own = new ArrayDeque<>();
    long next = (writer + 1L) << 40;
    for (int i = 0; i < OPERATIONS_PER_WRITER; i++) {
      double load = (double) filter.approximateElementCount() / slots;
      boolean add = load < low || (load < high && random.nextInt(10) < 7) || own.isEmpty();
      if (add) {
        long key = next++;
        if (filter.add(key)) {
          own.add(key);
        }
      } else if (!filter.remove(own.poll())) {
        throw new AssertionError("remove of a key this writer added failed");
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
