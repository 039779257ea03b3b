package io.github.cuckooguard.jcache.internal;

import com.hazelcast.cache.impl.CacheKeysWithCursor;
import com.hazelcast.cache.impl.CacheProxy;
import com.hazelcast.cache.impl.ICacheService;
import com.hazelcast.cache.impl.operation.CacheFetchKeysOperation;
import com.hazelcast.cache.impl.operation.CacheSizeOperationFactory;
import com.hazelcast.internal.iteration.IterationPointer;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.spi.impl.NodeEngine;
import com.hazelcast.spi.impl.operationservice.OperationService;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * Reads the keys of a Hazelcast member's cache where they live: one key-only fetch operation per
 * partition, run by the partition's owner, all partitions at once, {@value #FETCH_SIZE} keys a
 * batch. This is what Hazelcast's own iterator does per partition for its keys, without its
 * per-entry reads: keys travel as serialized {@code Data} in bulk, and no value is read, so no
 * access is recorded (no {@code getExpiryForAccess}, no hit in the statistics). {@code CacheProxy}
 * and the fetch operation are Hazelcast internals (5.x); the adapter checks the classes once when
 * the cache is attached and otherwise falls back to the JCache iterator.
 *
 * <p>First each partition's size is read (without creating record stores), then only partitions
 * that hold entries are fetched. What it emits: every key of those partitions' record stores that
 * is not expired at the fetch (the record store's weakly consistent iteration, by index cursor), so
 * every key present for the whole scan. A partition migrating during the scan may make a fetch fail
 * or skip keys; the application marks the guard stale on migrations (see {@code
 * GuardedCache#markStale}), which makes it scan again.
 */
final class HazelcastKeys {

  /** Keys per fetch operation. */
  static final int FETCH_SIZE = 10_000;

  private static final long TIMEOUT_SECONDS = 120;

  private HazelcastKeys() {}

  static <K> @Nullable Consumer<Consumer<? super K>> of(Cache<K, ?> cache) {
    if (!(cache instanceof CacheProxy)) {
      return null;
    }
    CacheProxy<?, ?> proxy = (CacheProxy<?, ?>) cache;
    NodeEngine engine = proxy.getNodeEngine();
    String name = proxy.getPrefixedName();
    return action -> read(engine, name, action);
  }

  /** One partition's fetch in progress. */
  private record Fetch(int partition, CompletableFuture<CacheKeysWithCursor> result) {}

  @SuppressWarnings("unchecked")
  private static <K> void read(NodeEngine engine, String name, Consumer<? super K> action) {
    OperationService operations = engine.getOperationService();
    int partitions = engine.getPartitionService().getPartitionCount();
    Map<Integer, Object> sizes = sizes(operations, name);
    Deque<Fetch> fetches = new ArrayDeque<>(partitions);
    for (int p = 0; p < partitions; p++) {
      Object size = sizes.get(p);
      // Only partitions that hold entries: the fetch operation would create a partition's record
      // store, and a store created while statistics are off never counts statistics (Hazelcast
      // decides that when it creates the store). A key present for the whole scan makes its
      // partition's size positive here, so it is fetched.
      if (!(size instanceof Integer) || (Integer) size > 0) {
        fetches.add(
            fetch(
                operations,
                name,
                p,
                new IterationPointer[] {new IterationPointer(Integer.MAX_VALUE, -1)}));
      }
    }
    // keys are handed to the action on this thread only, in partition order
    while (!fetches.isEmpty()) {
      Fetch fetch = fetches.poll();
      CacheKeysWithCursor batch = await(fetch, name);
      for (Data key : batch.getKeys()) {
        action.accept((K) engine.getSerializationService().toObject(key));
      }
      IterationPointer[] pointers = batch.getPointers();
      if (batch.getCount() >= FETCH_SIZE && pointers[pointers.length - 1].getIndex() >= 0) {
        fetches.addFirst(fetch(operations, name, fetch.partition(), pointers));
      }
    }
  }

  /**
   * The cache's entry count on the cluster (every partition's, summed), read as {@link #read} sizes
   * the partitions: no record store is created; null if {@code cache} is no member proxy.
   */
  static java.util.function.@Nullable LongSupplier sizeOf(Cache<?, ?> cache) {
    if (!(cache instanceof CacheProxy<?, ?> proxy)) {
      return null;
    }
    OperationService operations = proxy.getNodeEngine().getOperationService();
    String name = proxy.getPrefixedName();
    return () -> {
      long total = 0;
      for (Object size : sizes(operations, name).values()) {
        if (size instanceof Integer n) {
          total += n;
        }
      }
      return total;
    };
  }

  /**
   * Each partition's entry count, read without creating record stores ({@code CacheSizeOperation}).
   */
  private static Map<Integer, Object> sizes(OperationService operations, String name) {
    try {
      return operations.invokeOnAllPartitions(
          ICacheService.SERVICE_NAME, new CacheSizeOperationFactory(name));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while sizing the partitions of cache " + name, e);
    } catch (Exception e) {
      throw new IllegalStateException("sizing the partitions of cache " + name + " failed", e);
    }
  }

  private static Fetch fetch(
      OperationService operations, String name, int partition, IterationPointer[] pointers) {
    CacheFetchKeysOperation operation = new CacheFetchKeysOperation(name, pointers, FETCH_SIZE);
    return new Fetch(
        partition,
        operations.invokeOnPartitionAsync(ICacheService.SERVICE_NAME, operation, partition));
  }

  private static CacheKeysWithCursor await(Fetch fetch, String name) {
    try {
      return fetch.result().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the keys of cache " + name, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "reading the keys of partition " + fetch.partition() + " of cache " + name + " failed",
          e);
    }
  }
}
