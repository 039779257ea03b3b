package io.github.cuckooguard;

/**
 * Callbacks on the life cycle of a {@link CuckooGuard} rebuild. Every method has an empty default,
 * so an implementation overrides only what it needs.
 *
 * <p>Callbacks run on the thread that runs the rebuild (the guard's executor), outside every lock
 * of the guard, one rebuild at a time. An exception thrown by a callback is logged ({@link
 * System.Logger}, level WARNING) and otherwise ignored: it cannot fail the rebuild or corrupt the
 * guard. Callbacks should be quick; they delay the rebuild they report on.
 */
public interface RebuildListener {

  /**
   * A rebuild started.
   *
   * @param reason why, e.g. {@code "load factor 0.86 passed 0.85"}, {@code "requested"}, or the
   *     reason given to {@link CuckooGuard#markStale}
   */
  default void onStart(String reason) {}

  /**
   * The scan of the {@link KeySource} has emitted {@code keysScanned} keys so far; called every
   * {@value CuckooGuard#PROGRESS_INTERVAL} keys.
   */
  default void onProgress(long keysScanned) {}

  /** A rebuild finished and its filter is in use; {@code stats} are taken just after the swap. */
  default void onFinish(GuardStats stats) {}

  /**
   * A rebuild failed; the guard keeps its previous filter and answers in pass-through mode until a
   * later rebuild succeeds.
   *
   * @param cause what the key source threw, or why the rebuild could not run
   */
  default void onFailure(Throwable cause) {}
}
