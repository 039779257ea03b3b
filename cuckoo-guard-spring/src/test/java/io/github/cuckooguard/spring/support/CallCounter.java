package io.github.cuckooguard.spring.support;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts the calls that reached repository method bodies (a bean of its own, not proxied). */
public final class CallCounter {

  private final AtomicInteger finds = new AtomicInteger();
  private final AtomicInteger writes = new AtomicInteger();

  public void find() {
    finds.incrementAndGet();
  }

  public void write() {
    writes.incrementAndGet();
  }

  public int finds() {
    return finds.get();
  }

  public int writes() {
    return writes.get();
  }
}
