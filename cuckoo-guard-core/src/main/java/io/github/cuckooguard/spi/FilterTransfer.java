package io.github.cuckooguard.spi;

import io.github.cuckooguard.ChunkLoader;
import io.github.cuckooguard.CuckooFilter;
import java.util.function.Supplier;

/**
 * Where a rebuild started with {@link io.github.cuckooguard.CuckooGuard#rebuildFrom} gets its
 * filter instead of scanning the {@link io.github.cuckooguard.KeySource}: typically a peer's {@link
 * io.github.cuckooguard.CuckooGuard#snapshot() snapshot}, streamed as {@code scanDump} chunks and
 * loaded with a {@link ChunkLoader}.
 *
 * <p>The obligation that makes the loaded filter complete: it must hold every key that is visible
 * at the source at some instant <em>after</em> {@link #load} was called. The rebuild itself keeps
 * every key whose enter or leave reaches this guard from the call on (it counts their copies while
 * the transfer runs and adds them to the loaded filter), so writes made meanwhile need not be in
 * it. A group engine meets the obligation by subscribing the joining member to the group's writes
 * before it starts the rebuild and asking the peer for its snapshot only from inside {@code load}
 * (the snapshot is then taken after the rebuild began), from a peer that holds a fresh lease with a
 * complete filter while it takes the snapshot.
 *
 * @param <K> the key type
 */
@FunctionalInterface
public interface FilterTransfer<K> {

  /**
   * Loads the filter. Called once, on the rebuild's thread, after the rebuild started.
   *
   * @param loaders a new loader for the guard's funnel per call; use one per dump, so that chunks
   *     of two different dumps (two peers, or a peer that snapshotted again) are never assembled
   *     into one filter: the loader refuses such a chunk with a {@link
   *     io.github.cuckooguard.CorruptDumpException}
   * @return the complete filter
   * @throws Exception if no filter could be had (no peer could serve one, the dump was refused):
   *     the rebuild then scans the guard's {@link io.github.cuckooguard.KeySource} instead
   */
  CuckooFilter<K> load(Supplier<ChunkLoader<CuckooFilter<K>>> loaders) throws Exception;
}
