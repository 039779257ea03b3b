package io.github.cuckooguard.spring.support;

import java.sql.Connection;
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
}
