package io.github.cuckooguard.spring;

import static io.github.cuckooguard.spring.support.StartupFailures.startupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * Guarded adds and removes with deferred results, checked when the context starts: a result whose
 * completion the guard cannot observe (a {@code Future} that is not a {@code CompletionStage}, a
 * publisher, a subtype of {@code CompletableFuture}) fails the start with a message naming the
 * method and what to do; a remove's stage must say whether it removed the key. Before this check
 * such an add started fine and ended its enter when the method returned, before its write (the
 * false negatives of {@code AsyncAddTest}), and every remove returning a future was rejected. An
 * {@code @Async} method returning a {@code Future} is accepted: the guard runs on the executor's
 * thread, around the write.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AsyncStartupTest {

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard
  static class Base {}

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class PlainFutureAdd {
    @GuardedAdd(key = "#id")
    public Future<Boolean> insert(long id) {
      return CompletableFuture.completedFuture(true);
    }
  }

  @Import({Base.class, PlainFutureAdd.class})
  static class PlainFutureAddConfig {}

  @Test
  void addReturningAFutureThatIsNoStageFailsTheStart() {
    assertThat(startupFailure(PlainFutureAddConfig.class))
        .contains("@GuardedAdd on " + PlainFutureAdd.class.getName() + ".insert(long)")
        .contains("returns java.util.concurrent.Future, a Future that is not a CompletionStage")
        .contains("false negative")
        .contains("Fix: return CompletableFuture or CompletionStage")
        .contains("or make the method synchronous (@Async on it is fine");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class PublisherAdd {
    @GuardedAdd(key = "#id")
    public Flow.Publisher<Boolean> insert(long id) {
      return subscriber -> {};
    }
  }

  @Import({Base.class, PublisherAdd.class})
  static class PublisherAddConfig {}

  @Test
  void addReturningAPublisherFailsTheStart() {
    assertThat(startupFailure(PublisherAddConfig.class))
        .contains("@GuardedAdd on " + PublisherAdd.class.getName() + ".insert(long)")
        .contains("java.util.concurrent.Flow$Publisher, a publisher the guard cannot follow")
        .contains("Fix: return CompletableFuture or CompletionStage");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class WrappedFutureAdd {
    @GuardedAdd(key = "#id")
    public java.util.Optional<CompletableFuture<Boolean>> insert(long id) {
      return java.util.Optional.of(CompletableFuture.completedFuture(true));
    }
  }

  @Import({Base.class, WrappedFutureAdd.class})
  static class WrappedFutureAddConfig {}

  @Test
  void addReturningAFutureInsideAnotherValueFailsTheStart() {
    assertThat(startupFailure(WrappedFutureAddConfig.class))
        .contains("@GuardedAdd on " + WrappedFutureAdd.class.getName() + ".insert(long)")
        .contains(
            "returns java.util.Optional<java.util.concurrent.CompletableFuture<java.lang.Boolean>>,"
                + " which carries a java.util.concurrent.Future")
        .contains("false negative")
        .contains("Fix: return CompletableFuture or CompletionStage");
  }

  /** A value whose component is a write still under way. */
  public record Pending(long id, CompletionStage<Void> written) {}

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class RecordWithAStageRemove {
    @GuardedRemove(key = "#id", throwsIfAbsent = true)
    public Pending[] delete(long id) {
      return new Pending[0];
    }
  }

  @Import({Base.class, RecordWithAStageRemove.class})
  static class RecordWithAStageRemoveConfig {}

  @Test
  void removeReturningRecordsThatHoldAStageFailsTheStart() {
    assertThat(startupFailure(RecordWithAStageRemoveConfig.class))
        .contains("@GuardedRemove on " + RecordWithAStageRemove.class.getName() + ".delete(long)")
        .contains("which carries a java.util.concurrent.CompletionStage");
  }

  /** Values that hold no deferred result: they start. */
  public record Saved(long id, java.util.List<String> names) {}

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class PlainValues {
    @GuardedAdd(key = "#id")
    public java.util.Optional<Saved> insert(long id) {
      return java.util.Optional.of(new Saved(id, java.util.List.of("a")));
    }

    @GuardedAdd(key = "#id")
    public java.util.Map<Class<? extends Future<?>>, Saved[]> insertTyped(long id) {
      return java.util.Map.of();
    }
  }

  @Import({Base.class, PlainValues.class})
  static class PlainValuesConfig {}

  @Test
  @SuppressWarnings("unchecked")
  void valuesThatHoldNoDeferredResultStart() {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(PlainValuesConfig.class)) {
      PlainValues bean = context.getBean(PlainValues.class);
      CuckooGuard<Object> guard = context.getBean("g", CuckooGuard.class);
      assertThat(bean.insert(11)).isPresent();
      assertThat(guard.mightContain(11L)).isTrue();
      bean.insertTyped(12);
      assertThat(guard.mightContain(12L)).isTrue();
    }
  }

  /** A subtype of CompletableFuture: the interceptor could not return a stage of its own. */
  public static class OwnFuture<T> extends CompletableFuture<T> {}

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class SubtypeRemove {
    @GuardedRemove(key = "#id")
    public OwnFuture<Boolean> delete(long id) {
      return new OwnFuture<>();
    }
  }

  @Import({Base.class, SubtypeRemove.class})
  static class SubtypeRemoveConfig {}

  @Test
  void removeReturningASubtypeOfCompletableFutureFailsTheStart() {
    assertThat(startupFailure(SubtypeRemoveConfig.class))
        .contains("@GuardedRemove on " + SubtypeRemove.class.getName() + ".delete(long)")
        .contains("only the types CompletableFuture and CompletionStage themselves are supported");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class UntypedStageRemove {
    @GuardedRemove(key = "#id")
    public CompletionStage<?> delete(long id) {
      return CompletableFuture.completedFuture(true);
    }
  }

  @Import({Base.class, UntypedStageRemove.class})
  static class UntypedStageRemoveConfig {}

  @Test
  void removeWhoseStageDoesNotSayWhetherItRemovedFailsTheStart() {
    assertThat(startupFailure(UntypedStageRemoveConfig.class))
        .contains("@GuardedRemove on " + UntypedStageRemove.class.getName() + ".delete(long)")
        .contains("does not say whether a key was removed")
        .contains("CompletableFuture<Boolean>")
        .contains("@GuardedRemove(throwsIfAbsent = true)");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class Accepted {
    @GuardedRemove(key = "#id", throwsIfAbsent = true)
    public CompletableFuture<Void> delete(long id) {
      return CompletableFuture.completedFuture(null);
    }

    @GuardedRemove(key = "#id")
    public CompletionStage<Integer> deleteCounting(long id) {
      return CompletableFuture.completedFuture(1);
    }

    /** Runs on the @Async executor; the guard runs there too, around the write. */
    @Async
    @GuardedAdd(key = "#id")
    public Future<Boolean> insertAsync(long id) {
      return CompletableFuture.completedFuture(true);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAsync
  @Import({Base.class, Accepted.class})
  static class AcceptedConfig {}

  @Test
  @SuppressWarnings("unchecked")
  void stagesThatSayWhatTheyDidAndAsyncFuturesStart() throws Exception {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(AcceptedConfig.class)) {
      Accepted bean = context.getBean(Accepted.class);
      CuckooGuard<Object> guard = context.getBean("g", CuckooGuard.class);
      assertThat(bean.insertAsync(7).get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(guard.mightContain(7L)).isTrue();
      assertThat(guard.inFlight()).isZero();
      long size = guard.stats().size();
      bean.deleteCounting(7).toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(guard.stats().size()).isEqualTo(size - 1);
    }
  }
}
