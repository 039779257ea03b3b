package io.github.cuckooguard.jcache.internal;

import io.github.cuckooguard.PendingLeave;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.Cache;
import org.ehcache.core.spi.store.Store;
import org.ehcache.core.spi.store.events.StoreEvent;
import org.ehcache.core.spi.store.events.StoreEventFilter;
import org.ehcache.core.spi.store.events.StoreEventListener;
import org.ehcache.core.spi.store.events.StoreEventSource;
import org.ehcache.event.EventType;
import org.jspecify.annotations.Nullable;

/**
 * Follows every removal of an Ehcache 3 heap-only cache created by the guarded manager (explicit,
 * expiry and size eviction), paired with the enters. Loaded only once the wrapped provider is known
 * to be Ehcache's ({@link DelegateProviders#isEhcache}, a class-name check).
 *
 * <pre>
 * Where Ehcache 3.12's OnHeapStore reports a change         what the guard does there
 *   store event FILTER: called inside the map.compute that    CREATED: CacheGuard.created (counts for
 *     changes the mapping (StoreEventSink.created/removed/      the open call of the key, else
 *     expired/evicted), before the change is visible; also      keyEntered)
 *     for an operation that then fails                         REMOVED/EXPIRED/EVICTED: beginLeave,
 *                                                                queued per key with the old value
 *   store event LISTENER: called after the compute, only for   REMOVED/EXPIRED/EVICTED: the queued
 *     operations that succeeded (a failed one's events are      leave with the same old value (the
 *     marked failed and never fired); per key in compute        same object) ends gone(); leaves
 *     order when ordering is on, else by the releasing thread   queued before it end cancel()
 *   put over an expired mapping: dropped silently, then       the guarded put asks containsKey first,
 *     CREATED (the only silent drop of OnHeapStore 3.12)        which expires it with its EXPIRED event
 *   clear(): a new map, no events                             markStale (rebuild), as before
 * </pre>
 *
 * <p>The filter is the one hook that runs inside Ehcache's atomic change, as Caffeine's event
 * filter is ({@link CaffeineRemovals}). A leave cannot end there: OnHeapStore reports an expiry
 * before it calls the operation's function (a writer, an entry processor), and if that function
 * throws, the expired mapping stays and reports its expiry again on the next access: a leave ended
 * in the filter would then be taken twice. So the filter only announces the leave; the listener,
 * which Ehcache calls only for operations that succeeded, completes it.
 *
 * <p><b>Why no leave takes a copy its key does not own, across rebuilds.</b>
 *
 * <ol>
 *   <li>Every mapping of the store was created with a CREATED sink call (OnHeapStore 3.12 creates
 *       mappings only through {@code newCreateValueHolder}), so its enter ran in the filter inside
 *       the creating compute, or the call through the guarded cache that created it held an enter
 *       from before. The cache is new when the filter is added (only the guarded manager's {@code
 *       createCache} does this), so no mapping predates the filter.
 *   <li>A {@code gone()} is issued only for an event the listener received, i.e. a removal that
 *       happened (its operation succeeded), at most one per event, and only if a leave of that key
 *       is queued. A removal removes a mapping that exists, whose enter ran earlier (1, serialised
 *       by the map's per-key compute). So per key the gones never outnumber the removals, and the
 *       removals never outnumber the enters: no leave takes a colliding key's copy. Which queued
 *       handle ends gone and which cancel does not matter: the core counts transitions per key.
 *   <li>Each leave is announced inside the compute, before the removal is visible to a rebuild's
 *       scan; the core keeps an announced key in any filter a rebuild builds until {@code gone()}
 *       (the core's {@code RebuildState}). The scan ({@link EhcacheKeys}, the store's iterator)
 *       emits every mapping present for its whole run; an expired one it passes is expired there,
 *       with its event (so announced), not skipped silently.
 *   <li>Everything that can go wrong ends short of a pair: an event another filter rejects, a put
 *       that drops an expired mapping silently (between the guarded put's {@code containsKey} and
 *       its store call, or a put that bypasses the guarded cache), an unmatched event, a leave
 *       cancelled because an event for the same key overtook its own (ordering off): each leaves a
 *       spare copy, a false positive until the next rebuild. Ehcache adds store filters of its own
 *       only for shared stores (not {@code OnHeapStore}), so this filter sees every event.
 * </ol>
 *
 * <p>Not covered (as on Caffeine): a write that bypasses the guarded cache while a rebuild scans
 * may be entered by its filter before it is visible and missed by the scan. Neither the filter nor
 * the listener may throw into Ehcache (that would fail the user's operation): a guard failure marks
 * it stale and is logged.
 */
public final class EhcacheRemovals {

  /** The only store type whose events are known to be complete (a heap-only cache). */
  static final String ON_HEAP_STORE = "org.ehcache.impl.internal.store.heap.OnHeapStore";

  /** The store-by-value wrapper around it. */
  static final String COPIER_STORE = "org.ehcache.impl.internal.store.copy.CopierStore";

