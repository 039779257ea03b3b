package io.github.cuckooguard.samples;

import io.github.cuckooguard.samples.cdn.CdnEdgeStory;
import io.github.cuckooguard.samples.db.DbRepositoryStory;
import io.github.cuckooguard.samples.jcache.JCacheClusterStory;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the stories named on the command line (all three by default) and ends with a combined
 * summary. {@code --help} lists the options. Exit status: 0 if every answer was right, 1 if a
 * story saw a wrong answer, 2 for a bad command line, 3 if a story failed to run.
 */
public final class Main {

  private Main() {}

  /** Runs the stories the arguments name, all three without any; see {@link Options#usage()}. */
  public static void main(String[] args) {
    String[] words = Options.words(args);
    if (Options.wantsHelp(words)) {
      System.out.println(Options.usage());
      return;
    }
    Options options;
    try {
      options = Options.parse(words);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    SampleLogging.configure();
    int status;
    try {
      status = runAll(options, System.out).stream().anyMatch(o -> o.wrongAnswers() != 0) ? 1 : 0;
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
      out.printf(Locale.ROOT, "  (%s took %.1f s)%n", story, (System.nanoTime() - storyStart) / 1e9);
      outcomes.add(outcome);
    }
    out.println();
    out.println("== Summary " + "=".repeat(69));
    for (StoryOutcome outcome : outcomes) {
      outcome.summary().forEach(line -> out.println("  " + line));
    }
    long wrong = outcomes.stream().mapToLong(StoryOutcome::wrongAnswers).sum();
    out.printf(Locale.ROOT, "  %s in %.1f s; %,d wrong answers in total%n",
        wrong == 0 ? "all answers correct" : "WRONG ANSWERS SEEN", (System.nanoTime() - start) / 1e9, wrong);
    return outcomes;
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
