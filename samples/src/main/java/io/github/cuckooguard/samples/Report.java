package io.github.cuckooguard.samples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The printed result of a story: a table of figures measured with and without the guard, then
 * notes. Built by the story, printed once; not thread-safe.
 */
public final class Report {

  private final String title;
  private final String[] columns;
  private final List<String[]> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  /**
   * A report whose table has a figure column and one column per name in {@code columns}, e.g. "with
   * guard", "without guard".
   */
  public Report(String title, String... columns) {
    this.title = title;
    this.columns = columns.clone();
  }

  /** Adds a row: the figure's name and one value per column. */
  public Report row(String figure, Object... values) {
    if (values.length != columns.length) {
      throw new IllegalArgumentException(
          "row '"
              + figure
              + "' has "
              + values.length
              + " values for "
              + columns.length
              + " columns");
    }
    String[] row = new String[values.length + 1];
    row[0] = figure;
    for (int i = 0; i < values.length; i++) {
      row[i + 1] = format(values[i]);
    }
    rows.add(row);
    return this;
  }

  /** Adds a line below the table. */
  public Report note(String format, Object... args) {
    notes.add(String.format(Locale.ROOT, format, args));
    return this;
  }

  /** The title printed above the table. */
  public String title() {
    return title;
  }

  /**
   * Writes the table as tab-separated lines, one per figure: {@code story}, the figure's name, then
   * one value per column exactly as printed (thousands separators and units included). For tools
   * that read a run's figures back, e.g. the chart of {@code samples/chart}.
   */
  public void writeTsv(String story, Appendable out) throws java.io.IOException {
    for (String[] row : rows) {
      out.append(story).append('\t').append(row[0].strip());
      for (int c = 1; c < row.length; c++) {
        out.append('\t').append(row[c].replace('\t', ' '));
      }
      out.append('\n');
    }
  }

  /** Prints the title, the table and the notes. */
  public void print(PrintStream out) {
    int figureWidth = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
    int[] widths = new int[columns.length];
    for (int c = 0; c < columns.length; c++) {
      int column = c;
      widths[c] =
          Math.max(
              columns[c].length(),
              rows.stream().mapToInt(r -> r[column + 1].length()).max().orElse(0));
    }
    out.println();
    out.println("== " + title + " " + "=".repeat(Math.max(3, 76 - title.length())));
    StringBuilder header = new StringBuilder(" ".repeat(figureWidth + 2));
    for (int c = 0; c < columns.length; c++) {
      header.append("  ").append(pad(columns[c], widths[c]));
    }
    out.println(header.toString().stripTrailing());
    for (String[] row : rows) {
      StringBuilder line =
          new StringBuilder("  ").append(row[0]).append(" ".repeat(figureWidth - row[0].length()));
      for (int c = 0; c < columns.length; c++) {
        line.append("  ").append(pad(row[c + 1], widths[c]));
      }
      out.println(line.toString().stripTrailing());
    }
    for (String note : notes) {
      out.println("  " + note);
    }
  }

  private static String pad(String value, int width) {
    return " ".repeat(width - value.length()) + value;
  }

  /** Integers with thousands separators, other numbers with up to three decimals. */
  public static String format(Object value) {
    if (value instanceof Long || value instanceof Integer) {
      return String.format(Locale.ROOT, "%,d", ((Number) value).longValue());
    }
    if (value instanceof Double d) {
      return String.format(Locale.ROOT, Math.abs(d) >= 100 ? "%,.0f" : "%.3f", d);
    }
    return String.valueOf(value);
  }

  /** A share as a percentage with two decimals, e.g. {@code 0.97 %}. */
  public static String percent(double share) {
    return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.2f %%", 100 * share);
  }

  /** Seconds with at most one decimal, e.g. {@code 5 s}, {@code 0.5 s}. */
  public static String seconds(java.time.Duration duration) {
    double seconds = duration.toMillis() / 1e3;
    return (seconds == Math.rint(seconds)
            ? String.format(Locale.ROOT, "%.0f", seconds)
            : String.format(Locale.ROOT, "%.1f", seconds))
        + " s";
  }

  /** A size in KiB or MiB. */
  public static String bytes(long bytes) {
    return bytes >= 10L << 20
        ? String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0)
        : String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
  }
}
