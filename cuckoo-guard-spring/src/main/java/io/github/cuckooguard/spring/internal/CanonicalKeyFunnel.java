package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.text.Normalizer;
import java.util.Locale;
import java.util.UUID;
import org.springframework.util.ClassUtils;

/**
 * The funnel of the guards declared with {@code @CuckooGuarded}, whose keys come from SpEL
 * expressions and parameters of any declared type, and are compared by a database rather than by
 * {@code equals}. Keys fall into three kinds ({@link KeyKinds}), each one key space:
 *
 * <ul>
 *   <li><b>numbers</b> ({@code Long}, {@code Integer}, {@code Short}, {@code Byte}): as one long, 8
 *       bytes, so an {@code int} parameter of a finder and the {@code Long} id of an entity hash
 *       alike;
 *   <li><b>text</b> ({@code CharSequence}, an enum by its name, a {@code UUID} by its 36-character
 *       form): as the UTF-8 bytes of the {@linkplain #canonical canonical form} of the text;
 *   <li><b>bytes</b> ({@code byte[]}): as they are.
 * </ul>
 *
 * <p><b>Why text is canonicalized.</b> Databases find rows by keys that differ from the stored one:
 * a {@code CHAR(n)} column pads (the key scan reads {@code "ab "}, the finder passes {@code "ab"}),
 * and so do SQL Server's and MySQL's {@code PAD SPACE} {@code VARCHAR} comparisons; MySQL's default
 * collations ({@code *_ci}, most also {@code *_ai}) and H2's {@code VARCHAR_IGNORECASE} ignore
 * case, and accent-insensitive collations ignore accents; a {@code uuid} column compares with a
 * string parameter. Hashing the stored and the asked key apart answered "definitely absent" for
 * rows the database then finds. Every text hash, of a scanned key, an added, a removed and a
 * looked-up one alike, is therefore of the canonical form, so enters and leaves stay paired (both
 * are of the same form) and a lookup probes where the enter went. Merging keys only ever adds false
 * positives, never false negatives: two keys that fold alike share a hash as two colliding keys do,
 * each enter adds a fingerprint of its own and each leave takes one, and a key that differs from a
 * stored one only in what the fold drops answers "might contain", which costs the query the guard
 * would have skipped. The cost is there only where keys differ only in case, accents or trailing
 * spaces.
 *
 * <p>The fold covers trailing spaces, case (full Unicode case mapping, {@code ß} as {@code ss}),
 * accents and other combining marks, and compatibility forms (ligatures, full-width letters). It
 * does not cover every equality a collation may define (MySQL's {@code utf8mb4_general_ci} compares
 * {@code ß} equal to {@code s}; some collations ignore punctuation or other whitespace): a column
 * with such a collation needs keys mapped in the key expression. Numbers and text stay apart: a
 * database that converts {@code "12"} to {@code 12} is dealt with by {@link KeyKinds}, not here.
 *
 * <p>The canonical form depends on the JDK's Unicode tables for non-ASCII text: instances of one
 * cluster (and a dump and its reader) are expected to run the same Java feature release. Stateless
 * and thread-safe; ASCII text hashes without allocating.
 */
public enum CanonicalKeyFunnel implements Funnel<Object> {
  INSTANCE;

  /** The key types this funnel accepts, for error messages. */
  static final String SUPPORTED =
      "Long, Integer, Short, Byte, CharSequence (String), UUID, byte[] or an enum";

  private static final Class<?>[] ACCEPTED = {
    Long.class,
    Integer.class,
    Short.class,
    Byte.class,
    String.class,
    UUID.class,
    byte[].class,
    Enum.class
  };

  private static final byte[] HEX =
      "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /**
   * Whether {@code key} has a type this funnel accepts.
   *
   * @param key a non-null key
   */
  static boolean supports(Object key) {
    return KeyKinds.kindOf(key) != 0;
  }

