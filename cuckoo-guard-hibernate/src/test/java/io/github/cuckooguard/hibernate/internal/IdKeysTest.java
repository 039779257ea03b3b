package io.github.cuckooguard.hibernate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Ids the database treats as one row must give one key; folding may merge, never split. */
class IdKeysTest {

  @Test
  void integralNumbersOfAnyWidthAreOneKey() {
    assertThat(IdKeys.normalize(42))
        .isEqualTo(IdKeys.normalize(42L))
        .isEqualTo(IdKeys.normalize((short) 42))
        .isEqualTo(IdKeys.normalize(BigInteger.valueOf(42)))
        .isEqualTo(IdKeys.normalize(new BigDecimal("42.00")));
    assertThat(IdKeys.normalize(new BigDecimal("1.50")))
        .isEqualTo(IdKeys.normalize(new BigDecimal("1.5")));
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
    StreamSink sink = new StreamSink(Hashing.komihash5_0().hashStream());
    keys.funnel(key, sink);
    return sink.stream.getAsLong();
  }

  /** A KeySink over a hash4j stream, same bytes as the library's: enough to compare two keys. */
  private record StreamSink(HashStream64 stream) implements KeySink {
    @Override
    public KeySink putByte(byte b) {
      stream.putByte(b);
      return this;
    }

    @Override
    public KeySink putBytes(byte[] bytes) {
      stream.putBytes(bytes);
      return this;
    }

    @Override
    public KeySink putBytes(byte[] bytes, int offset, int length) {
      stream.putBytes(bytes, offset, length);
      return this;
    }

    @Override
    public KeySink putByteArray(byte[] bytes) {
      stream.putByteArray(bytes);
      return this;
    }

    @Override
    public KeySink putBoolean(boolean b) {
      stream.putBoolean(b);
      return this;
    }

    @Override
    public KeySink putShort(short v) {
      stream.putShort(v);
      return this;
    }

    @Override
    public KeySink putChar(char c) {
      stream.putChar(c);
      return this;
    }

    @Override
    public KeySink putInt(int i) {
      stream.putInt(i);
      return this;
    }

    @Override
    public KeySink putLong(long l) {
      stream.putLong(l);
      return this;
    }

    @Override
    public KeySink putFloat(float f) {
      stream.putFloat(f);
      return this;
    }

    @Override
    public KeySink putDouble(double d) {
      stream.putDouble(d);
      return this;
    }

    @Override
    public KeySink putChars(CharSequence chars) {
      stream.putChars(chars);
      return this;
    }

    @Override
    public KeySink putString(CharSequence chars) {
      stream.putString(chars.toString());
      return this;
    }

    @Override
    public KeySink putUtf8(CharSequence chars) {
      stream.putBytes(chars.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return this;
    }

    @Override
    public KeySink putUUID(UUID uuid) {
      stream.putUUID(uuid);
      return this;
    }

    @Override
    public <V> KeySink put(V value, Funnel<? super V> funnel) {
      funnel.funnel(value, this);
      return this;
    }
  }
}
