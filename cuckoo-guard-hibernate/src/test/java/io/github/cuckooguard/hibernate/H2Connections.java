package io.github.cuckooguard.hibernate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.hibernate.cfg.Configuration;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;

/**
 * A connection provider of plain, unpooled H2 connections, for tests that need to intercept what
 * Hibernate does with its connections; subclasses change {@link #getConnection} or {@link
 * #closeConnection}.
 */
abstract class H2Connections implements ConnectionProvider {

  private final String url;

  H2Connections(String url) {
    this.url = url;
  }

  /** Makes {@code cfg} take its connections from this provider. */
  Configuration install(Configuration cfg) {
    cfg.getProperties().put("hibernate.connection.provider_class", this);
    return cfg;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return DriverManager.getConnection(url, "sa", "");
  }

  @Override
  public void closeConnection(Connection connection) throws SQLException {
    connection.close();
  }

  @Override
  public boolean supportsAggressiveRelease() {
    return false;
  }

  @Override
  public boolean isUnwrappableAs(Class<?> type) {
    return type.isInstance(this);
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    return type.cast(this);
  }
}
