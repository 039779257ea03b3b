package io.github.cuckooguard.spring.support;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** A real H2 data source that counts the connections handed out. */
public final class CountingDataSource extends DelegatingDataSource {

  private final AtomicInteger connections = new AtomicInteger();

  public CountingDataSource(DataSource target) {
    super(target);
  }

  @Override
  public Connection getConnection() throws SQLException {
    connections.incrementAndGet();
    return super.getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    connections.incrementAndGet();
    return super.getConnection(username, password);
  }

  public int connections() {
    return connections.get();
  }
}
