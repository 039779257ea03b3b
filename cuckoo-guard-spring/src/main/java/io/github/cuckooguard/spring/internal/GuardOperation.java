package io.github.cuckooguard.spring.internal;

import org.jspecify.annotations.Nullable;

/**
 * What the interceptor does around one guarded method, parsed and checked once when the context
 * starts.
 *
 * @param kind find, add or remove
 * @param guardName the bean name of the guard; for an entity guard, a description of it
 * @param entity for a find of a repository declared with {@code @CuckooGuarded(entity = …)}: the
 *     cuckoo-guard-hibernate guard it asks instead of a guard bean; otherwise null
 * @param key how to find the key of a call
 * @param absent for a find: the value a definite miss returns; otherwise null
 * @param outcome for an add or a remove: how the method (or the stage it returns) reports what it
 *     did; otherwise null
 * @param completesLater for an add or a remove that returns a {@code CompletableFuture} or {@code
 *     CompletionStage}: its write ends when that stage completes, not when the method returns
 * @param mayReturnAFuture for an add declared synchronous ({@code completesLater} false): whether
 *     its declared return type can hold a {@code Future} at run time ({@link
 *     WriteOutcome#mayReturnAFuture}); a clustered enter of such an add is replicated before the
 *     method runs, since a running future's write may commit before the caller's transaction does
 * @param method the method, for log messages
 */
record GuardOperation(
    Kind kind,
    String guardName,
    EntityGuardLookup.@Nullable EntityGuard entity,
    KeyResolver key,
    @Nullable AbsentValue absent,
    @Nullable WriteOutcome outcome,
    boolean completesLater,
    boolean mayReturnAFuture,
    String method) {

  /** The three guarded method roles. */
  enum Kind {
    FIND("@GuardedFind"),
    ADD("@GuardedAdd"),
    REMOVE("@GuardedRemove");

    private final String annotation;

    Kind(String annotation) {
      this.annotation = annotation;
    }

    /** The annotation that declares this role, for messages. */
    String annotation() {
      return annotation;
    }
  }

  AbsentValue requireAbsent() {
    AbsentValue value = absent;
    if (value == null) {
      throw new IllegalStateException("not a find: " + this);
    }
    return value;
  }

  WriteOutcome requireOutcome() {
    WriteOutcome value = outcome;
    if (value == null) {
      throw new IllegalStateException("not a write: " + this);
    }
    return value;
  }
}
