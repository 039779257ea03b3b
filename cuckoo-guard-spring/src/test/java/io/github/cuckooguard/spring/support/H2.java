package io.github.cuckooguard.spring.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** Fresh in-memory H2 databases, one per context. */
public final class H2 {

  private H2() {}

  /** A new, empty, named in-memory database that lives until the JVM exits. */
  public static String newUrl() {
    return "jdbc:h2:mem:cg-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
  }

  public static DataSource dataSource(String url) {
    JdbcDataSource dataSource = new JdbcDataSource();
    dataSource.setURL(url);
    return dataSource;
  }

  /** Runs DDL/DML on the database outside any Spring context. */
  public static void execute(String url, String... statements) {
    try (Connection connection = dataSource(url).getConnection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    } catch (SQLException ex) {
      throw new IllegalStateException(ex);
    }
  }

  /**
   * Whether the table {@code users} holds a committed row {@code id}: asked on a connection of its
   * own, outside any Spring transaction, so it sees what other readers (and a key scan) see.
   */
  public static boolean committedRowExists(String url, long id) {
    try (Connection c = dataSource(url).getConnection();
        PreparedStatement ps = c.prepareStatement("select count(*) from users where id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    } catch (SQLException ex) {
      throw new IllegalStateException(ex);
    }
  }

  /**
   * The number of committed rows of the table {@code users}, asked as {@link #committedRowExists}.
   */
  public static long committedRows(String url) {
    try (Connection c = dataSource(url).getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from users")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException ex) {
      throw new IllegalStateException(ex);
    }
  }
}
