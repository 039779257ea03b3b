package io.github.cuckooguard.samples.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The checks of the DB story catch a wrong answer and a book that drifted from the table. */
class CatalogTrafficTest {

  /** A repository over the book itself, which can be told to lie about one id. */
  static final class BookRepository extends ArticleRepository {
    final IdBook book;
    final long lieAbout;

    BookRepository(IdBook book, long lieAbout) {
      this.book = book;
      this.lieAbout = lieAbout;
    }

    @Override
    public @Nullable Article findById(long id) {
      return id != lieAbout && book.state(id) == IdBook.PRESENT ? new Article(id) : null;
    }

    @Override
    public void insert(Article article) {
      // the book is the store: the traffic settles it after this returns
    }

    @Override
    public boolean delete(long id) {
      return book.state(id) == IdBook.CHANGING; // claimed by the traffic: it existed
    }
  }

  @Test
  void aFindThatAnswersAbsentForAnExistingIdIsAWrongAnswer() {
    IdBook book = new IdBook(10);
    CatalogTraffic traffic = new CatalogTraffic(book, 0, 0);
    SplittableRandom random = new SplittableRandom(1);
    BookRepository liar = new BookRepository(book, 3);

    for (int i = 0; i < 200; i++) {
      traffic.serve(liar, liar, random);
    }

    assertThat(traffic.finds.sum()).isEqualTo(200);
    assertThat(traffic.checked.sum()).isEqualTo(200);
    // ids 1..10 are asked uniformly: id 3 about 20 times; P(never) = 0.9^200 < 1e-9
    assertThat(traffic.wrongAnswers.sum()).isPositive();
  }

  @Test
  void anHonestRepositoryGivesNoWrongAnswersAcrossInsertsAndDeletes() {
    IdBook book = new IdBook(100);
    CatalogTraffic traffic = new CatalogTraffic(book, 0.3, 0.2);
    SplittableRandom random = new SplittableRandom(2);
    BookRepository honest = new BookRepository(book, -1);

    for (int i = 0; i < 1_000; i++) {
      traffic.serve(honest, honest, random);
    }

    assertThat(traffic.inserts.sum()).isPositive();
    assertThat(traffic.deletes.sum()).isPositive();
    assertThat(traffic.findsOfAbsentIds.sum()).isPositive();
    assertThat(traffic.wrongAnswers.sum()).isZero();
  }

  @Test
  void theBookDisagreesWithATableThatLostOrGainedARow() {
    IdBook book = new IdBook(5);
    BitSet table = new BitSet();
    table.set(1, 6);
    assertThat(book.mismatches(table)).isZero();

    table.clear(4);
    assertThat(book.mismatches(table)).isEqualTo(1);
    table.set(4);
    table.set(1_000_000);
    assertThat(book.mismatches(table)).isEqualTo(1);
  }
}
