package io.github.cuckooguard.spring;

import static io.github.cuckooguard.spring.support.StartupFailures.startupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import io.github.cuckooguard.spring.entity.EntityJpaConfig;
import io.github.cuckooguard.spring.entity.Member;
import io.github.cuckooguard.spring.entity.MemberRepository;
import io.github.cuckooguard.spring.entity.Unguarded;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.MapPropertySource;

/**
 * {@code @CuckooGuarded(entity = …)} that cannot work fails the start of the context, with a
 * message that names the declaration and says what to do: cuckoo-guard-hibernate missing, no
 * factory, an entity that is not mapped or not guarded, the guard switched off, and annotations
 * that would duplicate what Hibernate does.
 */
class EntityGuardStartupFailureTest {

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard
  static class Base {}

  @CuckooGuarded(entity = Member.class)
  public static class MemberFinder {
    @GuardedFind
    public Member find(long id) {
      return null;
    }
  }

  @CuckooGuarded(entity = Unguarded.class)
  public static class UnguardedFinder {
    @GuardedFind
    public Unguarded find(long id) {
      return null;
    }
  }

  @CuckooGuarded(entity = String.class)
  public static class NotAnEntityFinder {
    @GuardedFind
    public String find(long id) {
      return null;
    }
  }

  private static String jpaStartupFailure(
      Map<String, Object> properties, Class<?>... configurations) {
    return startupFailure(
        () ->
            Contexts.start(
                    H2.newUrl(),
                    context ->
                        context
                            .getEnvironment()
                            .getPropertySources()
                            .addFirst(new MapPropertySource("test", properties)),
                    configurations)
                .close());
  }

  @Test
  void entityNotGuardedByHibernate() {
    assertThat(jpaStartupFailure(Map.of(), EntityJpaConfig.class, UnguardedFinder.class))
        .contains(
            "@CuckooGuarded(entity = "
                + Unguarded.class.getName()
                + ".class) on "
                + UnguardedFinder.class.getName())
        .contains(
            Unguarded.class.getName()
                + " is not guarded by cuckoo-guard-hibernate in "
                + "EntityManagerFactory bean 'entityManagerFactory' (guarded: ["
                + Member.class.getName()
                + "])")
        .contains("Annotate it with @GuardedEntity or list it in hibernate.cuckoo.entities");
  }

  @Test
  void hibernateGuardSwitchedOff() {
    assertThat(
            jpaStartupFailure(Map.of(CuckooGuardSettings.ENABLED, "false"), EntityJpaConfig.class))
        .contains("@CuckooGuarded(entity = " + Member.class.getName() + ".class) on ")
        .contains(MemberRepository.class.getName())
        .contains(
            "cuckoo-guard-hibernate guards nothing in EntityManagerFactory bean 'entityManagerFactory'. "
                + "Cuckoo guard is not active")
        .contains("leave hibernate.cuckoo.enabled unset or true");
  }

  @Test
  void entityNotMapped() {
    assertThat(jpaStartupFailure(Map.of(), EntityJpaConfig.class, NotAnEntityFinder.class))
        .contains(
            "none of the EntityManagerFactory beans [entityManagerFactory] maps java.lang.String")
        .contains("Add it to the persistence unit");
  }

  @Import({Base.class, MemberFinder.class})
  static class NoFactoryConfig {}

  @Test
  void noEntityManagerFactory() {
    assertThat(startupFailure(NoFactoryConfig.class))
        .contains(
            "@CuckooGuarded(entity = "
                + Member.class.getName()
                + ".class) on "
                + MemberFinder.class.getName())
        .contains("the context has no EntityManagerFactory (or Hibernate SessionFactory) bean")
        .contains("@CuckooGuarded(name = \"…\")");
  }

  /**
   * Hides cuckoo-guard-hibernate from the context, as if the optional dependency were not declared.
   */
  private static final class WithoutHibernateAdapter extends ClassLoader {
    WithoutHibernateAdapter() {
      super(EntityGuardStartupFailureTest.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith("io.github.cuckooguard.hibernate.")) {
        throw new ClassNotFoundException(name);
      }
      return super.loadClass(name, resolve);
    }
  }

  @Test
  void hibernateAdapterMissing() {
    assertThat(
            startupFailure(
                () -> {
                  AnnotationConfigApplicationContext context =
                      new AnnotationConfigApplicationContext();
                  context.setClassLoader(new WithoutHibernateAdapter());
                  context.register(NoFactoryConfig.class);
                  try {
                    context.refresh();
                  } finally {
                    context.close();
                  }
                }))
        .contains("@CuckooGuarded(entity = Member.class) on " + MemberFinder.class.getName())
        .contains("io.github.cuckooguard.hibernate.HibernateCuckooGuards is not on the class path")
        .contains("Add the dependency io.github.cuckooguard:hibernate-adapter");
  }

  @CuckooGuarded(entity = Member.class)
  public static class AddsItself {
    @GuardedAdd(key = "#member.id")
    public boolean insert(Member member) {
      return true;
    }
  }

  @Import({Base.class, AddsItself.class})
  static class AddsItselfConfig {}

  @Test
  void addOrRemoveWithoutAGuardOfItsOwn() {
    assertThat(startupFailure(AddsItselfConfig.class))
        .contains("@GuardedAdd on " + AddsItself.class.getName() + ".insert(Member)")
        .contains("cuckoo-guard-hibernate keeps in step with every insert and committed delete")
        .contains("would count the write twice");
  }

  @Lazy
  @CuckooGuarded(entity = Member.class)
  public static class RemovesItselfLazily {
    @GuardedRemove(key = "#id")
    public boolean delete(long id) {
      return true;
    }
  }

  @Import({Base.class, RemovesItselfLazily.class})
  static class RemovesItselfLazilyConfig {}

  @Test
  void removeOnALazyEntityRepositoryThatIsNeverInjectedFailsTheStart() {
    assertThat(startupFailure(RemovesItselfLazilyConfig.class))
        .contains("@GuardedRemove on " + RemovesItselfLazily.class.getName() + ".delete(long)")
        .contains("would count the write twice");
  }

  @CuckooGuarded(entity = Member.class, name = "members", fpp = 0.001)
  public static class SizedToo {
    @GuardedFind
    public Member find(long id) {
      return null;
    }
  }

  @Import({Base.class, SizedToo.class})
  static class SizedTooConfig {}

  @Test
  void entityWithAttributesOfAGuardOfItsOwn() {
    assertThat(startupFailure(SizedTooConfig.class))
        .contains(
            "@CuckooGuarded(entity = Member.class) on "
                + SizedToo.class.getName()
                + " also sets name, fpp")
        .contains("sized by @GuardedEntity and the hibernate.cuckoo.* settings");
  }

  @CuckooGuarded(entity = Member.class)
  public static class ScansItself {
    @GuardKeySource
    public List<Long> ids() {
      return List.of();
    }
  }

  @Import({Base.class, ScansItself.class})
  static class ScansItselfConfig {}

  @Test
  void keySourceOfAnEntityRepository() {
    assertThat(startupFailure(ScansItselfConfig.class))
        .contains("@GuardKeySource on " + ScansItself.class.getName() + ".ids()")
        .contains("which scans the entity's ids itself");
  }
}
