package io.github.cuckooguard.spring.contract;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.contract.GuardedSourceContract;
import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedRemove;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The core's contract on a real Spring context: an annotated repository bean over a {@link
 * ConcurrentHashMap} key set (no transactions), whose {@link GuardedAdd} and {@link GuardedRemove}
 * methods are the inserts and removes, whose {@link GuardKeySource} is a plain scan of the map, and
 * whose guard is the bean the context registered from {@link CuckooGuarded}, built with the
 * contract's {@link GuardSpec} through {@code @CuckooGuarded(spec = …)}.
 */
class SpringGuardContractTest extends GuardedSourceContract {

  /** The repository; every call goes through the context's proxy. */
  @CuckooGuarded(name = "contract", spec = "contractSpec", startsEmpty = true)
  public static class MapRepository {
    private final Set<Long> keys = ConcurrentHashMap.newKeySet();

    @GuardedAdd
    public boolean insert(long key) {
      return keys.add(key);
    }

    @GuardedRemove
    public boolean remove(long key) {
      return keys.remove(key);
    }

    @GuardKeySource
    public Set<Long> allKeys() {
      return keys;
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard
  @Import(MapRepository.class)
  static class Config {}

  @Override
  @SuppressWarnings("unchecked")
  protected Subject newSubject(GuardSpec spec) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.registerBean("contractSpec", GuardSpec.class, () -> spec);
    context.register(Config.class);
    context.refresh();
    MapRepository repository = context.getBean(MapRepository.class);
    CuckooGuard<Object> guard = context.getBean("contract", CuckooGuard.class);
    return new ContextSubject(context, guard, repository::insert, repository::remove);
  }

  /** A subject whose writes are calls of a guarded bean and whose guard is the context's. */
  static final class ContextSubject implements Subject {
    /** A write of one key through the context. */
    @FunctionalInterface
    interface Write {
      boolean apply(long key) throws Exception;
    }

    private final AnnotationConfigApplicationContext context;
    private final CuckooGuard<Object> guard;
    private final Write insert;
    private final Write remove;

    ContextSubject(
        AnnotationConfigApplicationContext context,
        CuckooGuard<Object> guard,
        Write insert,
        Write remove) {
      this.context = context;
      this.guard = guard;
      this.insert = insert;
      this.remove = remove;
    }

    @Override
    public void insert(long key) throws Exception {
      if (!insert.apply(key)) {
        throw new IllegalStateException("insert of " + key + " created nothing");
      }
    }

    @Override
    public void remove(long key) throws Exception {
      if (!remove.apply(key)) {
        throw new IllegalStateException("remove of " + key + " removed nothing");
      }
    }

    @Override
    public boolean mightContain(long key) {
      return guard.mightContain(key);
    }

    @Override
    public CompletableFuture<?> rebuild() {
      return guard.rebuild();
    }

    @Override
    public long fingerprints() {
      return guard.stats().size();
    }

    @Override
    public boolean isPassThrough() {
      return guard.isPassThrough();
    }

    @Override
    public void close() {
      context.close();
    }
  }
}
