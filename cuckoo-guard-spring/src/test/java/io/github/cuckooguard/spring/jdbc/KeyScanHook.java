package io.github.cuckooguard.spring.jdbc;

/**
 * Lets a test run code (block on a latch) when a key scan of the repository starts; registered by
 * the test before the context is refreshed.
 */
public final class KeyScanHook {

  private volatile Runnable beforeScan = () -> {};

  public void beforeScan(Runnable action) {
    this.beforeScan = action;
  }

  void run() {
    beforeScan.run();
  }
}
