package io.github.cuckooguard.samples.db;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The requests the catalogue receives: mostly finds of ids that exist, a share of finds of ids that
 * do not (scrapers, links to deleted articles), and a share of inserts and deletes. Every find's
 * answer is checked against the {@link IdBook}; the counters are the phase's figures. Thread-safe.
 */
final class CatalogTraffic {

  private final IdBook book;
  private final double missShare;
  private final double writeShare;

  final LongAdder finds = new LongAdder();
  final LongAdder findsOfAbsentIds = new LongAdder();

  /** Time spent in finds of ids that did not exist, in nanoseconds. */
  final LongAdder absentFindNanos = new LongAdder();

  /** Time spent in finds of ids that existed, in nanoseconds. */
  final LongAdder presentFindNanos = new LongAdder();

  final LongAdder inserts = new LongAdder();
  final LongAdder deletes = new LongAdder();

  /** Writes that found nothing to do (no fresh id left, or no present id in a few tries). */
  final LongAdder skipped = new LongAdder();

  final LongAdder checked = new LongAdder();
  final LongAdder wrongAnswers = new LongAdder();

  CatalogTraffic(IdBook book, double missShare, double writeShare) {
    this.book = book;
    this.missShare = missShare;
    this.writeShare = writeShare;
  }

  /**
   * Serves one request: a find through {@code reader}, or an insert or delete through {@code
   * writer}.
   */
  void serve(ArticleRepository reader, ArticleRepository writer, SplittableRandom random) {
    double dice = random.nextDouble();
    if (dice < writeShare / 2) {
      insert(writer);
    } else if (dice < writeShare) {
      delete(writer, random);
    } else {
      find(reader, random.nextDouble() < missShare ? book.missingId(random) : book.knownId(random));
    }
  }

  private void insert(ArticleRepository repository) {
    long id = book.claimFresh();
    if (id != 0) {
      repository.insert(new Article(id));
      book.settle(id, true);
      inserts.increment();
    } else {
      skipped.increment();
    }
  }

  private void delete(ArticleRepository repository, SplittableRandom random) {
    long id = book.claimPresent(random);
    if (id != 0) {
      if (!repository.delete(id)) {
        throw new IllegalStateException("article " + id + " was present, but delete found nothing");
      }
      book.settle(id, false);
      deletes.increment();
    } else {
      skipped.increment();
    }
  }

  private void find(ArticleRepository repository, long id) {
    int before = book.state(id);
    long start = System.nanoTime();
    Article found = repository.findById(id);
    long took = System.nanoTime() - start;
    int after = book.state(id);
    finds.increment();
    if (before == IdBook.ABSENT) {
      findsOfAbsentIds.increment();
      absentFindNanos.add(took);
    } else if (before == IdBook.PRESENT) {
      presentFindNanos.add(took);
    }
    if (before == after && before != IdBook.CHANGING) {
      checked.increment();
      boolean right =
          before == IdBook.PRESENT
              ? found != null && found.id() == id && found.title().equals(Article.titleOf(id))
              : found == null;
      if (!right) {
        wrongAnswers.increment();
      }
    }
  }
}
