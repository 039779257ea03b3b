package io.github.cuckooguard.samples;

import io.github.cuckooguard.samples.cdn.CdnEdgeStory;
import io.github.cuckooguard.samples.db.DbRepositoryStory;
import io.github.cuckooguard.samples.jcache.JCacheClusterStory;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Runs the stories named on the command line (all three by default) and ends with a combined
 * summary. {@code --help} lists the options; {@code --results <file>} also writes every story's
 * table to {@code file} as tab-separated values ({@link #writeResults}). Exit status: 0 if every
 * answer was right, 1 if a story saw a wrong answer, 2 for a bad command line, 3 if a story failed
 * to run.
 */
public final class Main {

  private Main() {}

  /** Runs the stories the arguments name, all three without any; see {@link Options#usage()}. */
  public static void main(String[] args) {
    String[] words = Options.words(args);
    if (Options.wantsHelp(words)) {
      System.out.println(Options.usage());
      System.out.println(
          "  --results <file>         also write every story's table to <file> (tab-separated)");
      return;
    }
    Options options;
    @Nullable Path results;
    try {
      results = resultsFile(words);
      options = Options.parse(withoutResults(words));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    SampleLogging.configure();
    int status;
    try {
      List<StoryOutcome> outcomes = runAll(options, System.out);
      if (results != null) {
        writeResults(outcomes, String.join(" ", withoutResults(words)), results);
        System.out.println("  tables written to " + results);
      }
      status = outcomes.stream().anyMatch(o -> o.wrongAnswers() != 0) ? 1 : 0;
    } catch (Exception e) {
      e.printStackTrace();
      status = 3;
    }
    System.exit(status); // also ends threads a library may have left behind
  }

  /** Runs the stories of {@code options} in order, prints each report and the combined summary. */
  public static List<StoryOutcome> runAll(Options options, PrintStream out) throws Exception {
    List<StoryOutcome> outcomes = new ArrayList<>();
    long start = System.nanoTime();
    for (String story : options.stories()) {
      long storyStart = System.nanoTime();
      StoryOutcome outcome = run(story, options, out);
      out.printf(
          Locale.ROOT, "  (%s took %.1f s)%n", story, (System.nanoTime() - storyStart) / 1e9);
      outcomes.add(outcome);
    }
    out.println();
    out.println("== Summary " + "=".repeat(69));
    for (StoryOutcome outcome : outcomes) {
      outcome.summary().forEach(line -> out.println("  " + line));
    }
    long wrong = outcomes.stream().mapToLong(StoryOutcome::wrongAnswers).sum();
    out.printf(
        Locale.ROOT,
        "  %s in %.1f s; %,d wrong answers in total%n",
        wrong == 0 ? "all answers correct" : "WRONG ANSWERS SEEN",
        (System.nanoTime() - start) / 1e9,
        wrong);
    return outcomes;
  }

  /** The file named by {@code --results}, or null. */
  static @Nullable Path resultsFile(String... words) {
    int i = Arrays.asList(words).indexOf("--results");
    if (i < 0) {
      return null;
    }
    if (i + 1 >= words.length) {
      throw new IllegalArgumentException(
          "--results needs a value <file>; --help lists the options");
    }
    return Path.of(words[i + 1]);
  }

  /** {@code words} without {@code --results <file>}. */
  static String[] withoutResults(String... words) {
    List<String> rest = new ArrayList<>(Arrays.asList(words));
    int i = rest.indexOf("--results");
    if (i >= 0) {
      rest.subList(i, Math.min(i + 2, rest.size())).clear();
    }
    return rest.toArray(String[]::new);
  }

  /**
   * Writes the tables of {@code outcomes} to {@code file}: comment lines ({@code #}) with the time
   * of writing and the command line, a header line, then {@link Report#writeTsv} of each story.
   */
  public static void writeResults(List<StoryOutcome> outcomes, String commandLine, Path file)
      throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      out.write("# cuckoo-guard samples: every story's table as printed\n");
      out.write("# written\t" + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "\n");
      out.write("# arguments\t" + commandLine + "\n");
      out.write("story\tfigure\twith\twithout\n");
      for (StoryOutcome outcome : outcomes) {
        outcome.report().writeTsv(outcome.story(), out);
      }
    }
  }

  private static StoryOutcome run(String story, Options options, PrintStream out) throws Exception {
    switch (story) {
      case "cdn":
        return CdnEdgeStory.run(options, out);
      case "db":
        return DbRepositoryStory.run(options, out);
      case "jcache":
        return JCacheClusterStory.run(options, out);
      default:
        throw new IllegalArgumentException("unknown story '" + story + "'");
    }
  }
}
