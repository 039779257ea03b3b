package io.github.cuckooguard.benchmarks.integration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/**
 * Runs JMH with the given arguments, then prints, for every benchmark that has a {@code guarded}
 * parameter, the score with the guard, without it, and their ratio (guarded / unguarded: below 1
 * means the guard made the operation faster). Both scores come from the same run.
 *
 * <pre>
 * java -Djava.io.tmpdir=/tmp/jmh-$USER -cp benchmarks/target/benchmarks.jar \
 *     io.github.cuckooguard.benchmarks.integration.GuardRatios [--table ratios.md] \
 *     -f 1 -wi 1 -i 2 -w 1s -r 1s 'HibernateFindBenchmark'
 * </pre>
 *
 * {@code --table FILE} also writes the table to {@code FILE}; every other argument is JMH's ({@code
 * -rf json -rff FILE} keeps the raw results as well).
 */
public final class GuardRatios {

  private static final String GUARDED = "guarded";

  /** One JMH score: {@code Class.method}, its parameters, score, error and unit. */
  record Score(
      String benchmark, Map<String, String> params, double score, double error, String unit) {}

  private GuardRatios() {}

  public static void main(String[] args)
      throws RunnerException, CommandLineOptionException, IOException {
    Path table = null;
    List<String> jmhArgs = new ArrayList<>(Arrays.asList(args));
    int at = jmhArgs.indexOf("--table");
    if (at >= 0) {
      if (at + 1 >= jmhArgs.size()) {
        throw new IllegalArgumentException("--table needs a file name");
      }
      table = Path.of(jmhArgs.remove(at + 1));
      jmhArgs.remove(at);
    }
    Collection<RunResult> results =
        new Runner(new CommandLineOptions(jmhArgs.toArray(String[]::new))).run();
    String text = table(scores(results));
    System.out.println();
    System.out.print(text);
    if (table != null) {
      Files.writeString(table, text, StandardCharsets.UTF_8);
    }
  }

  static List<Score> scores(Collection<RunResult> results) {
    List<Score> scores = new ArrayList<>();
    for (RunResult run : results) {
      String[] name = run.getParams().getBenchmark().split("\\.");
      Map<String, String> params = new TreeMap<>();
      for (String key : run.getParams().getParamsKeys()) {
        params.put(key, run.getParams().getParam(key));
      }
      Result<?> primary = run.getPrimaryResult();
      scores.add(
          new Score(
              name[name.length - 2] + "." + name[name.length - 1],
              params,
              primary.getScore(),
              primary.getScoreError(),
              primary.getScoreUnit()));
    }
    return scores;
  }

  /**
   * A Markdown table with one row per benchmark and setting that was measured both with {@code
   * guarded=true} and {@code guarded=false}; scores without such a partner are left out.
   */
  static String table(List<Score> scores) {
    Map<String, Score[]> pairs = new TreeMap<>();
    for (Score s : scores) {
      String guarded = s.params().get(GUARDED);
      if (guarded == null) {
        continue;
      }
      Map<String, String> rest = new TreeMap<>(s.params());
      rest.remove(GUARDED);
      Score[] pair = pairs.computeIfAbsent(s.benchmark() + " " + rest, k -> new Score[2]);
      pair[Boolean.parseBoolean(guarded) ? 0 : 1] = s;
    }
    StringBuilder out =
        new StringBuilder()
            .append("| benchmark | setting | guarded | unguarded | guarded / unguarded |\n")
            .append("|---|---|---:|---:|---:|\n");
    pairs.forEach(
        (key, pair) -> {
          if (pair[0] != null && pair[1] != null) {
            int space = key.indexOf(' ');
            out.append(
                String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %.3f |%n",
                    key.substring(0, space),
                    key.substring(space + 1),
                    format(pair[0]),
                    format(pair[1]),
                    pair[0].score() / pair[1].score()));
          }
        });
    return out.toString();
  }

  private static String format(Score s) {
    String error = Double.isNaN(s.error()) ? "" : String.format(Locale.ROOT, " ± %.3f", s.error());
    return String.format(Locale.ROOT, "%.3f%s %s", s.score(), error, s.unit());
  }
}
