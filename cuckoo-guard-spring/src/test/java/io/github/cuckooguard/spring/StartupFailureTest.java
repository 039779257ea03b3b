package io.github.cuckooguard.spring;

import static io.github.cuckooguard.spring.support.StartupFailures.startupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardSpec;
import java.time.LocalDate;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.Ordered;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Wrong configurations fail the start of the context, with a message that names the method (or the
 * guard) and says what to do. No database is needed: the checks run before any call.
 */
class StartupFailureTest {

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard
  static class Base {}

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class BadSpel {
    @GuardedFind(key = "#id +")
    public Object find(long id) {
      return null;
    }
  }

  @Import({Base.class, BadSpel.class})
  static class BadSpelConfig {}

  @Test
  void badSpel() {
    assertThat(startupFailure(BadSpelConfig.class))
        .contains("@GuardedFind on " + BadSpel.class.getName() + ".find(long)")
        .contains("\"#id +\" is not valid SpEL");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class UnknownVariable {
    @GuardedFind(key = "#userId")
    public Object find(long id) {
      return null;
    }
  }

  @Import({Base.class, UnknownVariable.class})
  static class UnknownVariableConfig {}

  @Test
  void variableThatNamesNoParameter() {
    assertThat(startupFailure(UnknownVariableConfig.class))
        .contains(UnknownVariable.class.getName() + ".find(long)")
        .contains("refers to #userId, which is not a parameter; known: [id, p0, a0]");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class ResultKey {
    @GuardedAdd(key = "#result.id")
    public Object insert(Object user) {
      return user;
    }
  }

  @Import({Base.class, ResultKey.class})
  static class ResultKeyConfig {}

  @Test
  void resultIsNotAvailableToAnAdd() {
    assertThat(startupFailure(ResultKeyConfig.class))
        .contains("@GuardedAdd on " + ResultKey.class.getName() + ".insert(Object)")
        .contains("#result is not available");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class PrimitiveFinder {
    @GuardedFind
    public long countById(long id) {
      return 0;
    }
  }

  @Import({Base.class, PrimitiveFinder.class})
  static class PrimitiveFinderConfig {}

  @Test
  void primitiveReturnTypeCannotBeShortCircuited() {
    assertThat(startupFailure(PrimitiveFinderConfig.class))
        .contains("@GuardedFind on " + PrimitiveFinder.class.getName() + ".countById(long)")
        .contains("return type long cannot be short-circuited");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class BoxedAndContainers {
    @GuardedFind
    public Integer ageOf(long id) {
      return null;
    }
  }

  @Import({Base.class, BoxedAndContainers.class})
  static class BoxedConfig {}

  @Test
  void boxedNumberIsAmbiguous() {
    assertThat(startupFailure(BoxedConfig.class))
        .contains(BoxedAndContainers.class.getName() + ".ageOf(long)")
        .contains("a boxed number could mean null or 0");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class MapFinder {
    @GuardedFind
    public Map<String, Object> attributes(long id) {
      return Map.of();
    }
  }

  @Import({Base.class, MapFinder.class})
  static class MapFinderConfig {}

  @Test
  void mapIsNotGuessed() {
    assertThat(startupFailure(MapFinderConfig.class))
        .contains(MapFinder.class.getName() + ".attributes(long)")
        .contains("cannot be short-circuited");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class NoKey {
    @GuardedFind
    public Optional<Object> find(long tenant, long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, NoKey.class})
  static class NoKeyConfig {}

  @Test
  void severalParametersNeedAKey() {
    assertThat(startupFailure(NoKeyConfig.class))
        .contains(NoKey.class.getName() + ".find(long, long)")
        .contains("cannot tell which argument is the key");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class TwoKeys {
    @GuardedFind
    public Optional<Object> find(@GuardKey long tenant, @GuardKey long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, TwoKeys.class})
  static class TwoKeysConfig {}

  @Test
  void oneGuardKeyOnly() {
    assertThat(startupFailure(TwoKeysConfig.class)).contains("@GuardKey is on 2 parameters");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class VoidRemove {
    @GuardedRemove(key = "#id")
    public void deleteById(long id) {}
  }

  @Import({Base.class, VoidRemove.class})
  static class VoidRemoveConfig {}

  @Test
  void voidRemoveMustDeclareThatItThrowsWhenAbsent() {
    assertThat(startupFailure(VoidRemoveConfig.class))
        .contains("@GuardedRemove on " + VoidRemove.class.getName() + ".deleteById(long)")
        .contains("throwsIfAbsent = true");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class FinalFinder {
    @GuardedFind
    public final Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, FinalFinder.class})
  static class FinalFinderConfig {}

  @Test
  void finalMethodCannotBeIntercepted() {
    assertThat(startupFailure(FinalFinderConfig.class))
        .contains(FinalFinder.class.getName() + ".find(long)")
        .contains("the method is final");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class TwoRoles {
    @GuardedFind
    @GuardedRemove
    public boolean deleteIfPresent(long id) {
      return false;
    }
  }

  @Import({Base.class, TwoRoles.class})
  static class TwoRolesConfig {}

  @Test
  void aMethodHasOneRole() {
    assertThat(startupFailure(TwoRolesConfig.class))
        .contains(TwoRoles.class.getName() + ".deleteIfPresent(long)")
        .contains("carries 2 guard annotations");
  }

  public static class NoGuardName {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, NoGuardName.class})
  static class NoGuardNameConfig {}

  @Test
  void methodWithoutAGuard() {
    assertThat(startupFailure(NoGuardNameConfig.class))
        .contains(NoGuardName.class.getName() + ".find(long)")
        .contains("no guard named");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class UnknownGuard {
    @GuardedFind(guard = "nope")
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, UnknownGuard.class})
  static class UnknownGuardConfig {}

  @Test
  void guardThatIsNoBean() {
    assertThat(startupFailure(UnknownGuardConfig.class))
        .contains(UnknownGuard.class.getName() + ".find(long)")
        .contains("there is no CuckooGuard bean named 'nope'");
  }

  @CuckooGuarded(name = "g")
  public static class NoKeySource {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, NoKeySource.class})
  static class NoKeySourceConfig {}

  @Test
  void guardWithoutKeySourceMustStartEmpty() {
    assertThat(startupFailure(NoKeySourceConfig.class))
        .contains("Guard 'g'")
        .contains("has no key source")
        .contains("startsEmpty = true");
  }

  @CuckooGuarded(name = "g", keySource = "missing")
  public static class MissingKeySource {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, MissingKeySource.class})
  static class MissingKeySourceConfig {}

  @Test
  void keySourceMustBeAKeySourceBean() {
    assertThat(startupFailure(MissingKeySourceConfig.class))
        .contains("keySource = \"missing\" is not the name of a KeySource bean");
  }

  @CuckooGuarded(name = "g", fpp = 0.01, startsEmpty = true)
  public static class OneDeclaration {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @CuckooGuarded(name = "g", fpp = 0.001, startsEmpty = true)
  public static class OtherDeclaration {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, OneDeclaration.class, OtherDeclaration.class})
  static class ConflictConfig {}

  @Test
  void declarationsOfOneGuardMustAgree() {
    assertThat(startupFailure(ConflictConfig.class))
        .contains("Guard 'g' is declared with fpp = 0.01 by " + OneDeclaration.class.getName())
        .contains("fpp = 0.001 by " + OtherDeclaration.class.getName());
  }

  @CuckooGuarded(name = "g", fpp = 0.5)
  public static class BadFpp {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @Import({Base.class, BadFpp.class})
  static class OwnGuardConfig {
    @Bean
    CuckooGuard<Long> g() {
      return CuckooGuard.newBuilder(Funnels.longFunnel()).build();
    }
  }

  @Test
  void ownGuardBeanMayOnlyBeNamed() {
    assertThat(startupFailure(OwnGuardConfig.class))
        .contains("A bean named 'g' already exists")
        .contains(BadFpp.class.getName());
  }

  @CuckooGuarded(name = "g", fpp = 1.5, startsEmpty = true)
  public static class OutOfRangeFpp {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, OutOfRangeFpp.class})
  static class OutOfRangeFppConfig {}

  @Test
  void sizingIsCheckedByTheGuardBuilder() {
    assertThat(startupFailure(OutOfRangeFppConfig.class))
        .contains("@CuckooGuarded(name = \"g\") on " + OutOfRangeFpp.class.getName())
        .contains("1.5");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class RequiresNewAdd {
    @GuardedAdd
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public boolean insert(long id) {
      return true;
    }
  }

  @Import({Base.class, RequiresNewAdd.class})
  static class RequiresNewConfig {}

  @Test
  void addInItsOwnTransactionIsRejected() {
    assertThat(startupFailure(RequiresNewConfig.class))
        .contains("@GuardedAdd on " + RequiresNewAdd.class.getName() + ".insert(long)")
        .contains("REQUIRES_NEW");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class DateKeys {
    @GuardedFind
    public Optional<Object> findByDay(LocalDate day) {
      return Optional.empty();
    }
  }

  @Import({Base.class, DateKeys.class})
  static class DateKeysConfig {}

  @Test
  void unsupportedKeyTypeFailsTheStart() {
    assertThat(startupFailure(DateKeysConfig.class))
        .contains("@GuardedFind on " + DateKeys.class.getName() + ".findByDay(LocalDate)")
        .contains("the key is a java.time.LocalDate, which guard 'g' cannot take")
        .contains("key = \"#date.toEpochDay()\"");
  }

  /** An event with a date. */
  public record Event(long id, LocalDate day) {}

  @Lazy
  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class LazyEventLog {
    @GuardedAdd(key = "#event.day")
    public boolean insert(Event event) {
      return true;
    }

    @GuardedRemove(key = "#event.day()")
    public boolean delete(Event event) {
      return true;
    }
  }

  @Import({Base.class, LazyEventLog.class})
  static class LazyEventLogConfig {}

  @Test
  void unsupportedKeyTypeOfAKeyExpressionFailsTheStartAlsoForALazyBean() {
    assertThat(startupFailure(LazyEventLogConfig.class))
        .contains(LazyEventLog.class.getName())
        .contains("the key is a java.time.LocalDate, which guard 'g' cannot take");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class MappedDateKeys {
    @GuardedAdd(key = "#event.day().toEpochDay()")
    public boolean insert(Event event) {
      return true;
    }

    @GuardedFind(key = "#day.toEpochDay()")
    public Optional<Object> findByDay(LocalDate day) {
      return Optional.of(day);
    }
  }

  @Import({Base.class, MappedDateKeys.class})
  static class MappedDateKeysConfig {}

  @Test
  void keyMappedToASupportedTypeStarts() {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(MappedDateKeysConfig.class)) {
      MappedDateKeys keys = context.getBean(MappedDateKeys.class);
      LocalDate day = LocalDate.of(2026, 12, 1);
      assertThat(keys.insert(new Event(1, day))).isTrue();
      assertThat(keys.findByDay(day)).contains(day);
      assertThat(context.getBean("g", CuckooGuard.class).mightContain(day.toEpochDay())).isTrue();
    }
  }

  @CuckooGuarded(name = "g")
  public static class DateKeysOfOwnGuard {
    @GuardedFind
    public Optional<Object> findByDay(LocalDate day) {
      return Optional.empty();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @Import({Base.class, DateKeysOfOwnGuard.class})
  static class OwnLongGuardConfig {
    @Bean
    CuckooGuard<Long> g() {
      return CuckooGuard.newBuilder(Funnels.longFunnel()).build();
    }
  }

  @Test
  void keyTypeWithoutAConversionToTheOwnGuardsKeyTypeFailsTheStart() {
    assertThat(startupFailure(OwnLongGuardConfig.class))
        .contains(DateKeysOfOwnGuard.class.getName() + ".findByDay(LocalDate)")
        .contains("guard 'g' takes java.lang.Long keys and there is no conversion");
  }

  @CuckooGuarded(name = "g", spec = "gSpec", startsEmpty = true)
  public static class Specified {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @Import({Base.class, Specified.class})
  static class SpecConfig {
    @Bean
    GuardSpec gSpec() {
      return GuardSpec.newBuilder().expectedInsertions(500).fingerprintBits(12).seed(7).build();
    }
  }

  @Test
  void specBeanHoldsTheGuardsSettings() {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(SpecConfig.class)) {
      assertThat(context.getBean("g", CuckooGuard.class).spec()).isSameAs(context.getBean("gSpec"));
    }
  }

  @Import({Base.class, Specified.class})
  static class MissingSpecConfig {}

  @Test
  void specMustNameAGuardSpecBean() {
    assertThat(startupFailure(MissingSpecConfig.class))
        .contains("@CuckooGuarded(name = \"g\") on " + Specified.class.getName())
        .contains("spec = \"gSpec\" is not the name of a GuardSpec bean (there is no such bean)");
  }

  @CuckooGuarded(name = "g", spec = "gSpec", fpp = 0.001, startsEmpty = true)
  public static class SpecifiedTwice {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @Import({Base.class, SpecifiedTwice.class})
  static class SpecifiedTwiceConfig {}

  @Test
  void specExcludesTheSingleSettings() {
    assertThat(startupFailure(SpecifiedTwiceConfig.class))
        .contains("Guard 'g' is declared with spec = \"gSpec\" and with expectedInsertions or fpp")
        .contains("the GuardSpec bean holds every setting");
  }

  @CuckooGuarded(name = "g", startsEmpty = true)
  public static class Plain {
    @GuardedFind
    public Optional<Object> find(long id) {
      return Optional.empty();
    }
  }

  @EnableTransactionManagement(order = Ordered.HIGHEST_PRECEDENCE)
  @Import({Base.class, Plain.class})
  static class TransactionFirstConfig {}

  @Test
  void transactionAdvisorOrderedBeforeTheGuard() {
    assertThat(startupFailure(TransactionFirstConfig.class))
        .contains("The transaction advisor")
        .contains("runs before (or ties with) the Cuckoo guard advisor");
  }

  @EnableTransactionManagement
  @Import({Base.class, Plain.class})
  static class Fine {}

  @Test
  void correctConfigurationStarts() {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(Fine.class)) {
      assertThat(context.getBean(Plain.class).find(1)).isEmpty();
      assertThat(context.getBean("g", CuckooGuard.class).stats().definiteMisses()).isEqualTo(1);
    }
  }
}
