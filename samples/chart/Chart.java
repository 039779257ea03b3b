import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws what the guard saves, per integration, from a samples run's own figures: one SVG with a
 * pair of bars (with guard, without guard) for the expensive lookups per 1,000 requests and for
 * the time of a lookup, for each story in the run.
 *
 * <pre>
 *   java samples/chart/Chart.java RESULTS.tsv OUT.svg
 * </pre>
 *
 * RESULTS.tsv is what {@code Main --results} writes (one line per figure: story, figure, value with
 * the guard, value without, as printed), plus the comment lines {@code samples/chart/chart.sh}
 * appends ({@code # commit}, {@code # load}); the caption states the run's date, commit and load.
 * Plain Java 17, no dependencies: run as a single-file program.
 */
public final class Chart {

  /** What the chart shows of one story, by the figure names its report prints. */
  record Story(String id, String name, String adapter, String lookups, String requests, String lookupsLabel,
      String time, String timeLabel) {}

  static final List<Story> STORIES = List.of(
      new Story("cdn", "CDN edge", "cuckoo-guard-caffeine", "storage probes (HTTP round trips)", "requests",
          "HTTP probes of the storage node per 1,000 requests", "latency mean", "request latency, mean"),
      new Story("db", "DB-backed repository", "cuckoo-guard-spring + cuckoo-guard-hibernate", "SQL statements", "requests",
          "SQL statements per 1,000 requests", "find of an absent id, mean", "find of an absent id, mean"),
      new Story("jcache", "JCache cluster", "cuckoo-guard-jcache on Hazelcast", "round trips to Hazelcast",
          "gets on member B", "Hazelcast round trips per 1,000 gets", "negative get, mean",
          "get of an absent key, mean"));

  static final int WIDTH = 900;
  static final int LABEL_X = 24;
  static final int BAR_X = 36;
  static final int BAR_MAX = 700;
  static final int BAR_H = 16;
  static final String WITH = "#2e7d32";
  static final String WITHOUT = "#9e9e9e";

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: java samples/chart/Chart.java RESULTS.tsv OUT.svg");
      System.exit(2);
    }
    Path in = Path.of(args[0]);
    Path out = Path.of(args[1]);
    Map<String, String> meta = new LinkedHashMap<>();
    Map<String, String[]> figures = new LinkedHashMap<>();
    for (String line : Files.readAllLines(in, StandardCharsets.UTF_8)) {
      String[] cells = line.split("\t", -1);
      if (line.startsWith("# ")) {
        if (cells.length >= 2) {
          meta.put(cells[0].substring(2).strip(), cells[1].strip());
        }
      } else if (!line.isBlank() && !line.startsWith("story\t")) {
        if (cells.length != 4) {
          throw new IllegalArgumentException(in + ": expected story, figure, with, without: " + line);
        }
        figures.put(cells[0] + "\t" + cells[1], new String[] {cells[2], cells[3]});
      }
    }
    String svg = draw(figures, meta);
    Files.writeString(out, svg, StandardCharsets.UTF_8);
    System.out.println("wrote " + out);
  }

  static String draw(Map<String, String[]> figures, Map<String, String> meta) {
    List<Story> shown = new ArrayList<>();
    for (Story s : STORIES) {
      if (figures.containsKey(s.id + "\t" + s.lookups)) {
        shown.add(s);
      }
    }
    if (shown.isEmpty()) {
      throw new IllegalArgumentException("the results hold none of the stories " + STORIES.stream().map(Story::id)
          .toList());
    }
    int groupH = 170;
    int top = 86;
    int height = top + groupH * shown.size() + 70;
    StringBuilder svg = new StringBuilder();
    svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
        + " viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">%n",
        WIDTH, height, WIDTH, height));
    svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH, height));
    text(svg, LABEL_X, 30, 18, "bold", "#000", "What the guard saves: the samples, with and without it, in one run");
    rect(svg, LABEL_X, 46, 14, 14, WITH);
    text(svg, LABEL_X + 20, 58, 13, "normal", "#000", "with the guard");
    rect(svg, LABEL_X + 140, 46, 14, 14, WITHOUT);
    text(svg, LABEL_X + 160, 58, 13, "normal", "#000", "without (same workload, alternating slices)");
    int y = top;
    for (Story s : shown) {
      text(svg, LABEL_X, y + 14, 15, "bold", "#000", s.name);
      text(svg, LABEL_X + 200, y + 14, 12, "normal", "#555", s.adapter);
      double[] lookups = {perThousand(figures, s, 0), perThousand(figures, s, 1)};
      pair(svg, y + 24, s.lookupsLabel, lookups, new String[] {format(lookups[0]), format(lookups[1])});
      String[] time = figures.get(s.id + "\t" + s.time);
      if (time != null) {
        double[] micros = {micros(time[0]), micros(time[1])};
        pair(svg, y + 90, s.timeLabel, micros, time);
      }
      y += groupH;
    }
    String caption = "Samples run " + meta.getOrDefault("written", "(date not recorded)")
        + ", commit " + meta.getOrDefault("commit", "(not recorded)")
        + ", " + meta.getOrDefault("machine", "machine not recorded")
        + ", load average " + meta.getOrDefault("load", "not recorded") + ".";
    text(svg, LABEL_X, height - 42, 12, "normal", "#333", caption);
    text(svg, LABEL_X, height - 24, 12, "normal", "#333", "Arguments: "
        + (meta.getOrDefault("arguments", "").isBlank() ? "(defaults)" : meta.get("arguments"))
        + ". Regenerate: samples/chart/chart.sh (runs the samples, then java samples/chart/Chart.java).");
    svg.append("</svg>\n");
    return svg.toString();
  }

  /** A label, and below it two bars scaled to the larger value, labelled with the values as given. */
  static void pair(StringBuilder svg, int y, String label, double[] values, String[] labels) {
    text(svg, LABEL_X + 12, y + 14, 13, "normal", "#000", label);
    double max = Math.max(values[0], values[1]);
    String[] colors = {WITH, WITHOUT};
    for (int i = 0; i < 2; i++) {
      int by = y + 20 + i * (BAR_H + 4);
      double w = max > 0 ? values[i] / max * BAR_MAX : 0;
      rect(svg, BAR_X, by, Math.max(1, w), BAR_H, colors[i]);
      text(svg, (int) (BAR_X + Math.max(1, w) + 6), by + 13, 12, "normal", "#000", labels[i]);
    }
  }

  static double perThousand(Map<String, String[]> figures, Story s, int column) {
    String[] lookups = figures.get(s.id + "\t" + s.lookups);
    String[] requests = figures.get(s.id + "\t" + s.requests);
    if (requests == null) {
      throw new IllegalArgumentException("story " + s.id + " has no figure '" + s.requests + "'");
    }
    double r = number(requests[column]);
    return r == 0 ? 0 : 1000 * number(lookups[column]) / r;
  }

  /** A count as printed ({@code 4,239}). */
  static double number(String printed) {
    return Double.parseDouble(printed.replace(",", "").strip());
  }

  /** A time as printed ({@code 46.0 µs}, {@code 2.016 ms}, {@code 1.2 s}) in microseconds. */
  static double micros(String printed) {
    String p = printed.strip();
    if (p.endsWith("µs") || p.endsWith("us")) {
      return number(p.substring(0, p.length() - 2));
    }
    if (p.endsWith("ms")) {
      return 1e3 * number(p.substring(0, p.length() - 2));
    }
    if (p.endsWith("ns")) {
      return 1e-3 * number(p.substring(0, p.length() - 2));
    }
    if (p.endsWith("s")) {
      return 1e6 * number(p.substring(0, p.length() - 1));
    }
    throw new IllegalArgumentException("not a time: " + printed);
  }

  static String format(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
  }

  static void rect(StringBuilder svg, double x, double y, double w, double h, String fill) {
    svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
        x, y, w, h, fill));
  }

  static void text(StringBuilder svg, int x, int y, int size, String weight, String fill, String s) {
    svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" font-weight=\"%s\" fill=\"%s\">%s"
        + "</text>%n", x, y, size, weight, fill, escape(s)));
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
