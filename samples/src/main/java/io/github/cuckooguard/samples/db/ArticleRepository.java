package io.github.cuckooguard.samples.db;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.annotation.Transactional;

/**
 * The repository of the application: plain JPA. The annotations of the cuckoo-guard-spring put the
 * guard "articles" in front of it (with {@code @EnableCuckooGuard}; without it they do nothing): a
 * find of an id the guard knows is absent returns null before the transaction begins, so it costs
 * no connection and no SQL. Inserts enter the guard before they are written; deletes leave it after
 * their commit. Under the repository, Hibernate's own guard ({@link Article} is a
 * {@code @GuardedEntity}) answers {@code find} of absent ids without SQL for every other caller.
 */
@CuckooGuarded(name = "articles", expectedInsertions = ArticleRepository.EXPECTED_IDS, fpp = 0.01)
public class ArticleRepository {

  /**
   * Ids the guard is sized for at start: the default million rows and the inserts of a run. It
   * rebuilds itself bigger in the background if the table outgrows it.
   */
  static final long EXPECTED_IDS = 1_250_000;

  @PersistenceContext private EntityManager entityManager;

  /** The article, or null if there is none. */
  @GuardedFind
  @Transactional(readOnly = true)
  public @Nullable Article findById(long id) {
    return entityManager.find(Article.class, id);
  }

  /** Inserts a new article; throws if its id exists (the transaction then rolls back). */
  @GuardedAdd(key = "#article.id()")
  @Transactional
  public void insert(Article article) {
    entityManager.persist(article);
  }

  /** Deletes the article; false if there was none. */
  @GuardedRemove(key = "#id")
  @Transactional
  public boolean delete(long id) {
    Article article = entityManager.find(Article.class, id);
    if (article == null) {
      return false;
    }
    entityManager.remove(article);
    return true;
  }

  /** Every id: the warm-up and rebuild scan of the guard. */
  @GuardKeySource
  @Transactional(readOnly = true)
  public List<Long> allIds() {
    return entityManager.createQuery("select a.id from Article a", Long.class).getResultList();
  }
}