  /**
   * Whether a value of the declared type {@code type} may be a key this funnel accepts: false only
   * if no accepted type is assignable to it (a {@code LocalDate}, a {@code double}).
   */
  static boolean mayHold(Class<?> type) {
    Class<?> boxed = ClassUtils.resolvePrimitiveIfNecessary(type);
    if (CharSequence.class.isAssignableFrom(boxed) || Enum.class.isAssignableFrom(boxed)) {
      return true;
    }
    for (Class<?> accepted : ACCEPTED) {
      if (boxed.isAssignableFrom(accepted)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void funnel(Object key, KeySink sink) {
    if (key instanceof Long
        || key instanceof Integer
        || key instanceof Short
        || key instanceof Byte) {
      sink.putLong(((Number) key).longValue());
    } else if (key instanceof CharSequence chars) {
      putCanonical(chars, sink);
    } else if (key instanceof UUID uuid) {
      putUuid(uuid, sink);
    } else if (key instanceof byte[] bytes) {
      sink.putBytes(bytes);
    } else if (key instanceof Enum<?> constant) {
      putCanonical(constant.name(), sink);
    } else {
      throw new IllegalArgumentException(
          "Key type "
              + key.getClass().getName()
              + " is not supported by the guards of @CuckooGuarded ("
              + SUPPORTED
              + "); map the key to one of them in the key expression, or declare a "
              + "CuckooGuard bean of that name with a Funnel for the type");
    }
  }

  /**
   * The canonical form of a text key: compatibility decomposition (NFKD), combining marks dropped,
   * {@code toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT)} (then {@code ß} replaced by {@code
   * ss}, so that {@code ẞ}, {@code ß}, {@code SS} and {@code ss}, {@code ı}, {@code I} and {@code
   * i} meet), marks the case mapping produced dropped again, and trailing spaces (U+0020) stripped.
   * ASCII text only maps {@code A-Z} to {@code a-z} and strips the trailing spaces, which gives the
   * same result. The funnel hashes the UTF-8 bytes of this form.
   */
  static String canonical(CharSequence text) {
    int end = withoutTrailingSpaces(text);
    for (int i = 0; i < end; i++) {
      if (text.charAt(i) >= 0x80) {
        return foldUnicode(text.toString());
      }
    }
    StringBuilder ascii = new StringBuilder(end);
    for (int i = 0; i < end; i++) {
      ascii.append((char) lowerAscii(text.charAt(i)));
    }
    return ascii.toString();
  }

  private static void putCanonical(CharSequence text, KeySink sink) {
    int end = withoutTrailingSpaces(text);
    boolean lower = true;
    for (int i = 0; i < end; i++) {
      char c = text.charAt(i);
      if (c >= 0x80) {
        sink.putUtf8(foldUnicode(text.toString()));
        return;
      }
      lower &= c < 'A' || c > 'Z';
    }
    if (lower && end == text.length()) {
      sink.putUtf8(text); // already canonical: the bytes of the text itself
      return;
    }
    // A KeySink hashes the byte sequence however it is split: byte by byte is the same hash.
    for (int i = 0; i < end; i++) {
      sink.putByte((byte) lowerAscii(text.charAt(i)));
    }
  }

  private static int withoutTrailingSpaces(CharSequence text) {
    int end = text.length();
    while (end > 0 && text.charAt(end - 1) == ' ') {
      end--;
    }
    return end;
  }

  private static int lowerAscii(char c) {
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
  }

  private static String foldUnicode(String text) {
    String folded =
        withoutMarks(Normalizer.normalize(text, Normalizer.Form.NFKD))
            .toUpperCase(Locale.ROOT)
            .toLowerCase(Locale.ROOT)
            // the capital sharp s (U+1E9E) upper-cases to itself and lower-cases to ß, which
            // upper-cases to SS: both meet "ss"
            .replace("\u00df", "ss");
    // The case mapping may decompose (U+0130 lower-cases to i and a combining dot).
    folded = withoutMarks(Normalizer.normalize(folded, Normalizer.Form.NFKD));
    return folded.substring(0, withoutTrailingSpaces(folded));
  }

  private static String withoutMarks(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      int type = Character.getType(c);
      if (type != Character.NON_SPACING_MARK
          && type != Character.ENCLOSING_MARK
          && type != Character.COMBINING_SPACING_MARK) {
        out.appendCodePoint(c);
      }
      i += Character.charCount(c);
    }
    return out.toString();
  }

  /** The 36-character lowercase form of {@link UUID#toString()}, as ASCII bytes. */
  private static void putUuid(UUID uuid, KeySink sink) {
    long msb = uuid.getMostSignificantBits();
    long lsb = uuid.getLeastSignificantBits();
    putHex(msb >>> 32, 8, sink);
    sink.putByte((byte) '-');
    putHex(msb >>> 16, 4, sink);
    sink.putByte((byte) '-');
    putHex(msb, 4, sink);
    sink.putByte((byte) '-');
    putHex(lsb >>> 48, 4, sink);
    sink.putByte((byte) '-');
    putHex(lsb, 12, sink);
  }

  private static void putHex(long value, int digits, KeySink sink) {
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
      sink.putByte(HEX[(int) (value >>> shift) & 0xF]);
    }
  }

  /**
   * {@code v2}: text canonicalized, enums and UUIDs hashed as text ({@code v1} hashed the exact
   * UTF-8 bytes, a UUID as two longs): a dump of the other version is refused, and a member of that
   * version rebuilds from its own scan.
   */
  @Override
  public String id() {
    return "spring-canonical-v2";
  }
}
