package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.KeySource;
import java.util.function.Consumer;
import org.springframework.beans.factory.BeanFactory;

/**
 * The {@link KeySource} of a guard declared with {@code @CuckooGuarded}: waits until the context is
 * refreshed, then emits the keys of the user's {@link KeyScan}. A plain scan is all the {@code
 * KeySource} contract asks for: every guarded write announces itself to the guard before it can
 * change what the scan sees and ends after ({@link GuardInterceptor}), so the guard itself hands
 * the keys of writes in flight (uncommitted inserts, deletes not committed or not yet reported
 * gone) to the rebuild's new filter.
 */
final class KeyScanSource implements KeySource<Object> {

  private final KeyScan scan;
  private final BeanFactory beanFactory;
  private final ContextReadyGate gate;

  KeyScanSource(KeyScan scan, BeanFactory beanFactory, ContextReadyGate gate) {
    this.scan = scan;
    this.beanFactory = beanFactory;
    this.gate = gate;
  }

  @Override
  public void forEachKey(Consumer<? super Object> action) throws Exception {
    gate.await();
    scan.forEachKey(beanFactory, action::accept);
  }

  @Override
  public String toString() {
    return scan.describe();
  }
}
