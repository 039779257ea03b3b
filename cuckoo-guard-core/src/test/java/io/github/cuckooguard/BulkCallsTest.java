package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.AbstractCollection;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bulk calls iterate their collection once and size their results from what the iteration gave.
 * Before, a {@code ConcurrentHashMap} key set that shrank between {@code size()} and the iteration
 * yielded 5 results and 5 stored fingerprints for 3 keys (the two extra being of hash 0), and one
 * that grew threw ArrayIndexOutOfBoundsException.
 */
class BulkCallsTest {

  /**
   * A concurrent key set whose {@code size()} answers, then lets {@code change} run before the
   * iteration starts: the interleaving a concurrent writer produces, made deterministic.
   */
  private static final class ChangingBetweenSizeAndIteration extends AbstractCollection<Long> {
    private final Set<Long> keys = ConcurrentHashMap.newKeySet();
    private final Consumer<Set<Long>> change;

    ChangingBetweenSizeAndIteration(List<Long> initial, Consumer<Set<Long>> change) {
      keys.addAll(initial);
      this.change = change;
    }

    @Override
    public int size() {
      int size = keys.size();
      change.accept(keys);
      return size;
    }

    @Override
    public Iterator<Long> iterator() {
      return keys.iterator();
    }
  }

  static Stream<Arguments> changes() {
    List<Long> five = List.of(1L, 2L, 3L, 4L, 5L);
    return Stream.of(
        Arguments.of(
            "shrinks from 5 to 3",
            five,
            (Consumer<Set<Long>>) s -> s.removeAll(List.of(4L, 5L)),
            3),
        Arguments.of(
            "grows from 5 to 9",
            five,
            (Consumer<Set<Long>>) s -> s.addAll(List.of(6L, 7L, 8L, 9L)),
            9),
        Arguments.of("empties", five, (Consumer<Set<Long>>) Set::clear, 0));
  }

  private static CuckooFilter<Long> filter() {
    return CuckooFilter.newBuilder(Funnels.longFunnel()).expectedInsertions(1_000).seed(4).build();
  }

  @ParameterizedTest(name = "addAll: {0}")
  @MethodSource("changes")
  void addAllStoresExactlyTheKeysItIterated(
      String what, List<Long> initial, Consumer<Set<Long>> change, int iterated) {
    CuckooFilter<Long> f = filter();
    boolean[] stored = f.addAll(new ChangingBetweenSizeAndIteration(initial, change));
    assertThat(stored).hasSize(iterated);
    assertThat(f.approximateElementCount()).as("no phantom fingerprints").isEqualTo(iterated);
    for (long k = 1; k <= iterated; k++) {
      assertThat(f.mightContain(k)).isTrue();
    }
  }

  @ParameterizedTest(name = "addAllIfAbsent: {0}")
  @MethodSource("changes")
  void addAllIfAbsentAnswersOncePerKeyItIterated(
      String what, List<Long> initial, Consumer<Set<Long>> change, int iterated) {
    CuckooFilter<Long> f = filter();
    AddResult[] results = f.addAllIfAbsent(new ChangingBetweenSizeAndIteration(initial, change));
    assertThat(results).hasSize(iterated);
    assertThat(Arrays.asList(results)).allMatch(r -> r == AddResult.ADDED);
    assertThat(f.approximateElementCount()).isEqualTo(iterated);
  }

  @ParameterizedTest(name = "mightContainAll: {0}")
  @MethodSource("changes")
  void mightContainAllAnswersOncePerKeyItIterated(
      String what, List<Long> initial, Consumer<Set<Long>> change, int iterated) {
    CuckooFilter<Long> f = filter();
    f.addAll(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L));
    boolean[] answers = f.mightContainAll(new ChangingBetweenSizeAndIteration(initial, change));
    assertThat(answers).hasSize(iterated);
    for (boolean a : answers) {
      assertThat(a).isTrue();
    }
  }

  /** A null met during the one iteration still fails before anything is added. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("bulkCalls")
  void aNullKeyFailsBeforeAnyAddEvenInAGrowingCollection(
      String name, Function<CuckooFilter<Long>, Object> call) {
    CuckooFilter<Long> f = filter();
    assertThatThrownBy(() -> call.apply(f))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("keys[");
    assertThat(f.approximateElementCount()).isZero();
  }

  static Stream<Arguments> bulkCalls() {
    Collection<Long> withNull = Arrays.asList(1L, 2L, null, 4L);
    return Stream.of(
        Arguments.of("addAll", (Function<CuckooFilter<Long>, Object>) f -> f.addAll(withNull)),
        Arguments.of(
            "addAllIfAbsent",
            (Function<CuckooFilter<Long>, Object>) f -> f.addAllIfAbsent(withNull)),
        Arguments.of(
            "mightContainAll",
            (Function<CuckooFilter<Long>, Object>) f -> f.mightContainAll(withNull)));
  }
}
