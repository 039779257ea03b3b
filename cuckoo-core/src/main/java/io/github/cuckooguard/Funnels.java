package io.github.cuckooguard;

import com.dynatrace.hash4j.hashing.HashSink;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** Ready-made {@link Funnel}s for common key types. Each has a stable {@link Funnel#id()}. */
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

  /** The UTF-8 bytes of the string; id {@code "string-utf8"}. */
  public static Funnel<CharSequence> stringFunnel() {
    return StringFunnel.INSTANCE;
  }

  /** The bytes as they are; id {@code "bytes"}. */
  public static Funnel<byte[]> byteArrayFunnel() {
    return ByteArrayFunnel.INSTANCE;
  }

  /** The most then the least significant 64 bits; id {@code "uuid"}. */
  public static Funnel<UUID> uuidFunnel() {
    return UuidFunnel.INSTANCE;
  }

  private enum LongFunnel implements Funnel<Long> {
    INSTANCE;

    @Override
    public void funnel(Long key, HashSink sink) {
      sink.putLong(key);
    }

    @Override
    public String id() {
      return "long";
    }
  }

  private enum IntegerFunnel implements Funnel<Integer> {
    INSTANCE;

    @Override
    public void funnel(Integer key, HashSink sink) {
      sink.putInt(key);
    }

    @Override
    public String id() {
      return "int";
    }
  }

  private enum StringFunnel implements Funnel<CharSequence> {
    INSTANCE;

    @Override
    public void funnel(CharSequence key, HashSink sink) {
      sink.putBytes(key.toString().getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String id() {
      return "string-utf8";
    }
  }

  private enum ByteArrayFunnel implements Funnel<byte[]> {
    INSTANCE;

    @Override
    public void funnel(byte[] key, HashSink sink) {
      sink.putBytes(key);
    }

    @Override
    public String id() {
      return "bytes";
    }
  }

  private enum UuidFunnel implements Funnel<UUID> {
    INSTANCE;

    @Override
    public void funnel(UUID key, HashSink sink) {
      sink.putLong(key.getMostSignificantBits());
      sink.putLong(key.getLeastSignificantBits());
    }

    @Override
    public String id() {
      return "uuid";
    }
  }
}
