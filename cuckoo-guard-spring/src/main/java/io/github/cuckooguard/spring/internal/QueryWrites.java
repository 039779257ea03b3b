package io.github.cuckooguard.spring.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Tells from the text of a Spring Data repository query (JPQL/HQL or native SQL) whether running it
 * may add a key to the guarded store, one-sidedly: a query is a read, or an update that changes no
 * key, only if that is certain from the text; anything the reader cannot follow counts as a write.
 *
 * <p>How a query is read:
 *
 * <ol>
 *   <li>Comments (<code>-- …</code>, <code>/* … *&#47;</code>) and string literals are removed, so
 *       that no comment hides a statement and no literal ({@code 'insert'}, {@code 'id = 1'}) looks
 *       like one. Quoted identifiers ({@code "item_no"}, {@code `item_no`}) keep their name but are
 *       never read as keywords. What the reader cannot delimit for every database counts as a
 *       write: an unterminated comment or literal, a backslash inside a literal (an escape in
 *       MySQL, a character elsewhere), a MySQL executable comment <code>/*! … *&#47;</code>, a
 *       PostgreSQL dollar-quoted string.
 *   <li>A second statement after a {@code ;} is a write.
 *   <li>The words {@code insert}, {@code delete}, {@code merge}, {@code replace}, {@code truncate},
 *       {@code upsert}, {@code call}, {@code exec} and {@code execute} anywhere are a write (a data
 *       modifying CTE, a subquery, a procedure), except {@code insert(}, {@code replace(} and
 *       {@code truncate(}, which are string and number functions.
 *   <li>The word {@code update} anywhere but as the leading statement of a {@code @Modifying} query
 *       is a write (a data change delta table {@code select … from final table (update …)}, a
 *       PostgreSQL CTE {@code with m as (update … returning …) select …}, a nested update), except
 *       in the row-locking clauses {@code for update} and {@code for no key update}: a select may
 *       re-key a row as well as an update can.
 *   <li>A {@code @Modifying} query must then begin with {@code update} (so {@code with … update}, a
 *       leading parenthesis and every other statement are writes) and have a {@code set} clause
 *       whose every assignment names, left of its {@code =}, no key name: neither an id attribute
 *       nor its column (compared case-insensitively, also as the last {@code _}-separated part of a
 *       column, e.g. {@code t_id} for {@code id}). A row whose key is assigned keeps existing under
 *       a key the guard never saw, which its finders would answer "absent" for.
 * </ol>
 *
 * <p>Stateless; thread-safe.
 */
final class QueryWrites {

  /** Words that make any query a write, unless followed by "(" where {@link #FUNCTIONS} say so. */
  private static final Pattern WRITE_WORD =
      Pattern.compile(
          "\\b(insert|delete|merge|replace|truncate|upsert|call|exec|execute)\\b(\\s*\\()?");

  /**
   * {@code update} as a word, unless it is part of a row lock ({@code for update}, {@code for no
   * key update}): group 1 is set for a lock.
   */
  private static final Pattern UPDATE_WORD =
      Pattern.compile("(\\bfor\\s+(?:no\\s+key\\s+)?)?\\bupdate\\b");

  /** Statement words that are also the names of SQL functions (MySQL INSERT(), REPLACE()…). */
  private static final Set<String> FUNCTIONS = Set.of("insert", "replace", "truncate");

  /**
   * Where the {@code set} clause of an update ends: words reserved in JPQL and every SQL dialect,
   * so never a column. A dialect's other trailers ({@code returning}, {@code order by}, {@code
   * limit}, {@code output}) are read as part of the last assignment's value, which is not checked
   * (a comma in them makes the clause unreadable: a write).
   */
  private static final Set<String> SET_CLAUSE_END = Set.of("where", "from");

  private static final Pattern WORD = Pattern.compile("[a-z_][a-z0-9_$]*");

  private static final Pattern DOLLAR_QUOTE = Pattern.compile("\\$[A-Za-z_]*\\$");

  private QueryWrites() {}

  /**
   * Why running {@code query} may add a key to the guarded store, or {@code null} if it certainly
   * does not.
   *
   * @param modifying whether the method is {@code @Modifying} (the query is run as an update)
   * @param keyNames the key names of the guard (lower case) with where each comes from, or {@code
   *     null} if the domain type's id is not known (then every {@code @Modifying} query is a write,
   *     as it is when {@link KeyNames#unknown()} says why the key's attribute is not known)
   */
  static @Nullable String whyWrite(String query, boolean modifying, @Nullable KeyNames keyNames) {
    String text = strip(query);
    if (text == null) {
      return "the check cannot read its query (an unterminated comment or string literal, a "
          + "backslash in a literal, a MySQL /*! */ comment or a dollar-quoted string)";
    }
    int semicolon = text.indexOf(';');
    if (semicolon >= 0 && !text.substring(semicolon + 1).isBlank()) {
      return "its query runs more than one statement";
    }
    Matcher write = WRITE_WORD.matcher(text);
    while (write.find()) {
      if (write.group(2) == null || !FUNCTIONS.contains(write.group(1))) {
        return "its query contains '" + write.group(1) + "'";
      }
    }
    Matcher first = WORD.matcher(text);
    boolean leadingUpdate =
        modifying
            && first.find()
            && text.substring(0, first.start()).isBlank()
            && first.group().equals("update");
    Matcher update = UPDATE_WORD.matcher(text);
    while (update.find()) {
      if (update.group(1) == null && !(leadingUpdate && update.start() == first.start())) {
        return modifying
            ? "its query contains a second 'update' (nested in a subquery or a data change table)"
            : "its query contains 'update' (a select of a data change table or a common table "
                + "expression that updates rows)";
      }
    }
    if (!modifying) {
      return null;
    }
    first = WORD.matcher(text);
    if (!first.find() || !text.substring(0, first.start()).isBlank()) {
      return "its @Modifying query is not an update";
    }
    if (!first.group().equals("update")) {
      return "its @Modifying query is " + article(first.group()) + " statement, not an update";
    }
    if (keyNames == null) {
      return "its update may assign the key, and the check cannot tell the key of the repository's "
          + "domain type (no @Id attribute found)";
    }
    if (keyNames.unknown() != null) {
      return "its update may assign the key, and the check cannot tell which attribute the key is: "
          + keyNames.unknown();
    }
    List<String> targets = assignedNames(text, first.end());
    if (targets == null) {
      return "the check cannot read the set clause of its update";
    }
    for (String target : targets) {
      String origin = keyNames.match(target);
      if (origin != null) {
        return "its update assigns '" + target + "', " + origin;
      }
    }
    return null;
  }

  private static String article(String word) {
    return ("aeiou".indexOf(word.charAt(0)) >= 0 ? "an " : "a ") + word;
  }

  /**
   * The words left of the {@code =} of every assignment of the top-level {@code set} clause after
   * {@code from}, or {@code null} if there is no such clause or an assignment has no {@code =}.
   */
  private static @Nullable List<String> assignedNames(String text, int from) {
    int depth = 0;
    int set = -1;
    int end = text.length();
    Matcher word = WORD.matcher(text);
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (c == ')' || c == ']' || c == '}') {
        depth--;
      } else if (depth == 0 && isWordStart(text, i) && word.find(i) && word.start() == i) {
        String w = word.group();
        if (set < 0 && w.equals("set")) {
          set = word.end();
        } else if (set >= 0 && SET_CLAUSE_END.contains(w)) {
          end = i;
          break;
        }
        i = word.end() - 1;
      }
    }
    if (set < 0) {
      return null;
    }
    List<String> names = new ArrayList<>();
    depth = 0;
    int start = set;
    boolean assigned = false;
    for (int i = set; i <= end; i++) {
      char c = i < end ? text.charAt(i) : ',';
      if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (c == ')' || c == ']' || c == '}') {
        depth--;
      } else if (depth == 0 && c == '=' && !assigned) {
        Matcher left = WORD.matcher(text.substring(start, i));
        while (left.find()) {
          names.add(left.group());
        }
        assigned = true;
      } else if (depth == 0 && c == ',') {
        if (!assigned) {
          return null;
        }
        start = i + 1;
        assigned = false;
      }
    }
    return names.isEmpty() ? null : names;
  }

  /**
   * Whether a word begins at {@code i} that may be a keyword: not inside a word, and not a
   * parameter ({@code :where}, {@code ?#{…}}), a path ({@code i.set}) or a variable
   * ({@code @from}).
   */
  private static boolean isWordStart(String text, int i) {
    char c = text.charAt(i);
    if (c != '_' && (c < 'a' || c > 'z')) {
      return false;
    }
    if (i == 0) {
      return true;
    }
    char before = text.charAt(i - 1);
    return !Character.isLetterOrDigit(before) && "_$:?#.@".indexOf(before) < 0;
  }

  /**
   * {@code query} in lower case without comments and string literals (each replaced by a space or
   * {@code ''}) and with quoted identifiers unquoted, or {@code null} if it cannot be delimited
   * with certainty.
   */
  static @Nullable String strip(String query) {
    String q = query.toLowerCase(Locale.ROOT);
    StringBuilder out = new StringBuilder(q.length());
    int n = q.length();
    int i = 0;
    while (i < n) {
      char c = q.charAt(i);
      char next = i + 1 < n ? q.charAt(i + 1) : 0;
      if (c == '-' && next == '-') {
        int eol = q.indexOf('\n', i);
        i = eol < 0 ? n : eol;
        out.append(' ');
      } else if (c == '/' && next == '*') {
        int close = q.indexOf("*/", i + 2);
        if (close < 0 || i + 2 < n && q.charAt(i + 2) == '!') {
          return null;
        }
        i = close + 2;
        out.append(' ');
      } else if (c == '\'') {
        int close = closing(q, i, '\'');
        if (close < 0 || q.substring(i, close).indexOf('\\') >= 0) {
          return null;
        }
        i = close + 1;
        out.append(" '' ");
      } else if (c == '"' || c == '`') {
        int close = closing(q, i, c);
        if (close < 0) {
          return null;
        }
        // the name, after a '.' so that it is never read as a keyword ("order", "where"), with
        // every character that is not part of a word replaced (no quoted ',', '=' or '(' counts)
        out.append(" .").append(q.substring(i + 1, close).replaceAll("[^a-z0-9_$]", "_"));
        out.append(' ');
        i = close + 1;
      } else if (c == '$' && DOLLAR_QUOTE.matcher(q).region(i, n).lookingAt()) {
        return null;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** The index of the quote closing the one at {@code open} (a doubled quote escapes), or -1. */
  private static int closing(String q, int open, char quote) {
    for (int i = open + 1; i < q.length(); i++) {
      if (q.charAt(i) == quote) {
        if (i + 1 < q.length() && q.charAt(i + 1) == quote) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
  }
}
