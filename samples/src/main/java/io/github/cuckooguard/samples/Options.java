package io.github.cuckooguard.samples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The command line of the samples: which stories to run, and the sizes, shares, latencies and
 * durations they use. Every option has a default, so no argument at all runs the three stories on
 * embedded defaults; tests run the stories at a reduced size by parsing a shorter command line.
 *
 * @param stories the stories to run, in order ({@code cdn}, {@code db}, {@code jcache})
 * @param duration measured time of each timed phase (guarded, unguarded)
 * @param warmup untimed run before the timed phases, so that both are measured on warm code
 * @param threads request threads of each phase
 * @param missShare share of requests that ask for a key that does not exist, in [0, 1]
 * @param fpp target false-positive probability of every guard
 * @param seed seed of the request streams; both phases of a story replay the same streams
 * @param catalog CDN: URLs in the catalogue the Zipf stream draws from
 * @param zipf CDN: exponent of the Zipf popularity (0 = uniform)
 * @param memoryTier CDN: items in the edge's small in-memory tier
 * @param peerTier CDN: items in the large tier (the storage node)
 * @param ttl CDN: time to live of cached items
 * @param originLatency CDN: time the origin takes to answer
 * @param rows DB: rows loaded into the table before the run
 * @param writeShare DB: share of requests that insert or delete a row (half each)
 * @param entries JCache: entries written into the cluster's cache before the run
 */
