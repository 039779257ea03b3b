package io.github.cuckooguard.hibernate.internal;

/**
 * Which part of Hibernate is preparing the statement being inspected, read from the call stack.
 *
 * <p>A {@code StatementInspector} receives only the SQL text, but the guard must tell an entity
 * persister's own INSERT or DELETE (reported to it through entity events) from a bulk or native
 * statement on the same table (reported by nothing). Hibernate prepares the former through its
 * mutation statement preparer and the latter through the query statement preparer. The stack is
 * walked only for statements that change a guarded table, and the test that matters fails safe: if
 * a Hibernate upgrade renamed the mutation preparer, entity writes would be taken for bulk
 * statements and the guard would pass through (slow, never wrong). The build's tests pin both
 * directions.
 */
final class StatementOrigin {

  private static final StackWalker WALKER = StackWalker.getInstance();
  private static final String ENTITY_MUTATION_PREPARER =
      "org.hibernate.engine.jdbc.internal.MutationStatementPreparerImpl";
  private static final String NATIVE_QUERIES = "org.hibernate.query.sql.";
  private static final String PROCEDURE_CALLS = "org.hibernate.procedure.";
  private static final int MAX_DEPTH = 64;

  private StatementOrigin() {}

  /** Whether an entity or collection persister is preparing the statement. */
  static boolean isEntityPersister() {
    return WALKER.walk(
        frames ->
            frames
                .limit(MAX_DEPTH)
                .anyMatch(frame -> frame.getClassName().startsWith(ENTITY_MUTATION_PREPARER)));
  }

  /** Whether a native query or a stored procedure call is preparing the statement. */
  static boolean isNativeQueryOrProcedure() {
    return WALKER.walk(
        frames ->
            frames
                .limit(MAX_DEPTH)
                .anyMatch(
                    frame -> {
                      String name = frame.getClassName();
                      return name.startsWith(NATIVE_QUERIES) || name.startsWith(PROCEDURE_CALLS);
                    }));
  }
}
