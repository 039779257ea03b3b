package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.KeySource;
import java.util.function.Consumer;
import org.springframework.beans.factory.BeanFactory;

/**
 * The {@link KeySource} of a guard declared with {@code @CuckooGuarded}: waits until the context
 * is refreshed, emits the key of every guarded write in flight since the rebuild started, then the
 * keys of the user's {@link KeyScan}, then the keys of writes recorded during the scan
 * ({@link WriteJournal} says why).
 *
 * <p>So the {@code KeySource} contract holds for a transactional store: a key added by a
 * transaction that commits after the scan passed it is emitted from the journal; a key present
 * when the scan starts and not emitted by the store was deleted by a transaction that committed
 * during the scan, and that delete was in flight, so its key is emitted here.
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
    journal.forEachRecorded(false, action::accept);
    scan.forEachKey(beanFactory, action::accept);
    journal.forEachRecorded(true, action::accept);
  }

  @Override
  public String toString() {
    return scan.describe();
  }
}
