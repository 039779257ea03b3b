package io.github.cuckooguard.benchmarks;

import io.github.cuckooguard.benchmarks.SpaceAccuracyReport.Row;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Draws the space/accuracy CSV of {@link SpaceAccuracyReport} as SVG charts, one per key count:
 * bits per item (linear) against measured false-positive rate (log scale), one point per
 * implementation, coloured by library, with the information-theoretic bound {@code log2(1/fpp)} and
 * the Bloom-filter optimum {@code 1.44·log2(1/fpp)} for reference. Plain string building, no
 * plotting library.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.cuckooguard.benchmarks.SpaceChart \
 *     benchmarks/results/space-accuracy.csv benchmarks/results
 * </pre>
 *
 * writes {@code space-accuracy-n<N>.svg} for each {@code n} in the CSV.
 */
public final class SpaceChart {

  private static final int WIDTH = 800;
  private static final int HEIGHT = 500;
  private static final int LEFT = 70;
  private static final int RIGHT = 190;
  private static final int TOP = 40;
  private static final int BOTTOM = 60;
  private static final Map<Impl.Library, String> COLORS =
      new EnumMap<>(
          Map.of(
              Impl.Library.OURS, "#d62728",
              Impl.Library.FASTFILTER, "#1f77b4",
              Impl.Library.GUAVA, "#2ca02c",
              Impl.Library.CF4J, "#9467bd"));
  private static final Map<Impl.Library, String> NAMES =
      new EnumMap<>(
          Map.of(
              Impl.Library.OURS, "Cuckoo Guard (ours)",
              Impl.Library.FASTFILTER, "FastFilter 1.0.2",
              Impl.Library.GUAVA, "Guava BloomFilter",
              Impl.Library.CF4J, "CuckooFilter4J 1.0.2"));

