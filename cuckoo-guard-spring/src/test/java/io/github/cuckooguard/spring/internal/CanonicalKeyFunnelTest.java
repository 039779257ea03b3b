package io.github.cuckooguard.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The canonical form of text keys, and that every path of {@link CanonicalKeyFunnel} (the ASCII
 * fast paths without allocation, the Unicode fold, UUIDs and enums as text) hashes the bytes of
 * that form: a guard that entered one key must answer "might contain" for every key of the same
 * form. That is deterministic whatever the seed (equal bytes, equal hash); no statistics involved.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CanonicalKeyFunnelTest {

  enum Status {
    ACTIVE
  }

  @Test
  void canonicalFormStripsTrailingSpacesAndFoldsCaseAndAccents() {
    assertThat(CanonicalKeyFunnel.canonical("ab      ")).isEqualTo("ab");
    assertThat(CanonicalKeyFunnel.canonical("AB")).isEqualTo("ab");
    assertThat(CanonicalKeyFunnel.canonical(" a b ")).isEqualTo(" a b"); // leading kept
    assertThat(CanonicalKeyFunnel.canonical("a\t")).isEqualTo("a\t"); // only U+0020 is padding
    assertThat(CanonicalKeyFunnel.canonical("Élan")).isEqualTo("elan");
    assertThat(CanonicalKeyFunnel.canonical("E\u0301lan  ")).isEqualTo("elan"); // decomposed
    assertThat(CanonicalKeyFunnel.canonical("Straße")).isEqualTo("strasse");
    assertThat(CanonicalKeyFunnel.canonical("İstanbul")).isEqualTo("istanbul");
    assertThat(CanonicalKeyFunnel.canonical("ıi")).isEqualTo("ii");
    assertThat(CanonicalKeyFunnel.canonical("ﬁＡ")).isEqualTo("fia"); // ligature, full width
    assertThat(CanonicalKeyFunnel.canonical("a \u0301")).isEqualTo("a"); // a space left by a mark
    assertThat(CanonicalKeyFunnel.canonical("")).isEmpty();
    assertThat(CanonicalKeyFunnel.canonical("   ")).isEmpty();
  }

  @Test
  void everyPathHashesTheCanonicalForm() {
    List<String> keys =
        List.of(
            "ab", "AB", "ab  ", "Ab ", "   ", "", "Élan", "ÉLAN  ", "Straße", "ﬁＡ", "x\u00a0",
            "a\tB");
    for (String key : keys) {
      assertThat(enteredMightContain(CanonicalKeyFunnel.canonical(key), key))
          .as("\"%s\" hashes as \"%s\"", key, CanonicalKeyFunnel.canonical(key))
          .isTrue();
    }
    assertThat(enteredMightContain(new StringBuilder("AB "), "ab")).as("a CharSequence").isTrue();
  }

  @Test
  void uuidsAndEnumsAreText() {
    UUID uuid = UUID.fromString("0123abcd-4567-89ef-fedc-ba9876543210");
    assertThat(enteredMightContain(uuid, uuid.toString())).isTrue();
    assertThat(enteredMightContain(uuid.toString().toUpperCase(), uuid)).isTrue();
    UUID random = UUID.randomUUID();
    assertThat(enteredMightContain(random.toString(), random)).as("%s", random).isTrue();
    assertThat(enteredMightContain(Status.ACTIVE, "active")).isTrue();
    assertThat(enteredMightContain("Active ", Status.ACTIVE)).isTrue();
  }

  @Test
  void integralNumbersAreOneKeySpace() {
    assertThat(enteredMightContain(12L, 12)).isTrue();
    assertThat(enteredMightContain((short) 12, (byte) 12)).isTrue();
  }

  private static boolean enteredMightContain(Object entered, Object asked) {
    CuckooGuard<Object> guard =
        CuckooGuard.newBuilder(CanonicalKeyFunnel.INSTANCE).expectedInsertions(16).build();
    guard.keyEntered(entered);
    return guard.mightContain(asked);
  }
}
