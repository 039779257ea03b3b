package io.github.cuckooguard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.benchmarks.SpaceAccuracyReport.Row;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

class SpaceChartTest {

  @TempDir Path dir;

  @Test
  void reportWritesACsvThatTheChartDrawsAsWellFormedSvg() throws Exception {
    Path csv = dir.resolve("sa.csv");
    SpaceAccuracyReport.main(
        new String[] {
          "--n",
          "3000,4097",
          "--probes",
          "30000",
          "--impl",
          "OURS_12,GUAVA_12,FF_XOR_8",
          "--out",
          csv.toString()
        });
    List<Row> rows = SpaceChart.read(csv);
    assertThat(rows).hasSize(6);
    assertThat(rows).allSatisfy(r -> assertThat(r.falseNegatives()).isZero());

    SpaceChart.main(new String[] {csv.toString(), dir.toString()});
    for (int n : new int[] {3000, 4097}) {
      Document svg =
          DocumentBuilderFactory.newInstance()
              .newDocumentBuilder()
              .parse(
                  new ByteArrayInputStream(
                      Files.readAllBytes(dir.resolve("space-accuracy-n" + n + ".svg"))));
      assertThat(svg.getDocumentElement().getTagName()).isEqualTo("svg");
      NodeList circles = svg.getElementsByTagName("circle");
      // one per row of this n, plus one per library in the legend
      assertThat(circles.getLength()).isEqualTo(3 + Impl.Library.values().length);
      assertThat(Files.readString(dir.resolve("space-accuracy-n" + n + ".svg")))
          .contains(">OURS_12<", ">GUAVA_12<", ">FF_XOR_8<");
    }
  }

  @Test
  void rowsSurviveTheCsvRoundTrip() {
    Row row = new Row(1_048_577, Impl.OURS_8, 17_660_000, 10_000_000, 18_200, 0, "2 sub-filters");
    assertThat(Row.parse(row.csv())).isEqualTo(row);
  }

  @Test
  void markdownFlagsTheSpaceTargets() {
    List<Row> rows =
        List.of(
            new Row(1000, Impl.OURS_12, 12_632, 100_000, 182, 0, ""),
            new Row(1000, Impl.GUAVA_12, 13_092, 100_000, 187, 0, ""),
            new Row(1000, Impl.OURS_16, 16_843, 100_000, 11, 0, ""),
            new Row(1000, Impl.GUAVA_16, 18_862, 100_000, 10, 0, ""));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SpaceAccuracyReport.printMarkdown(rows, new PrintStream(out, true, StandardCharsets.UTF_8));
    String md = out.toString(StandardCharsets.UTF_8);
    // the space target holds at a measured fpp <= 0.1 %: 12-bit (0.182 %) does not qualify
    assertThat(md)
        .contains(
            "| 1000 | 12 | 12.632 | 0.18200 % | 13.092 | 0.18700 % | 0.965 MISSED | (fpp > 0.1 %) |");
    assertThat(md)
        .contains("| 1000 | 16 | 16.843 | 0.01100 % | 18.862 | 0.01000 % | 0.893 met | MISSED |");
  }

  @Test
  void matchedTableComparesAtOursMeasuredFpp() {
    Row ours = new Row(1000, Impl.OURS_13, 13_684, 100_000, 92, 0, "");
    Row guava = new Row(1000, Impl.GUAVA_12, 14_378, 100_000, 95, 0, "");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SpaceAccuracyReport.printMatched(
        List.<Row[]>of(new Row[] {ours, guava}),
        new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "| 1000 | OURS_13 | 13.684 | 0.09200 % | 14.378 | 0.09500 % | 0.952 MISSED | MISSED |");
  }
}
