package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The examples of the root README's "Use" section and of {@link CuckooFilter}'s class comment, kept
 * here as code the build compiles and runs. Each example sits between {@code // BEGIN name} and
 * {@code // END name}; {@link #theDocumentsShowExactlyTheCompiledExamples} checks that the
 * documents show the same lines, so neither can change without the other (a README line once did
 * not compile: {@code CuckooFilter<CharSequence>} cannot be converted to {@code
 * CuckooFilter<String>}).
 */
class DocumentedExamplesTest {

  private static final Path SELF =
      Path.of("src/test/java/io/github/cuckooguard/DocumentedExamplesTest.java");
  private static final Path README = Path.of("../README.md");
  private static final Path CUCKOO_FILTER =
      Path.of("src/main/java/io/github/cuckooguard/CuckooFilter.java");

  @Test
  void readmeUse() {
    // spotless:off
    // BEGIN readme-use
    CuckooFilter<String> filter = CuckooFilter.newBuilder(Funnels.stringFunnel())
        .expectedInsertions(1_000_000)
        .fpp(0.001)                       // picks 13-bit fingerprints
        .build();
    filter.add("alice");
    filter.mightContain("alice");         // true
    filter.mightContain("mallory");       // false (or, with p ≈ 0.001, true)
    filter.remove("alice");               // only remove what you added
    LongCuckooFilter ids = LongCuckooFilter.newBuilder().expectedInsertions(10_000_000).build(); // no boxing
    // END readme-use
    // spotless:on
    assertThat(filter.info().fingerprintBits()).as("the comment's claim").isEqualTo(13);
    assertThat(filter.approximateElementCount()).isZero();
    assertThat(ids.info().bucketSize()).isEqualTo(4);
    filter.add("alice");
    assertThat(filter.mightContain("alice")).as("the comment's claim").isTrue();
  }

  /** The stand-in for a user's table in the README's write-protocol example. */
  private static final class Repository {
    final java.util.Set<Long> rows = java.util.concurrent.ConcurrentHashMap.newKeySet();

    void insert(long id) {
      rows.add(id);
    }

    void delete(long id) {
      rows.remove(id);
    }
  }

  @Test
  void readmeWriteProtocol() {
    Repository repository = new Repository();
    java.util.Set<Long> ids = repository.rows;
    long id = 42;
    // spotless:off
    // BEGIN readme-write-protocol
    CuckooGuard<Long> guard = CuckooGuard.newBuilder(Funnels.longFunnel())
        .spec(GuardSpec.newBuilder().expectedInsertions(1_000_000).fpp(0.001).build())
        .keySource(ids::forEach)                  // a plain scan is a correct source
        .build();
    try (PendingEnter<Long> enter = guard.beginEnter(id)) {   // before the row can be seen
      repository.insert(id);                      // throws: close() aborts the enter
      enter.visible();
    }
    PendingLeave<Long> leave = guard.beginLeave(id);         // before the delete is issued
    repository.delete(id);
    leave.gone();                                 // after it is gone (or leave.cancel())
    // END readme-write-protocol
    // spotless:on
    assertThat(guard.stats().size()).isZero();
    assertThat(guard.inFlight()).isZero();
  }

  @Test
  void cuckooFilterClassComment() {
    // spotless:off
    // BEGIN cuckoo-filter-class
    CuckooFilter<String> filter = CuckooFilter.newBuilder(Funnels.stringFunnel())
        .expectedInsertions(1_000_000).fpp(0.001).build();
    filter.add("alice");
    filter.mightContain("alice");   // true
    filter.remove("alice");
    // END cuckoo-filter-class
    // spotless:on
    assertThat(filter.approximateElementCount()).isZero();
  }

  @Test
  void theDocumentsShowExactlyTheCompiledExamples() throws IOException {
    assertThat(readmeBlockAfter("## Use")).isEqualTo(example("readme-use"));
    assertThat(readmeBlockAfter("## Plug it into your cache or database"))
        .isEqualTo(example("readme-write-protocol"));
    assertThat(javadocBlock(CUCKOO_FILTER)).isEqualTo(example("cuckoo-filter-class"));
  }

  /** The lines between this file's markers, without their common indentation. */
  private static List<String> example(String name) throws IOException {
    List<String> lines = Files.readAllLines(SELF);
    int from = lines.indexOf("    // BEGIN " + name);
    int to = lines.indexOf("    // END " + name);
    assertThat(from).as("marker BEGIN %s", name).isPositive();
    List<String> out = new ArrayList<>();
    for (String line : lines.subList(from + 1, to)) {
      out.add(line.startsWith("    ") ? line.substring(4) : line);
    }
    return out;
  }

  /** The first ```java block after {@code heading} in the README. */
  private static List<String> readmeBlockAfter(String heading) throws IOException {
    List<String> lines = Files.readAllLines(README);
    int at = lines.indexOf(heading);
    assertThat(at).as("README heading %s", heading).isPositive();
    int from = lines.subList(at, lines.size()).indexOf("```java") + at;
    int to = lines.subList(from + 1, lines.size()).indexOf("```") + from + 1;
    return new ArrayList<>(lines.subList(from + 1, to));
  }

  /** The first {@code <pre>{@code ... }</pre>} block of a source file, without the " * " prefix. */
  private static List<String> javadocBlock(Path source) throws IOException {
    List<String> lines = Files.readAllLines(source);
    int from = lines.indexOf(" * <pre>{@code");
    int to = lines.indexOf(" * }</pre>");
    assertThat(from).as("a code block in %s", source).isPositive();
    List<String> out = new ArrayList<>();
    for (String line : lines.subList(from + 1, to)) {
      out.add(
          line.startsWith(" * ") ? line.substring(3) : line.substring(Math.min(2, line.length())));
    }
    return out;
  }
}
