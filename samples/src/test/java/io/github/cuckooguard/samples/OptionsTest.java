package io.github.cuckooguard.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OptionsTest {

  @Test
  void noArgumentsRunsAllStoriesOnDefaults() {
    Options options = Options.parse();

    assertThat(options.stories()).containsExactly("cdn", "db", "jcache");
    assertThat(options.duration()).isEqualTo(Duration.ofSeconds(6));
    assertThat(options.missShare()).isEqualTo(0.25);
    assertThat(options.rows()).isPositive();
  }

  @Test
  void storiesAndOptionsAreParsedInAnyOrderWithoutDuplicates() {
    Options options =
        Options.parse(
            "db",
            "--rows",
            "200_000",
            "cdn",
            "--origin-ms",
            "0.5",
            "db",
            "--miss-share",
            "0.5",
            "--duration",
            "1.5");

    assertThat(options.stories()).containsExactly("db", "cdn");
    assertThat(options.rows()).isEqualTo(200_000);
    assertThat(options.originLatency()).isEqualTo(Duration.ofMillis(0).plusNanos(500_000));
    assertThat(options.missShare()).isEqualTo(0.5);
    assertThat(options.duration()).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void blankArgumentsOfTheMavenProfileAreIgnored() {
    assertThat(Options.parse("", "  ").stories()).isEqualTo(Options.STORIES);
  }

  @Test
  void badValuesNameTheOptionTheValueAndTheRange() {
    assertThatThrownBy(() -> Options.parse("--miss-share", "1.5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--miss-share (1.5)")
        .hasMessageContaining("[0, 1]");
    assertThatThrownBy(() -> Options.parse("--rows", "many"))
        .hasMessageContaining("--rows (many) must be a number");
    assertThatThrownBy(() -> Options.parse("--threads"))
        .hasMessageContaining("--threads needs a value");
    assertThatThrownBy(() -> Options.parse("--speed", "3"))
        .hasMessageContaining("unknown option '--speed'");
    assertThatThrownBy(() -> Options.parse("redis")).hasMessageContaining("unknown story 'redis'");
  }

  @Test
  void helpListsEveryOptionWithItsDefault() {
    String usage = Options.usage();

    for (String flag :
        List.of(
            "--duration",
            "--warmup",
            "--threads",
            "--miss-share",
            "--fpp",
            "--seed",
            "--catalog",
            "--zipf",
            "--memory-tier",
            "--peer-tier",
            "--ttl",
            "--origin-ms",
            "--rows",
            "--write-share",
            "--entries",
            "--help")) {
      assertThat(usage).contains(flag);
    }
    assertThat(usage).contains("[0.25]");
    assertThat(Options.wantsHelp("db", "--help")).isTrue();
    assertThat(Options.wantsHelp("db")).isFalse();
  }
}
