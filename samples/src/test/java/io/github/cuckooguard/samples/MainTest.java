package io.github.cuckooguard.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class MainTest {

  @Test
  void runAllEndsWithACombinedSummaryOfTheStoriesRun() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    List<StoryOutcome> outcomes = Main.runAll(Options.parse("cdn", "--duration", "0.5", "--warmup", "0",
        "--catalog", "500", "--origin-ms", "0"), new PrintStream(bytes, true, StandardCharsets.UTF_8));

    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(outcomes).extracting(StoryOutcome::story).containsExactly("cdn");
    assertThat(printed).contains("== Summary", "cdn ", "all answers correct");
    assertThat(printed.indexOf("== Summary")).isGreaterThan(printed.indexOf("== CDN edge"));
  }

  @Test
  void argumentsPassedAsOneStringAreSplitIntoWords() {
    assertThat(Options.words(" db  --rows 1000 ", "--help"))
        .containsExactly("db", "--rows", "1000", "--help");
  }
}
