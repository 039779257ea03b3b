package io.github.cuckooguard.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.hibernate.model.TenantNote;
import java.time.Duration;
import java.util.Map;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link HibernateCuckooGuards#mightContain(Class, Object)} in a multi-tenant factory asks the
 * guard of the tenant the factory's resolver names, as a session opened now would; a root tenant
 * sees every tenant's rows, so no guard can answer for it.
 */
class CurrentTenantTest {

  /** The application's resolver: the tenant of the current thread; "root" sees all tenants. */
  static final class ThreadTenant implements CurrentTenantIdentifierResolver<Object> {
    static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    @Override
    public Object resolveCurrentTenantIdentifier() {
      return CURRENT.get();
    }

    @Override
    public boolean validateExistingCurrentSessions() {
      return false;
    }

    @Override
    public boolean isRoot(Object tenantId) {
      return "root".equals(tenantId);
    }
  }

  static SessionFactory sf;
  static HibernateCuckooGuards guards;

  @BeforeAll
  static void start() throws InterruptedException {
    Configuration cfg = Db.configuration(Db.newUrl(), new SqlCounter(), Map.of(), TenantNote.class);
    cfg.setCurrentTenantIdentifierResolver(new ThreadTenant());
    sf = cfg.buildSessionFactory();
    guards = HibernateCuckooGuards.of(sf);
    persist("a", 1);
    persist("b", 2);
    guards.stats(TenantNote.class, "a");
    guards.stats(TenantNote.class, "b");
    assertThat(guards.awaitWarmUp(Duration.ofSeconds(30))).isTrue();
  }

  @AfterAll
  static void stop() {
    sf.close();
  }

  @AfterEach
  void noTenant() {
    ThreadTenant.CURRENT.remove();
  }

  private static void persist(String tenant, long id) {
    try (Session s = sf.withOptions().tenantIdentifier(tenant).openSession()) {
      s.beginTransaction();
      s.persist(new TenantNote(id, tenant + "'s"));
      s.getTransaction().commit();
    }
  }

  @Test
  void asksTheGuardOfTheResolvedTenant() {
    ThreadTenant.CURRENT.set("a");
    assertThat(guards.mightContain(TenantNote.class, 1L)).isTrue();
    assertThat(guards.mightContain(TenantNote.class, 2L)).as("b's row, asked as a").isFalse();
    ThreadTenant.CURRENT.set("b");
    assertThat(guards.mightContain(TenantNote.class, 2L)).isTrue();
    assertThat(guards.mightContain(TenantNote.class, 1L)).isFalse();
  }

  @Test
  void explicitTenant() {
    assertThat(guards.mightContain(TenantNote.class, "a", 1L)).isTrue();
    assertThat(guards.mightContain(TenantNote.class, "b", 1L)).isFalse();
    assertThatThrownBy(() -> guards.mightContain(TenantNote.class, null, 1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("multi-tenant: pass the tenant");
  }

  @Test
  void rootTenantSeesEveryRowSoItIsNeverShortCircuited() {
    ThreadTenant.CURRENT.set("root");
    assertThat(guards.mightContain(TenantNote.class, 999L)).isTrue();
    assertThat(guards.mightContain(TenantNote.class, "root", 999L)).isTrue();
    assertThat(guards.mightContain(TenantNote.class, "a", 999L)).isFalse();
  }

  @Test
  void rootTenantSessionFindsRowsOtherTenantsInsertLater() throws InterruptedException {
    // Regression: the load listener consulted the root tenant's own guard, which never sees the
    // other tenants' inserts, so find() answered null for rows that exist (a false negative).
    try (Session s = sf.withOptions().tenantIdentifier("root").openSession()) {
      s.find(TenantNote.class, 998L);
    }
    assertThat(guards.awaitWarmUp(Duration.ofSeconds(30))).isTrue();
    persist("a", 3);
    try (Session s = sf.withOptions().tenantIdentifier("root").openSession()) {
      assertThat(s.find(TenantNote.class, 3L))
          .as("a's new row, read by the root tenant")
          .isNotNull();
    }
  }

  @Test
  void noTenantResolvedIsAnError() {
    assertThatThrownBy(() -> guards.mightContain(TenantNote.class, 1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is multi-tenant and no CurrentTenantIdentifierResolver")
        .hasMessageContaining("mightContain(TenantNote.class, tenantId, id)");
  }
}
