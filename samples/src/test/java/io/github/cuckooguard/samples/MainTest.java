package io.github.cuckooguard.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

  @Test
  void runAllEndsWithACombinedSummaryOfTheStoriesRun() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    List<StoryOutcome> outcomes =
        Main.runAll(
            Options.parse(
                "cdn",
                "--duration",
                "0.5",
                "--warmup",
                "0",
                "--catalog",
                "500",
                "--origin-ms",
                "0"),
            new PrintStream(bytes, true, StandardCharsets.UTF_8));

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

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void resultsFileHoldsEveryRowOfTheTablesAsPrinted(@TempDir Path dir) throws Exception {
    String[] words =
        Options.words(
            "cdn --duration 0.5 --warmup 0 --catalog 500 --origin-ms 0 --results "
                + dir.resolve("run.tsv"));
    Path file = Main.resultsFile(words);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<StoryOutcome> outcomes =
        Main.runAll(
            Options.parse(Main.withoutResults(words)),
            new PrintStream(bytes, true, StandardCharsets.UTF_8));

    Main.writeResults(outcomes, "cdn", file);

    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertThat(lines).contains("story\tfigure\twith\twithout");
    String probes =
        lines.stream().filter(l -> l.startsWith("cdn\tstorage probes")).findFirst().orElseThrow();
    String printed = bytes.toString(StandardCharsets.UTF_8);
    String[] cells = probes.split("\t");
    assertThat(cells).hasSize(4);
    assertThat(printed)
        .containsPattern("storage probes \\(HTTP round trips\\) +" + cells[2] + " +" + cells[3]);
    assertThat(lines.stream().filter(l -> l.startsWith("cdn\t")).count())
        .isEqualTo(
            printed
                .lines()
                .dropWhile(l -> !l.startsWith("== CDN edge"))
                .skip(2)
                .takeWhile(l -> l.startsWith("  ") && !l.startsWith("  guard:"))
                .count());
  }

  @Test
  void resultsOptionIsTakenOutOfTheStoryArguments() {
    String[] words = {"db", "--results", "out.tsv", "--rows", "1000"};
    assertThat(Main.resultsFile(words)).isEqualTo(Path.of("out.tsv"));
    assertThat(Main.withoutResults(words)).containsExactly("db", "--rows", "1000");
    assertThat(Main.resultsFile("db")).isNull();
  }
}