  private EhcacheRemovals() {}

  /**
   * Makes {@code guard} follow every removal of {@code cache}, a new Ehcache JCache cache; call
   * before it is handed out. Returns false (and changes nothing) if the cache is not heap-only or
   * its store cannot be reached; the caller then keeps the Created listener alone.
   */
  public static <K> boolean follow(Cache<K, ?> cache, CacheGuard<K> guard) {
    Store<K, Object> store;
    try {
      store = EhcacheKeys.store(cache);
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
    if (store == null || !heapOnly(store)) {
      return false;
    }
    StoreEventSource<K, Object> source = store.getStoreEventSource();
    Follower<K> follower = new Follower<>(guard);
    source.addEventFilter(follower);
    // also what makes the store produce events: without a listener its sink is a no-op
    source.addEventListener(follower);
    guard.followRemovals(EhcacheKeys.reader(cache, store));
    guard.expireBeforePut();
    guard.onClose(
        () -> {
          follower.closed = true; // a filter cannot be removed from the store
          source.removeEventListener(follower);
        });
    return true;
  }

  /**
   * Whether {@code store} is an {@code OnHeapStore}, possibly behind the {@code CopierStore} of a
   * store-by-value cache (a plain delegate: every call, its events and its iterator are the heap
   * store's, with copied keys and values).
   */
  private static boolean heapOnly(Store<?, ?> store) {
    Object inner = store;
    try {
      if (inner.getClass().getName().equals(COPIER_STORE)) {
        Field delegate = inner.getClass().getDeclaredField("delegate");
        delegate.setAccessible(true);
        inner = delegate.get(inner);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
    return inner != null && inner.getClass().getName().equals(ON_HEAP_STORE);
  }

  /** A leave announced by the filter, waiting for its event. */
  private record Queued<K>(@Nullable Object oldValue, PendingLeave<K> leave) {}

  /** The filter and the listener of one guarded cache. */
  static final class Follower<K>
      implements StoreEventFilter<K, Object>, StoreEventListener<K, Object> {
    private final CacheGuard<K> guard;

    /** Per key, the announced leaves in the order the filter saw them. Changed inside compute. */
    private final ConcurrentHashMap<K, ArrayDeque<Queued<K>>> queued = new ConcurrentHashMap<>();

    volatile boolean closed;

    Follower(CacheGuard<K> guard) {
      this.guard = guard;
    }

    /** Inside Ehcache's compute: enters, and announces leaves. Accepts every event. */
    @Override
    public boolean acceptEvent(
        EventType type, K key, @Nullable Object oldValue, @Nullable Object newValue) {
      if (closed) {
        return true;
      }
      try {
        switch (type) {
          case CREATED -> guard.created(key);
          case REMOVED, EXPIRED, EVICTED -> {
            PendingLeave<K> leave = guard.guard().beginLeave(key);
            queued.compute(
                key,
                (k, leaves) -> {
                  ArrayDeque<Queued<K>> q = leaves != null ? leaves : new ArrayDeque<>(2);
                  q.add(new Queued<>(oldValue, leave));
                  return q;
                });
          }
          default -> {}
        }
      } catch (RuntimeException | Error e) {
        guard.failed("a " + type + " store event", e);
      }
      return true;
    }

    /** After a compute that succeeded: completes the leave its removal announced. */
    @Override
    public void onEvent(StoreEvent<K, Object> event) {
      EventType type = event.getType();
      if (closed
          || (type != EventType.REMOVED
              && type != EventType.EXPIRED
              && type != EventType.EVICTED)) {
        return;
      }
      try {
        Object oldValue = event.getOldValue();
        List<PendingLeave<K>> overtaken = new ArrayList<>(0);
        List<PendingLeave<K>> gone = new ArrayList<>(1);
        queued.computeIfPresent(
            event.getKey(),
            (k, leaves) -> {
              boolean matched = false;
              for (Queued<K> q : leaves) {
                if (q.oldValue() == oldValue) {
                  matched = true;
                  break;
                }
              }
              if (!matched) {
                return leaves; // not this event's leave (the filter failed): nothing to pair
              }
              for (Iterator<Queued<K>> it = leaves.iterator(); it.hasNext(); ) {
                Queued<K> q = it.next();
                it.remove();
                if (q.oldValue() == oldValue) {
                  gone.add(q.leave());
                  break;
                }
                // queued before this event's own leave and not fired: its operation failed (or,
                // with ordering off, its event is overtaken): the key stays tracked (a spare copy)
                overtaken.add(q.leave());
              }
              return leaves.isEmpty() ? null : leaves;
            });
        for (PendingLeave<K> leave : overtaken) {
          leave.cancel();
        }
        for (PendingLeave<K> leave : gone) {
          leave.gone();
        }
      } catch (RuntimeException | Error e) {
        guard.failed("completing a " + type + " store event", e);
      }
    }
  }
}
