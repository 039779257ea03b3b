package io.github.cuckooguard.samples.db;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/**
 * The same service as two application instances behind a round-robin balancer: two session
 * factories on one database, each with its own embedded Hazelcast member, joined by the {@code
 * hibernate.cuckoo.cluster.*} settings. Request i goes to instance i mod 2, so a row is usually
 * inserted by one instance and read back by the other right after its commit. Without the cluster
 * that read would find "no such row" on the other instance's guard; with it, every answer is
 * checked against the committed truth.
 */
final class TwoInstances {

  /** Ports 5990-5997 on 127.0.0.1, a cluster name of its own; multicast and auto-detection off. */
  private static final int BASE_PORT = 5990;

  private TwoInstances() {}

  /**
   * What the run saw.
   *
   * @param requests requests served by the two instances together
   * @param crossReads finds of a row the other instance had just inserted and committed
   * @param absentShortCircuits finds of absent ids answered by the guard without SQL
   * @param wrongAnswers finds whose answer differed from the committed truth (null for a row that
   *     exists is a false negative)
   */
  record Result(
      long requests,
      long crossReads,
      long inserts,
      long deletes,
      long absentShortCircuits,
      long wrongAnswers,
      Duration took) {}

  static Result run(long seed, Duration duration, PrintStream out) throws Exception {
    out.println(
        "  two instances behind a round-robin: two session factories on one H2 database, each with its own"
            + " Hazelcast member (hibernate.cuckoo.cluster.instance)");
    String cluster = "cuckoo-samples-db-" + UUID.randomUUID();
    String url = "jdbc:h2:mem:two-instances-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    HazelcastInstance memberA = Hazelcast.newHazelcastInstance(member(cluster));
    HazelcastInstance memberB = Hazelcast.newHazelcastInstance(member(cluster));
    try (SessionFactory a = factory(url, memberA, "create");
        SessionFactory b = factory(url, memberB, "none")) {
      SessionFactory[] instances = {a, b};
      awaitReady(a);
      awaitReady(b);
      Set<Long> committed = ConcurrentHashMap.newKeySet();
      AtomicLong nextId = new AtomicLong();
      AtomicLong balancer = new AtomicLong();
      LongAdder requests = new LongAdder();
      LongAdder crossReads = new LongAdder();
      LongAdder inserts = new LongAdder();
      LongAdder deletes = new LongAdder();
      LongAdder wrong = new LongAdder();
      long[] shortCircuitsBefore = {shortCircuits(a), shortCircuits(b)};
      long start = System.nanoTime();
      long end = start + duration.toNanos();
      List<Thread> clients = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        SplittableRandom random = new SplittableRandom(seed + t);
        clients.add(
            new Thread(
                () -> {
                  while (System.nanoTime() - end < 0) {
                    SessionFactory here = instances[(int) (balancer.getAndIncrement() & 1)];
                    SessionFactory there = instances[(int) (balancer.getAndIncrement() & 1)];
                    double dice = random.nextDouble();
                    if (dice
                        < 0.5) { // insert on one instance, then the next request reads it on the
                      // other
                      long id = nextId.incrementAndGet();
                      here.inTransaction(s -> s.persist(new Article(id)));
                      inserts.increment();
                      crossReads.increment();
                      Article found = there.fromSession(s -> s.find(Article.class, id));
                      if (found == null || !found.title().equals(Article.titleOf(id))) {
                        wrong.increment();
                      }
                      committed.add(id); // deletable from now on, after its read-back
                    } else if (dice
                        < 0.6) { // delete an even id; then the other instance must not find it
                      long id = 2 * (1 + random.nextLong(Math.max(1, nextId.get() / 2)));
                      if (committed.remove(id)) {
                        here.inTransaction(
                            s -> {
                              Article article = s.find(Article.class, id);
                              if (article != null) {
                                s.remove(article);
                              }
                            });
                        deletes.increment();
                        if (there.fromSession(s -> s.find(Article.class, id)) != null) {
                          wrong.increment();
                        }
                      }
                    } else { // a find of an absent id: a definite miss, no SQL
                      long id = -1 - random.nextLong(1_000_000);
                      if (here.fromSession(s -> s.find(Article.class, id)) != null) {
                        wrong.increment();
                      }
                    }
                    requests.add(2);
                  }
                },
                "client-" + t));
      }
      clients.forEach(Thread::start);
      for (Thread c : clients) {
        c.join();
      }
      for (long id : committed) { // and afterwards: every committed row, on both instances
        for (SessionFactory instance : instances) {
          if (instance.fromSession(s -> s.find(Article.class, id)) == null) {
            wrong.increment();
          }
        }
      }
      Result result =
          new Result(
              requests.sum(),
              crossReads.sum(),
              inserts.sum(),
              deletes.sum(),
              shortCircuits(a) + shortCircuits(b) - shortCircuitsBefore[0] - shortCircuitsBefore[1],
              wrong.sum(),
              Duration.ofNanos(System.nanoTime() - start));
      out.printf(
          Locale.ROOT,
          "    %,d requests in %.1f s: %,d inserts each read back at once on the other instance,"
              + " %,d deletes, %,d finds of absent ids answered without SQL; then all %,d rows on both;"
              + " %,d wrong answers%n",
          result.requests(),
          result.took().toMillis() / 1e3,
          result.crossReads(),
          result.deletes(),
          result.absentShortCircuits(),
          committed.size(),
          result.wrongAnswers());
      return result;
    } finally {
      memberA.getLifecycleService().terminate();
      memberB.getLifecycleService().terminate();
    }
  }

  private static long shortCircuits(SessionFactory sf) {
    return HibernateCuckooGuards.of(sf).stats(Article.class).shortCircuits();
  }

  private static void awaitReady(SessionFactory sf) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (HibernateCuckooGuards.of(sf).mightContain(Article.class, -1L)) { // leased and complete
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the instance's guard got no lease within 60 s");
      }
      Thread.sleep(20);
    }
  }

  private static SessionFactory factory(String url, HazelcastInstance member, String ddl) {
    Configuration cfg = new Configuration().addAnnotatedClass(Article.class);
    cfg.setProperty("jakarta.persistence.jdbc.url", url);
    cfg.setProperty("jakarta.persistence.jdbc.user", "sa");
    cfg.setProperty("jakarta.persistence.jdbc.password", "");
    cfg.setProperty("hibernate.connection.pool_size", "4");
    cfg.setProperty("hibernate.hbm2ddl.auto", ddl);
    cfg.setProperty(CuckooGuardSettings.EXPECTED_INSERTIONS, "100000");
    cfg.setProperty(
        CuckooGuardSettings.CLUSTER_LEASE_MILLIS, "1000"); // 2 shared cores: a roomy lease
    cfg.getProperties().put(CuckooGuardSettings.CLUSTER_INSTANCE, member);
    return cfg.buildSessionFactory();
  }

  private static Config member(String cluster) {
    Config config = new Config().setClusterName(cluster);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network =
        config.getNetworkConfig().setPort(BASE_PORT).setPortAutoIncrement(true).setPortCount(8);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    for (int p = BASE_PORT; p < BASE_PORT + 8; p++) {
      join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + p);
    }
    return config;
  }
}
