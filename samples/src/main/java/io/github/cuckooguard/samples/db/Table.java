package io.github.cuckooguard.samples.db;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.BitSet;
import javax.sql.DataSource;

/**
 * The article table over plain JDBC, behind the application's back: creating and loading it before
 * the application starts, and reading which ids it holds, to check the application's answers.
 */
final class Table {

  private static final int CHUNK = 50_000;
  private static final long PROGRESS_EVERY_NANOS = 2_000_000_000L;

  private Table() {}

  /**
   * Creates the table and inserts the articles {@code 1..rows} in chunks, printing progress. Each
   * chunk is one {@code INSERT … SELECT} over H2's {@code system_range}, which loads a million rows
   * several times faster than JDBC batches of single-row inserts.
   */
  static void createAndLoad(DataSource dataSource, int rows, PrintStream out) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("create table article (id bigint primary key, title varchar(40) not null)");
      long start = System.nanoTime();
      long lastPrint = start;
      try (PreparedStatement insert =
          connection.prepareStatement(
              "insert into article (id, title)"
                  + " select x, concat('"
                  + Article.titleOf(0).replace("0", "")
                  + "', x) from system_range(?, ?)")) {
        for (int from = 1; from <= rows; from += CHUNK) {
          int to = Math.min(rows, from + CHUNK - 1);
          insert.setInt(1, from);
          insert.setInt(2, to);
          insert.executeUpdate();
          long now = System.nanoTime();
          if (now - lastPrint >= PROGRESS_EVERY_NANOS && to < rows) {
            out.printf(
                "    loading: %,d of %,d rows after %.0f s%n", to, rows, (now - start) / 1e9);
            lastPrint = now;
          }
        }
      }
    }
  }

  /** The ids in the table now. */
  static BitSet ids(DataSource dataSource) throws SQLException {
    BitSet ids = new BitSet();
    try (Connection connection = dataSource.getConnection();
        Statement select = connection.createStatement();
        ResultSet rs = select.executeQuery("select id from article")) {
      while (rs.next()) {
        ids.set(Math.toIntExact(rs.getLong(1)));
      }
    }
    return ids;
  }
}
