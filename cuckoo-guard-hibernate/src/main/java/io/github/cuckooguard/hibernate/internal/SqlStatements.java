package io.github.cuckooguard.hibernate.internal;

import java.util.Locale;

/**
 * Reads just enough of a SQL string to tell whether it can change which rows exist.
 *
 * <p>This is deliberately coarse and errs towards "it can": a statement classified as {@link
 * Kind#ROW_CHANGE} that in fact changes nothing only costs a rebuild; the opposite would cost a
 * false negative. Only the leading keyword decides, after comments and parentheses; a {@code WITH}
 * statement is a row change if any data-modifying keyword appears in it (PostgreSQL's {@code WITH d
 * AS (DELETE ... RETURNING ...) SELECT}).
 */
final class SqlStatements {

  /** What a statement can do to the set of rows that exist. */
  enum Kind {
    /** Reads only ({@code SELECT}, {@code VALUES}, {@code SHOW}, ...). */
    READ,
    /** Can insert or delete rows, or drop a whole table. */
    ROW_CHANGE,
    /** Changes column values of existing rows ({@code UPDATE}). */
    UPDATE,
    /** Runs code whose effect is unknown ({@code CALL}, {@code EXEC}, JDBC escape, blocks). */
    PROCEDURAL
  }

  private static final String[] ROW_CHANGE_KEYWORDS = {
    "insert", "delete", "merge", "upsert", "replace", "truncate", "drop", "alter", "rename"
  };
  private static final String[] PROCEDURAL_KEYWORDS = {
    "call", "exec", "execute", "begin", "declare", "do"
  };

  private SqlStatements() {}

  /** Classifies {@code sql} by its leading keyword. */
  static Kind classify(String sql) {
    int start = skipNoise(sql, 0);
    if (start >= sql.length()) {
      return Kind.READ;
    }
    if (sql.charAt(start) == '{') {
      return Kind.PROCEDURAL; // JDBC escape: {call proc(?)} or {? = call f(?)}
    }
    String keyword = word(sql, start);
    if (keyword.equals("update")) {
      return Kind.UPDATE;
    }
    for (String candidate : ROW_CHANGE_KEYWORDS) {
      if (keyword.equals(candidate)) {
        return Kind.ROW_CHANGE;
      }
    }
    for (String candidate : PROCEDURAL_KEYWORDS) {
      if (keyword.equals(candidate)) {
        return Kind.PROCEDURAL;
      }
    }
    if (keyword.equals("with")) {
      for (String candidate : ROW_CHANGE_KEYWORDS) {
        if (indexOfWord(sql, candidate, start) >= 0) {
          return Kind.ROW_CHANGE;
        }
      }
      return indexOfWord(sql, "update", start) >= 0 ? Kind.UPDATE : Kind.READ;
    }
    return Kind.READ;
  }

  /**
   * Whether {@code sql} names {@code table} as a whole identifier, case-insensitively, quoted or
   * not, with or without a schema prefix.
   *
   * @param table the unqualified table name, lower case, without quotes
   */
  static boolean mentionsTable(String sql, String table) {
    return indexOfWord(sql, table, 0) >= 0;
  }

  /**
   * The unqualified, unquoted, lower-case name of a table as Hibernate reports it in an entity's
   * query spaces ({@code "PUBLIC"."users"} becomes {@code users}).
   */
  static String normalizeTableName(String qualified) {
    String name = qualified.trim();
    int dot = lastDotOutsideQuotes(name);
    if (dot >= 0) {
      name = name.substring(dot + 1);
    }
    if (name.length() >= 2 && isQuote(name.charAt(0))) {
      name = name.substring(1, name.length() - 1);
    }
    return name.toLowerCase(Locale.ROOT);
  }

  private static int lastDotOutsideQuotes(String name) {
    boolean quoted = false;
    for (int i = name.length() - 1; i >= 0; i--) {
      char c = name.charAt(i);
      if (isQuote(c)) {
        quoted = !quoted;
      } else if (c == '.' && !quoted) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isQuote(char c) {
    return c == '"' || c == '`' || c == '[' || c == ']';
  }

  /** Index of {@code word} (lower case) in {@code sql} as a whole identifier, or -1. */
  private static int indexOfWord(String sql, String word, int from) {
    int n = word.length();
    for (int i = from; i + n <= sql.length(); i++) {
      if (sql.regionMatches(true, i, word, 0, n)
          && (i == 0 || !isIdentifierPart(sql.charAt(i - 1)))
          && (i + n == sql.length() || !isIdentifierPart(sql.charAt(i + n)))) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isIdentifierPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '#';
  }

  private static String word(String sql, int start) {
    int end = start;
    while (end < sql.length() && isIdentifierPart(sql.charAt(end))) {
      end++;
    }
    return sql.substring(start, end).toLowerCase(Locale.ROOT);
  }

  /** Skips white space, {@code /* ... *\/} and {@code -- ...} comments and opening parentheses. */
  private static int skipNoise(String sql, int from) {
    int i = from;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c) || c == '(' || c == ';') {
        i++;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? sql.length() : end + 2;
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i + 2);
        i = end < 0 ? sql.length() : end + 1;
      } else {
        return i;
      }
    }
    return i;
  }
}
