package io.github.cuckooguard.hibernate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.Hashing;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Ids the database treats as one row must give one key; folding may merge, never split. */
class IdKeysTest {

  @Test
  void integralNumbersOfAnyWidthAreOneKey() {
    assertThat(IdKeys.normalize(42)).isEqualTo(IdKeys.normalize(42L))
        .isEqualTo(IdKeys.normalize((short) 42)).isEqualTo(IdKeys.normalize(BigInteger.valueOf(42)))
        .isEqualTo(IdKeys.normalize(new BigDecimal("42.00")));
    assertThat(IdKeys.normalize(new BigDecimal("1.50"))).isEqualTo(IdKeys.normalize(new BigDecimal("1.5")));
  }

  @Test
  void stringsFoldCaseAccentsAndTrailingSpaces() {
    assertThat(IdKeys.normalize("ABC  ")).isEqualTo(IdKeys.normalize("abc"));
    assertThat(IdKeys.normalize("Café")).isEqualTo(IdKeys.normalize("CAFE"));
    assertThat(IdKeys.normalize(" abc")).isNotEqualTo(IdKeys.normalize("abc"));
  }

  @Test
  void byteArrayKeysCompareByContent() {
    assertThat(IdKeys.normalize(new byte[] {1, 2})).isEqualTo(IdKeys.normalize(new byte[] {1, 2}));
  }

  @Test
  void funnelSeparatesTypesAndCompositeParts() {
    IdKeys keys = new IdKeys(null, "Test");
    assertThat(hash(keys, 1L)).isNotEqualTo(hash(keys, "1"));
    assertThat(hash(keys, List.of("ab", "c"))).isNotEqualTo(hash(keys, List.of("a", "bc")));
    UUID uuid = UUID.randomUUID();
    assertThat(hash(keys, uuid)).isEqualTo(hash(keys, UUID.fromString(uuid.toString())));
  }

  private static long hash(IdKeys keys, Object key) {
    return Hashing.komihash5_0().hashToLong(key, keys::funnel);
  }
}
