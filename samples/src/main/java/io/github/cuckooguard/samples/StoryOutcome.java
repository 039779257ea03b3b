package io.github.cuckooguard.samples;

import java.util.List;

/** What a story measured: its report, the invariants its test asserts, and its summary lines. */
public interface StoryOutcome {

  /** The story's name on the command line. */
  String story();

  /** The full report, printed when the story ends. */
  Report report();

  /**
   * Answers that differed from the source of truth, including "absent" answers for keys that were
   * present (false negatives). Must be zero.
   */
  long wrongAnswers();

  /**
   * Expensive lookups (probes, SQL statements, provider round trips) the guard let the story skip.
   */
  long lookupsAvoided();

  /** One or two lines for the combined summary. */
  List<String> summary();
}