  private SpaceChart() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException(
          "usage: SpaceChart <space-accuracy.csv> <output directory>");
    }
    List<Row> rows = read(Path.of(args[0]));
    Path dir = Path.of(args[1]);
    Files.createDirectories(dir);
    for (int n : new TreeSet<>(rows.stream().map(Row::n).toList())) {
      Path file = dir.resolve("space-accuracy-n" + n + ".svg");
      Files.writeString(
          file, svg(rows.stream().filter(r -> r.n() == n).toList(), n), StandardCharsets.UTF_8);
      System.err.println("wrote " + file);
    }
  }

  static List<Row> read(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
    if (lines.isEmpty() || !lines.get(0).equals(SpaceAccuracyReport.CSV_HEADER)) {
      throw new IllegalArgumentException(
          csv + " does not start with the header " + SpaceAccuracyReport.CSV_HEADER);
    }
    return lines.stream().skip(1).filter(l -> !l.isBlank()).map(Row::parse).toList();
  }

  /** The chart of {@code rows} (all of one {@code n}). */
  static String svg(List<Row> rows, int n) {
    double minFpp = rows.stream().mapToDouble(Row::fpp).filter(p -> p > 0).min().orElse(1e-5);
    double maxFpp = rows.stream().mapToDouble(Row::fpp).max().orElse(1e-1);
    int lo = (int) Math.floor(Math.log10(minFpp));
    int hi = (int) Math.ceil(Math.log10(maxFpp));
    if (hi <= lo) {
      hi = lo + 1;
    }
    double maxBits = rows.stream().mapToDouble(Row::bitsPerItem).max().orElse(10);
    double yMax = Math.max(5, Math.ceil(maxBits / 5) * 5);
    Axes a = new Axes(lo, hi, yMax);

    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n",
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    s.append(
        String.format(
            Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"22\" font-size=\"14\">Bits per item against measured"
                + " false-positive rate, n = %,d keys</text>%n",
            LEFT,
            n));
    // grid and axes
    for (int e = lo; e <= hi; e++) {
      double x = a.x(Math.pow(10, e));
      s.append(line(x, TOP, x, HEIGHT - BOTTOM, "#ddd", ""));
      s.append(text(x, HEIGHT - BOTTOM + 16, "1e" + e, "middle", "#000"));
    }
    for (int b = 0; b <= yMax; b += 5) {
      double y = a.y(b);
      s.append(line(LEFT, y, WIDTH - RIGHT, y, "#ddd", ""));
      s.append(text(LEFT - 6, y + 4, Integer.toString(b), "end", "#000"));
    }
    s.append(line(LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM, "#000", ""));
    s.append(line(LEFT, TOP, LEFT, HEIGHT - BOTTOM, "#000", ""));
    s.append(
        text(
            (LEFT + WIDTH - RIGHT) / 2.0,
            HEIGHT - 20,
            "measured false-positive rate (log scale)",
            "middle",
            "#000"));
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">"
                + "bits per item (allocated / n)</text>%n",
            (TOP + HEIGHT - BOTTOM) / 2.0,
            (TOP + HEIGHT - BOTTOM) / 2.0));
    // reference curves
    s.append(curve(a, 1.0, "#888", "4 3"));
    s.append(curve(a, 1 / Math.log(2), "#888", "1 3"));
    // points, labels placed to avoid overlaps
    List<double[]> placed = new ArrayList<>();
    for (Row r : rows) {
      double x = a.x(Math.max(r.fpp(), Math.pow(10, lo)));
      double y = a.y(r.bitsPerItem());
      String color = COLORS.get(r.impl().library());
      s.append(
          String.format(
              Locale.ROOT,
              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"%s/>%n",
              x,
              y,
              color,
              r.falsePositives() == 0 ? " fill-opacity=\"0.3\"" : ""));
      double ly = labelY(placed, x + 6, y + 4);
      placed.add(new double[] {x + 6, ly});
      s.append(text(x + 6, ly, r.impl().name(), "start", color));
    }
    // legend
    double ly = TOP + 10;
    for (Impl.Library lib : Impl.Library.values()) {
      s.append(
          String.format(
              Locale.ROOT,
              "<circle cx=\"%d\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>%n",
              WIDTH - RIGHT + 14,
              ly - 4,
              COLORS.get(lib)));
      s.append(text(WIDTH - RIGHT + 22, ly, NAMES.get(lib), "start", "#000"));
      ly += 16;
    }
    s.append(line(WIDTH - RIGHT + 8, ly - 4, WIDTH - RIGHT + 20, ly - 4, "#888", "4 3"));
    s.append(text(WIDTH - RIGHT + 22, ly, "log2(1/fpp): bound", "start", "#000"));
    ly += 16;
    s.append(line(WIDTH - RIGHT + 8, ly - 4, WIDTH - RIGHT + 20, ly - 4, "#888", "1 3"));
    s.append(text(WIDTH - RIGHT + 22, ly, "1.44·log2(1/fpp): Bloom", "start", "#000"));
    s.append("</svg>\n");
    return s.toString();
  }

  /** A label baseline near {@code y} that keeps 11 px from every label already placed close by. */
  private static double labelY(List<double[]> placed, double x, double y) {
    for (int k = 0; ; k++) {
      double candidate = y + (k % 2 == 0 ? 1 : -1) * 11 * ((k + 1) / 2);
      boolean free = true;
      for (double[] p : placed) {
        if (Math.abs(p[0] - x) < 90 && Math.abs(p[1] - candidate) < 11) {
          free = false;
          break;
        }
      }
      if (free) {
        return candidate;
      }
    }
  }

  private static String curve(Axes a, double factor, String color, String dash) {
    StringBuilder path = new StringBuilder();
    int steps = 60;
    for (int i = 0; i <= steps; i++) {
      double e = a.lo + (a.hi - a.lo) * (double) i / steps;
      double bits = factor * -e * Math.log(10) / Math.log(2);
      if (bits > a.yMax) {
        continue;
      }
      path.append(path.length() == 0 ? "M" : " L")
          .append(String.format(Locale.ROOT, "%.1f %.1f", a.x(Math.pow(10, e)), a.y(bits)));
    }
    return String.format(
        Locale.ROOT,
        "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-dasharray=\"%s\"/>%n",
        path,
        color,
        dash);
  }

  private static String line(
      double x1, double y1, double x2, double y2, String color, String dash) {
    return String.format(
        Locale.ROOT,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>%n",
        x1,
        y1,
        x2,
        y2,
        color,
        dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"");
  }

  private static String text(double x, double y, String body, String anchor, String color) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\">%s</text>%n",
        x,
        y,
        anchor,
        color,
        body.replace("&", "&amp;").replace("<", "&lt;"));
  }

  /** Data to pixel mapping: log10 fpp in [lo, hi] on x, bits in [0, yMax] on y. */
  private record Axes(int lo, int hi, double yMax) {
    double x(double fpp) {
      return LEFT + (Math.log10(fpp) - lo) / (hi - lo) * (WIDTH - LEFT - RIGHT);
    }

    double y(double bits) {
      return HEIGHT - BOTTOM - bits / yMax * (HEIGHT - TOP - BOTTOM);
    }
  }
}
