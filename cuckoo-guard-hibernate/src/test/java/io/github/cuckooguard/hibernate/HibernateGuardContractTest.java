package io.github.cuckooguard.hibernate;

import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.contract.GuardedSourceContract;
import io.github.cuckooguard.hibernate.model.Entry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.hibernate.Session;
import org.hibernate.SessionFactory;

/**
 * The core's contract on Hibernate and H2: an insert is a persist committed in its own session and
 * transaction, a remove a delete committed the same way, and the guard is the adapter's guard of
 * the entity, configured through {@code hibernate.cuckoo.*} from the contract's {@link GuardSpec}.
 * The churn is shortened (each write is a transaction) but still races at least two rebuilds.
 */
class HibernateGuardContractTest extends GuardedSourceContract {

  @Override
  protected Duration churnDuration() {
    return Duration.ofSeconds(4);
  }

  @Override
  protected int keysPerWriter() {
    return 100;
  }

  @Override
  protected Subject newSubject(GuardSpec spec) {
    Map<String, Object> settings = new HashMap<>();
    settings.put(CuckooGuardSettings.EXPECTED_INSERTIONS, spec.expectedInsertions());
    settings.put(CuckooGuardSettings.FINGERPRINT_BITS, spec.fingerprintBits());
    if (spec.seed() != null) {
      settings.put(CuckooGuardSettings.SEED, spec.seed());
    }
    SessionFactory sf =
        Db.configuration(Db.newUrl(), new SqlCounter(), settings, Entry.class)
            .buildSessionFactory();
    HibernateCuckooGuards guards = HibernateCuckooGuards.of(sf);
    Db.awaitWarmUp(sf);
    return new Subject() {
      @Override
      public void insert(long key) {
        sf.inTransaction((Session s) -> s.persist(new Entry(key)));
      }

      @Override
      public void remove(long key) {
        sf.inTransaction(
            (Session s) -> {
              Entry entry =
                  s.find(Entry.class, key); // a guarded find: null here is a false negative
              if (entry == null) {
                throw new AssertionError("find(" + key + ") returned null for a committed row");
              }
              s.remove(entry);
            });
      }

      @Override
      public boolean mightContain(long key) {
        return guards.mightContain(Entry.class, key);
      }

      @Override
      public CompletableFuture<?> rebuild() {
        return guards.rebuild(Entry.class);
      }

      @Override
      public long fingerprints() {
        return guards.stats(Entry.class).guard().size();
      }

      @Override
      public boolean isPassThrough() {
        return guards.stats(Entry.class).guard().passThrough();
      }

      @Override
      public void close() {
        sf.close();
      }
    };
  }
}
