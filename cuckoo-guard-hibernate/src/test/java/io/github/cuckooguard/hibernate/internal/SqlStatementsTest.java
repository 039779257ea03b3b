package io.github.cuckooguard.hibernate.internal;

import static io.github.cuckooguard.hibernate.internal.SqlStatements.Kind.PROCEDURAL;
import static io.github.cuckooguard.hibernate.internal.SqlStatements.Kind.READ;
import static io.github.cuckooguard.hibernate.internal.SqlStatements.Kind.ROW_CHANGE;
import static io.github.cuckooguard.hibernate.internal.SqlStatements.Kind.UPDATE;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqlStatementsTest {

  @Test
  void classifiesByLeadingKeywordAfterCommentsAndParentheses() {
    assertThat(SqlStatements.classify("select b1_0.id from Book b1_0")).isEqualTo(READ);
    assertThat(SqlStatements.classify("  /* hql */ (select 1)")).isEqualTo(READ);
    assertThat(SqlStatements.classify("insert into ledger (code) values (?)"))
        .isEqualTo(ROW_CHANGE);
    assertThat(SqlStatements.classify("-- note\nDELETE FROM ledger")).isEqualTo(ROW_CHANGE);
    assertThat(SqlStatements.classify("merge into ledger using x on (1=1)")).isEqualTo(ROW_CHANGE);
    assertThat(SqlStatements.classify("truncate table ledger")).isEqualTo(ROW_CHANGE);
    assertThat(SqlStatements.classify("update ledger set amount=0")).isEqualTo(UPDATE);
    assertThat(SqlStatements.classify("{call refill(?)}")).isEqualTo(PROCEDURAL);
    assertThat(SqlStatements.classify("CALL refill()")).isEqualTo(PROCEDURAL);
    assertThat(SqlStatements.classify("")).isEqualTo(READ);
  }

  @Test
  void dataModifyingCteIsARowChange() {
    assertThat(
            SqlStatements.classify(
                "with d as (delete from ledger where amount < 0 returning code) select count(*) from d"))
        .isEqualTo(ROW_CHANGE);
    assertThat(SqlStatements.classify("with t as (select 1 as x) select x from t")).isEqualTo(READ);
  }

  @Test
  void tablesMatchAsWholeIdentifiersQuotedOrQualified() {
    assertThat(SqlStatements.mentionsTable("delete from LEDGER l1_0", "ledger")).isTrue();
    assertThat(
            SqlStatements.mentionsTable("insert into \"PUBLIC\".\"ledger\" values (1)", "ledger"))
        .isTrue();
    assertThat(SqlStatements.mentionsTable("insert into HT_ledger select * from x", "ledger"))
        .isFalse();
    assertThat(SqlStatements.mentionsTable("delete from ledger_archive", "ledger")).isFalse();
  }

  @Test
  void normalizesQueryTableSpaces() {
    assertThat(SqlStatements.normalizeTableName("ledger")).isEqualTo("ledger");
    assertThat(SqlStatements.normalizeTableName("\"PUBLIC\".\"Ledger\"")).isEqualTo("ledger");
    assertThat(SqlStatements.normalizeTableName("app.`Odd.Name`")).isEqualTo("odd.name");
  }
}
