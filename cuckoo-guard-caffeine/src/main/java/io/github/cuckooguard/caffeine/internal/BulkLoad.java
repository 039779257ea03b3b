package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The bulk function a guarded {@code getAll} hands to Caffeine: the user's bulk load, then an enter
 * begun for every entry it returned, before Caffeine stores them with plain puts. Single use;
 * {@link #end} after Caffeine's {@code getAll} returned or threw.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class BulkLoad<K, V> implements Function<Set<? extends K>, Map<? extends K, ? extends V>> {

  private final CuckooGuard<K> guard;
  private final Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> load;
  private final List<PendingEnter<K>> enters = new ArrayList<>();

  BulkLoad(
      CuckooGuard<K> guard,
      Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> load) {
    this.guard = guard;
    this.load = load;
  }

  @Override
  public Map<? extends K, ? extends V> apply(Set<? extends K> keys) {
    Map<? extends K, ? extends V> loaded =
        requireNonNull(load.apply(keys), "mappingFunction returned null");
    // Checked before any enter begins: Caffeine's put would fail on them half way.
    loaded.forEach(
        (key, value) -> {
          requireNonNull(key, "mappingFunction returned a null key");
          requireNonNull(value, "mappingFunction returned a null value");
        });
    for (K key : loaded.keySet()) {
      enters.add(guard.beginEnter(key));
    }
    return loaded;
  }

  /**
   * Makes every begun enter visible: the entries were stored (or, if Caffeine's puts threw, may
   * have been; a fingerprint kept without its entry is a false positive, never wrong).
   */
  void end() {
    for (PendingEnter<K> enter : enters) {
      enter.visible();
    }
    enters.clear();
  }
}
