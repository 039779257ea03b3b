package io.github.cuckooguard;

import com.dynatrace.hash4j.hashing.Hasher64;
import io.github.cuckooguard.internal.hash.DirectFunnel;
import io.github.cuckooguard.internal.hash.ScratchSink;
import java.util.UUID;

/**
 * Ready-made {@link Funnel}s for common key types. Each has a stable {@link Funnel#id()}, and a
 * filter or guard hashes its keys with one direct call of the hash function, allocating nothing.
 * Used inside another funnel ({@link KeySink#put}), each puts the bytes documented here.
 */
public final class Funnels {

  private Funnels() {}

  /** Eight little-endian bytes of the value; id {@code "long"}. */
  public static Funnel<Long> longFunnel() {
    return LongFunnel.INSTANCE;
  }

  /** Four little-endian bytes of the value; id {@code "int"}. */
  public static Funnel<Integer> integerFunnel() {
    return IntegerFunnel.INSTANCE;
  }

  /**
   * The UTF-8 bytes of the string ({@link KeySink#putUtf8}); id {@code "string-utf8"}. A {@code
   * String} and a {@code StringBuilder} with the same chars are the same key.
   */
  public static Funnel<CharSequence> stringFunnel() {
    return StringFunnel.INSTANCE;
  }

  /** The bytes as they are; id {@code "bytes"}. */
  public static Funnel<byte[]> byteArrayFunnel() {
    return ByteArrayFunnel.INSTANCE;
  }

  /** The most then the least significant 64 bits, each as a long; id {@code "uuid"}. */
  public static Funnel<UUID> uuidFunnel() {
    return UuidFunnel.INSTANCE;
  }

  // Each hash(key, hasher) must equal the hash of the bytes its funnel(key, sink) puts:
  // HashingGoldenTest checks every pair against hash4j's stream.

  private enum LongFunnel implements DirectFunnel<Long> {
    INSTANCE;

    @Override
    public void funnel(Long key, KeySink sink) {
      sink.putLong(key);
    }

    @Override
    public long hash(Long key, Hasher64 hasher) {
      return hasher.hashLongToLong(key);
    }

    @Override
    public String id() {
      return "long";
    }
  }

  private enum IntegerFunnel implements DirectFunnel<Integer> {
    INSTANCE;

    @Override
    public void funnel(Integer key, KeySink sink) {
      sink.putInt(key);
    }

    @Override
    public long hash(Integer key, Hasher64 hasher) {
      return hasher.hashIntToLong(key);
    }

    @Override
    public String id() {
      return "int";
    }
  }

  private enum StringFunnel implements DirectFunnel<CharSequence> {
    INSTANCE;

    @Override
    public void funnel(CharSequence key, KeySink sink) {
      sink.putUtf8(key);
    }

    @Override
    public long hash(CharSequence key, Hasher64 hasher) {
      return ScratchSink.hashUtf8(hasher, key);
    }

    @Override
    public String id() {
      return "string-utf8";
    }
  }

  private enum ByteArrayFunnel implements DirectFunnel<byte[]> {
    INSTANCE;

    @Override
    public void funnel(byte[] key, KeySink sink) {
      sink.putBytes(key);
    }

    @Override
    public long hash(byte[] key, Hasher64 hasher) {
      return hasher.hashBytesToLong(key);
    }

    @Override
    public String id() {
      return "bytes";
    }
  }

  private enum UuidFunnel implements DirectFunnel<UUID> {
    INSTANCE;

    @Override
    public void funnel(UUID key, KeySink sink) {
      sink.putLong(key.getMostSignificantBits()).putLong(key.getLeastSignificantBits());
    }

    @Override
    public long hash(UUID key, Hasher64 hasher) {
      return hasher.hashLongLongToLong(key.getMostSignificantBits(), key.getLeastSignificantBits());
    }

    @Override
    public String id() {
      return "uuid";
    }
  }
}
