package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.KeySource;
import java.util.function.Consumer;
import org.springframework.beans.factory.BeanFactory;

/**
 * The {@link KeySource} of a guard declared with {@code @CuckooGuarded}: waits until the context
 * is refreshed, emits the keys of the user's {@link KeyScan}, then one extra copy of the key of
 * every guarded write that was in flight during the rebuild ({@link WriteJournal} says why).
 *
 * <p>So the {@code KeySource} contract holds for a transactional store: a key present when the
 * scan starts and not emitted by the store was deleted by a transaction that committed during the
 * scan; that delete was in flight, so its key is emitted here.
 */
final class KeyScanSource implements KeySource<Object> {

  private final KeyScan scan;
  private final BeanFactory beanFactory;
  private final ContextReadyGate gate;
  private final WriteJournal journal;

  KeyScanSource(KeyScan scan, BeanFactory beanFactory, ContextReadyGate gate, WriteJournal journal) {
    this.scan = scan;
    this.beanFactory = beanFactory;
    this.gate = gate;
    this.journal = journal;
  }

  @Override
  public void forEachKey(Consumer<? super Object> action) throws Exception {
    gate.await();
    scan.forEachKey(beanFactory, action::accept);
    for (Object key : journal.takeRecording()) {
      action.accept(key);
    }
  }

  @Override
  public String toString() {
    return scan.describe();
  }
}
