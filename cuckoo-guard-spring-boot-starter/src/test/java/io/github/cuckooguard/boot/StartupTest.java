package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.boot.app.GuardedApp;
import io.github.cuckooguard.boot.badapp.UnfollowedWriteApp;
import io.github.cuckooguard.spring.internal.ProxyCuckooGuardConfiguration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts real Boot applications and reads what Boot prints: the failure analyzer's description and
 * action instead of a stack trace, misspelled keys reported with the accepted names, {@code
 * cuckooguard.enabled=false}, and the open-in-view warning.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StartupTest {

  /**
   * Runs {@code app} with {@code properties} as command-line arguments (they beat
   * application.properties).
   */
  static ConfigurableApplicationContext run(Class<?> app, String... properties) {
    String[] args = new String[properties.length];
    for (int i = 0; i < properties.length; i++) {
      args[i] = "--" + properties[i];
    }
    return new SpringApplicationBuilder(app).web(WebApplicationType.NONE).run(args);
  }

  @Test
  void unfollowedWritePathFailsTheStartWithTheAnalyzersMessage(CapturedOutput output) {
    assertThatThrownBy(() -> run(UnfollowedWriteApp.class).close()).isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains(
            "Cuckoo Guard is misconfigured: Spring Data repository "
                + "io.github.cuckooguard.boot.badapp.PurchaseOrderRepository is guarded by 'orders'")
        .contains("CrudRepository.save(Object)")
        .contains("Action:")
        .contains("annotate its inserts with @GuardedAdd");
  }

  @Test
  void misspelledHibernateKeyFailsTheStartWithTheAcceptedNames(CapturedOutput output) {
    assertThatThrownBy(() -> run(GuardedApp.class, "cuckooguard.hibernate.fpq=0.01").close())
        .hasRootCauseInstanceOf(IllegalArgumentException.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("unknown setting cuckooguard.hibernate.fpq=0.01")
        .contains("fpp")
        .contains("expected-insertions")
        .contains("Correct the setting named above");
  }

  @Test
  void badHibernateValueFailsTheStart(CapturedOutput output) {
    assertThatThrownBy(() -> run(GuardedApp.class, "cuckooguard.hibernate.fpp=2").close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("cuckooguard.hibernate.fpp");
  }

  @Test
  void misspelledKeyUnderThePrefixIsReported(CapturedOutput output) {
    assertThatThrownBy(() -> run(GuardedApp.class, "cuckooguard.expected-entries=5").close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("cuckooguard.expected-entries");
  }

  @Test
  void misspelledSettingOfANamedGuardFailsTheStartWithTheAcceptedNames(CapturedOutput output) {
    assertThatThrownBy(() -> run(GuardedApp.class, "cuckooguard.guards.books.fpq=0.01").close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("unknown setting cuckooguard.guards.books.fpq=0.01")
        .contains("fpp")
        .contains("expected-insertions")
        .contains("rebuild-load-threshold")
        .contains("Correct the setting named above");
  }

  @Test
  void badValueOfANamedGuardFailsTheStart(CapturedOutput output) {
    assertThatThrownBy(() -> run(GuardedApp.class, "cuckooguard.guards.books.fpp=1.5").close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("cuckooguard.guards.books.fpp");
  }

  @Test
  void settingsForAGuardNoAnnotationDeclaresFailTheStart(CapturedOutput output) {
    assertThatThrownBy(() -> run(GuardedApp.class, "cuckooguard.guards.bookz.fpp=0.01").close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("unknown guard in cuckooguard.guards.bookz.")
        .contains("the declared guards are [books]");
  }

  @Test
  void settingsForAGuardBeanOfTheApplicationFailTheStart(CapturedOutput output) {
    assertThatThrownBy(() -> run(GuardedApp.class, "cuckooguard.guards.tokens.fpp=0.01").close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("'tokens' is a bean the application defines itself");
  }

  @Test
  void misspelledCacheSettingFailsTheStartWithTheAcceptedNames(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                run(
                        io.github.cuckooguard.boot.cacheapp.CacheApp.class,
                        "spring.config.name=cacheapp",
                        "spring.cache.type=caffeine",
                        "spring.cache.caffeine.spec=maximumSize=100",
                        "cuckooguard.cache.pages.fpq=0.01")
                    .close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("unknown setting cuckooguard.cache.pages.fpq=0.01")
        .contains("funnel")
        .contains("expected-insertions");
  }

  @Test
  void enabledFalseLeavesTheGuardsOff() {
    try (ConfigurableApplicationContext context =
        run(GuardedApp.class, "cuckooguard.enabled=false")) {
      assertThat(context.containsBean(ProxyCuckooGuardConfiguration.REGISTRY_BEAN_NAME)).isFalse();
      assertThat(context.getBeanNamesForType(GuardCatalog.class)).isEmpty();
    }
  }

  @Test
  void openInViewWithAGuardIsLoggedOnce(CapturedOutput output) {
    try (ConfigurableApplicationContext context =
        run(GuardedApp.class, "spring.jpa.open-in-view=true")) {
      String out = output.getOut() + output.getErr();
      String marker = "spring.jpa.open-in-view is on and the context has Cuckoo guards";
      assertThat(out).contains(marker);
      assertThat(out.indexOf(marker)).isEqualTo(out.lastIndexOf(marker));
    }
  }

  @Test
  void cachesMadeOnTheFlyStayPlainAndTheStartSaysSo(CapturedOutput output) {
    String marker = "CaffeineCacheManager creates caches on the fly";
    try (ConfigurableApplicationContext context =
        run(
            io.github.cuckooguard.boot.cacheapp.CacheApp.class,
            "spring.config.name=cacheapp",
            "spring.cache.type=caffeine",
            "cuckooguard.cache.pages.fpp=0.01")) {
      org.springframework.cache.CacheManager caches =
          context.getBean(org.springframework.cache.CacheManager.class);
      assertThat(caches.getCache("pages").getNativeCache().getClass().getName())
          .as("a cache with settings is guarded also when the manager makes caches on the fly")
          .startsWith("io.github.cuckooguard.caffeine");
      assertThat(caches.getCache("made-on-the-fly").getNativeCache().getClass().getName())
          .startsWith("com.github.benmanes.caffeine");
      String out = output.getOut() + output.getErr();
      assertThat(out).contains(marker).contains("the caches [pages] are guarded");
      assertThat(out.indexOf(marker)).isEqualTo(out.lastIndexOf(marker));
    }
  }

  @Test
  void fixedCacheNamesLogNoOnTheFlyWarning(CapturedOutput output) {
    try (ConfigurableApplicationContext context =
        run(
            io.github.cuckooguard.boot.cacheapp.CacheApp.class,
            "spring.config.name=cacheapp",
            "spring.cache.type=caffeine",
            "spring.cache.cache-names=pages",
            "cuckooguard.cache.pages.fpp=0.01")) {
      assertThat(output.getOut() + output.getErr())
          .doesNotContain("CaffeineCacheManager creates caches on the fly");
    }
  }
}
