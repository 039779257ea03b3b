package io.github.cuckooguard;

import java.util.UUID;

/**
 * Where a {@link Funnel} writes the bytes of a key (the role of Guava's {@code PrimitiveSink}).
 * Every {@code put} appends bytes, little-endian for multi-byte values, and the key's hash is that
 * of the whole byte sequence: two funnels that put the same bytes hash alike however they split
 * them ({@code putInt(a).putInt(b)} equals {@code putLong((b << 32) | a)} for unsigned {@code a}),
 * and values of variable length need a delimiter ({@link #putString}, {@link #putByteArray}) when
 * several are put, or {@code "ab", "c"} and {@code "a", "bc"} would hash alike.
 *
 * <p>The byte encodings are those of hash4j's {@code HashSink} method of the same name, so a funnel
 * written for it keeps its hashes (and its filters' dumps) when moved to this type.
 *
 * <p>The library supplies the sink: it is valid only inside the {@link Funnel#funnel} call it is
 * passed to, on that call's thread, and must not be kept; a write after the call throws {@link
 * IllegalStateException} or is discarded. Writing allocates nothing up to 4 KiB per key (larger
 * keys are hashed in a stream of their own). Not meant to be implemented outside the library:
 * methods may be added.
 */
public interface KeySink {

  /** One byte. */
  KeySink putByte(byte b);

  /** The bytes, without their length. */
  KeySink putBytes(byte[] bytes);

  /**
   * {@code length} bytes of {@code bytes} from {@code offset}, without their length.
   *
   * @throws IndexOutOfBoundsException if the range is outside the array
   */
  KeySink putBytes(byte[] bytes, int offset, int length);

  /** The bytes, then their count as an {@link #putInt int}: a delimited value. */
  KeySink putByteArray(byte[] bytes);

  /** One byte: 1 for true, 0 for false. */
  KeySink putBoolean(boolean b);

  /** Two bytes, little-endian. */
  KeySink putShort(short s);

  /** The UTF-16 code unit, two bytes, little-endian. */
  KeySink putChar(char c);

  /** Four bytes, little-endian. */
  KeySink putInt(int i);

  /** Eight bytes, little-endian. */
  KeySink putLong(long l);

  /** {@link Float#floatToRawIntBits} as an {@link #putInt int}. */
  KeySink putFloat(float f);

  /** {@link Double#doubleToRawLongBits} as a {@link #putLong long}. */
  KeySink putDouble(double d);

  /** Each UTF-16 code unit as a {@link #putChar char}, without the length. */
  KeySink putChars(CharSequence chars);

  /** {@link #putChars}, then the length in chars as an {@link #putInt int}: a delimited value. */
  KeySink putString(CharSequence chars);

  /**
   * The UTF-8 bytes of {@code chars}, without their length: the bytes of {@code
   * chars.toString().getBytes(StandardCharsets.UTF_8)} (an unpaired surrogate becomes {@code '?'}),
   * but without creating that array.
   */
  KeySink putUtf8(CharSequence chars);

  /** The least, then the most significant 64 bits, each as a {@link #putLong long}. */
  KeySink putUUID(UUID uuid);

  /**
   * Whatever {@code funnel} puts for {@code value}: for keys made of parts with funnels of their
   * own.
   */
  <V> KeySink put(V value, Funnel<? super V> funnel);
}