public record Options(
    List<String> stories,
    Duration duration,
    Duration warmup,
    int threads,
    double missShare,
    double fpp,
    long seed,
    int catalog,
    double zipf,
    int memoryTier,
    int peerTier,
    Duration ttl,
    Duration originLatency,
    int rows,
    double writeShare,
    int entries) {

  /** The stories, in the order {@code all} runs them. */
  public static final List<String> STORIES = List.of("cdn", "db", "jcache");

  /** Each option: its flag, default, accepted range and help line. The one place defaults live. */
  private enum Option {
    DURATION(
        "--duration",
        6,
        0.1,
        3600,
        "<s>",
        "measured seconds of each variant (with and without guard)"),
    WARMUP("--warmup", 10, 0, 600, "<s>", "untimed seconds before the measured run"),
    THREADS("--threads", 2, 1, 64, "<n>", "request threads"),
    MISS_SHARE(
        "--miss-share", 0.25, 0, 1, "<0..1>", "share of requests for keys that do not exist"),
    FPP(
        "--fpp",
        0.01,
        1e-6,
        0.25,
        "<p>",
        "target false-positive probability (the Spring guard's: 0.01, in its annotation)"),
    SEED("--seed", 42, 0, Long.MAX_VALUE, "<n>", "seed of the request streams"),
    CATALOG("--catalog", 20_000, 100, 20_000_000, "<n>", "cdn: URLs in the catalogue"),
    ZIPF("--zipf", 0.9, 0, 3, "<s>", "cdn: Zipf exponent of URL popularity"),
    MEMORY_TIER("--memory-tier", 500, 1, 10_000_000, "<n>", "cdn: items in the edge's memory tier"),
    PEER_TIER("--peer-tier", 10_000, 10, 20_000_000, "<n>", "cdn: items in the storage node"),
    TTL("--ttl", 5, 0.01, 86_400, "<s>", "cdn: time to live of cached items"),
    ORIGIN_MS("--origin-ms", 2, 0, 10_000, "<ms>", "cdn: origin latency"),
    ROWS("--rows", 1_000_000, 100, 20_000_000, "<n>", "db: rows loaded before the run"),
    WRITE_SHARE(
        "--write-share", 0.02, 0, 0.5, "<0..0.5>", "db: share of requests that insert or delete"),
    ENTRIES("--entries", 100_000, 100, 5_000_000, "<n>", "jcache: entries in the cluster's cache");

    final String flag;
    final double defaultValue;
    final double min;
    final double max;
    final String value;
    final String help;

    Option(String flag, double defaultValue, double min, double max, String value, String help) {
      this.flag = flag;
      this.defaultValue = defaultValue;
      this.min = min;
      this.max = max;
      this.value = value;
      this.help = help;
    }

    static Option of(String flag) {
      for (Option option : values()) {
        if (option.flag.equals(flag)) {
          return option;
        }
      }
      throw new IllegalArgumentException("unknown option '" + flag + "'; --help lists the options");
    }

    double parse(String text) {
      double parsed;
      try {
        parsed = Double.parseDouble(text.replace("_", ""));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            flag + " (" + text + ") must be a number in " + range(), e);
      }
      if (!(parsed >= min && parsed <= max)) {
        throw new IllegalArgumentException(flag + " (" + text + ") must be in " + range());
      }
      return parsed;
    }

    private String range() {
      return "[" + format(min) + ", " + format(max) + "]";
    }

    static String format(double v) {
      return v == Math.rint(v) && Math.abs(v) < 1e15
          ? String.format(Locale.ROOT, "%,d", (long) v).replace(',', '_')
          : String.valueOf(v);
    }
  }

  /** The text of {@code --help}. */
  public static String usage() {
    StringBuilder text =
        new StringBuilder(
            String.join(
                System.lineSeparator(),
                "Usage: samples [all|cdn|db|jcache]... [options]",
                "",
                "Runs each story with and without the guard, measured in the same run, and prints a report.",
                "  cdn     CDN edge: memory tier, storage node over loopback HTTP, slow origin (cuckoo-guard-caffeine)",
                "  db      Spring + JPA repository on H2, ids that do not exist (hibernate- and cuckoo-guard-spring)",
                "  jcache  JCache on two Hazelcast members; negative gets; a member leaves (cuckoo-guard-jcache)",
                "",
                "Options [default]:",
                ""));
    for (Option option : Option.values()) {
      text.append(
          String.format(
              Locale.ROOT,
              "  %-24s %s [%s]%n",
              option.flag + " " + option.value,
              option.help,
              Option.format(option.defaultValue)));
    }
    return text.append("  --help                   this text").toString();
  }

  /**
   * The words of a command line, also when they arrive as one argument with spaces (as the Maven
   * profile passes {@code -Dargs="db --rows 1000"} when run by other means than its own parser).
   */
  public static String[] words(String... args) {
    List<String> words = new ArrayList<>();
    for (String arg : args) {
      for (String word : arg.trim().split("\\s+")) {
        if (!word.isEmpty()) {
          words.add(word);
        }
      }
    }
    return words.toArray(String[]::new);
  }

  /** Whether the command line asks for the usage text. */
  public static boolean wantsHelp(String... args) {
    return List.of(args).stream()
        .map(String::trim)
        .anyMatch(a -> a.equals("--help") || a.equals("-h"));
  }

  /**
   * Parses the command line: story names ({@code all} by default) and {@code --option value} pairs.
   *
   * @throws IllegalArgumentException for an unknown story or option, a missing value, or a value
   *     outside its range; the message names the option, the value and the accepted range
   */
  public static Options parse(String... args) {
    Map<Option, Double> values = new EnumMap<>(Option.class);
    for (Option option : Option.values()) {
      values.put(option, option.defaultValue);
    }
    Set<String> stories = new LinkedHashSet<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i].trim();
      if (arg.isEmpty()) {
        continue; // the empty -Dargs= of the Maven profile
      }
      if (arg.startsWith("--")) {
        Option option = Option.of(arg);
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(
              arg + " needs a value " + option.value + "; --help lists the options");
        }
        values.put(option, option.parse(args[++i].trim()));
      } else if (arg.equalsIgnoreCase("all")) {
        stories.addAll(STORIES);
      } else if (STORIES.contains(arg.toLowerCase(Locale.ROOT))) {
        stories.add(arg.toLowerCase(Locale.ROOT));
      } else {
        throw new IllegalArgumentException(
            "unknown story '" + arg + "': use all, cdn, db or jcache");
      }
    }
    return new Options(
        stories.isEmpty() ? STORIES : List.copyOf(stories),
        seconds(values.get(Option.DURATION)),
        seconds(values.get(Option.WARMUP)),
        values.get(Option.THREADS).intValue(),
        values.get(Option.MISS_SHARE),
        values.get(Option.FPP),
        values.get(Option.SEED).longValue(),
        values.get(Option.CATALOG).intValue(),
        values.get(Option.ZIPF),
        values.get(Option.MEMORY_TIER).intValue(),
        values.get(Option.PEER_TIER).intValue(),
        seconds(values.get(Option.TTL)),
        Duration.ofNanos(Math.round(values.get(Option.ORIGIN_MS) * 1e6)),
        values.get(Option.ROWS).intValue(),
        values.get(Option.WRITE_SHARE),
        values.get(Option.ENTRIES).intValue());
  }

  private static Duration seconds(double seconds) {
    return Duration.ofMillis(Math.round(seconds * 1000));
  }
}
