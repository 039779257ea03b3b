package io.github.cuckooguard.internal.hash;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hasher64;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The {@link KeySink} of custom funnels: a per-thread scratch buffer that collects a key's bytes,
 * hashed in one call ({@link Hasher64#hashBytesToLong(byte[], int, int)}) when the funnel returns.
 *
 * <pre>
 * Why a buffer per thread. hash4j's hashToLong(key, funnel) creates a HashStream64 per call, whose
 * buffer is 384 bytes of garbage per key; escape analysis cannot remove it because the stream is
 * passed to the user's funnel, a call the JIT need not inline. The buffer here is created once per
 * thread and reused; it holds no state between calls (every call starts at position 0), so the
 * one ThreadLocal is scratch space, not shared mutable state, and it is seed-independent: the
 * filter's hasher is passed per call, so one buffer serves every filter.
 *
 * Same hashes as the stream. XXH3 over a byte sequence does not depend on how the sequence was
 * fed in, so hashBytesToLong(all bytes) equals hashStream().putX(..)...getAsLong() for puts that
 * encode the same bytes; every put below encodes exactly as the hash4j HashSink method of the
 * same name (little-endian; putString = chars + int length, putByteArray = bytes + int length,
 * putUUID = least then most significant bits). HashingGoldenTest checks both against hash4j's
 * stream on random inputs, across the spill boundary.
 *
 * Size. The buffer starts at 256 bytes and doubles, once per thread, up to 4 KiB when a key needs
 * it (a thread that only ever hashes short keys, e.g. one virtual thread per task, pays 256 B).
 * When a put does not fit in 4 KiB, the buffered bytes go into a hash4j stream (allocated then,
 * once per such key) and buffering continues; the result is the stream's hash.
 *
 * Re-entrancy. A funnel that hashes another key inside funnel() (through another filter) finds the
 * thread's buffer in use and gets a fresh one. A write after the call (a funnel that kept the sink)
 * throws once the buffer is released, and is discarded by the next call's reset in any case.
 * </pre>
 */
public final class ScratchSink implements KeySink {

  /** The buffer's first size. */
  static final int INITIAL = 256;

  /** Bytes buffered before a key spills into a stream. */
  static final int CAPACITY = 4096;

  private static final ThreadLocal<ScratchSink> PER_THREAD =
      ThreadLocal.withInitial(ScratchSink::new);

  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private byte[] buf = new byte[INITIAL];
  private int pos;

  /** The hasher of the call in progress; null while the sink is free. */
  private @Nullable Hasher64 hasher;

  /** Non-null once the key outgrew the buffer. */
  private @Nullable HashStream64 spill;

  private ScratchSink() {}

  /** The hash of the bytes {@code funnel} puts for {@code key}, as hash4j's stream would give. */
  public static <T> long hash(Hasher64 hasher, Funnel<? super T> funnel, T key) {
    ScratchSink sink = acquire(hasher);
    try {
      funnel.funnel(key, sink);
      return sink.finish();
    } finally {
      sink.release();
    }
  }

  /** The hash of the UTF-8 bytes of {@code chars}, without creating the byte array. */
  public static long hashUtf8(Hasher64 hasher, CharSequence chars) {
    ScratchSink sink = acquire(hasher);
    try {
      sink.putUtf8(chars);
      return sink.finish();
    } finally {
      sink.release();
    }
  }

  private static ScratchSink acquire(Hasher64 hasher) {
    ScratchSink sink = PER_THREAD.get();
    if (sink.hasher != null) {
      sink = new ScratchSink(); // re-entrant: the thread's buffer holds a key being funnelled
    }
    sink.hasher = hasher;
    sink.pos = 0;
    sink.spill = null;
    return sink;
  }

  private void release() {
    hasher = null;
    spill = null;
    pos = 0;
  }

  private long finish() {
    HashStream64 s = spill;
    Hasher64 h = hasher;
    if (s != null) {
      return s.putBytes(buf, 0, pos).getAsLong();
    }
    return Objects.requireNonNull(h).hashBytesToLong(buf, 0, pos);
  }

  /** Moves the buffered bytes into the stream (creating it); the buffer is then empty. */
  private void flush() {
    Hasher64 h = hasher;
    if (h == null) {
      throw new IllegalStateException(
          "a KeySink is valid only inside the Funnel.funnel call it was passed to");
    }
    HashStream64 s = spill;
    if (s == null) {
      s = spill = h.hashStream();
    }
    s.putBytes(buf, 0, pos);
    pos = 0;
  }

  /**
   * Room for {@code n} more bytes when {@code pos + n} exceeds the buffer: a larger buffer while
   * that stays within {@link #CAPACITY}, else a flush into the stream (then {@code n <= 8}, which
   * an empty buffer always holds).
   */
  private void makeRoom(int n) {
    int needed = pos + n;
    if (needed <= CAPACITY) {
      buf = Arrays.copyOf(buf, Math.min(CAPACITY, Math.max(buf.length * 2, needed)));
    } else {
      flush();
    }
  }

  /** The position to write {@code n <= 8} bytes at, making room first if they do not fit. */
  private int reserve(int n) {
    if (hasher == null) {
      throw new IllegalStateException(
          "a KeySink is valid only inside the Funnel.funnel call it was passed to");
    }
    if (pos > buf.length - n) {
      makeRoom(n);
    }
    int p = pos;
    pos = p + n;
    return p;
  }

  @Override
  public KeySink putByte(byte b) {
    int p = reserve(1); // before reading buf: reserve may replace it
    buf[p] = b;
    return this;
  }

  @Override
  public KeySink putBytes(byte[] bytes) {
    return putBytes(bytes, 0, bytes.length);
  }

  @Override
  public KeySink putBytes(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    if (hasher == null) {
      throw new IllegalStateException(
          "a KeySink is valid only inside the Funnel.funnel call it was passed to");
    }
    if (length <= CAPACITY - pos) {
      if (length > buf.length - pos) {
        makeRoom(length);
      }
      System.arraycopy(bytes, offset, buf, pos, length);
      pos += length;
    } else {
      flush();
      Objects.requireNonNull(spill).putBytes(bytes, offset, length);
    }
    return this;
  }

  @Override
  public KeySink putByteArray(byte[] bytes) {
    return putBytes(bytes).putInt(bytes.length);
  }

  @Override
  public KeySink putBoolean(boolean b) {
    return putByte(b ? (byte) 1 : (byte) 0);
  }

  @Override
  public KeySink putShort(short s) {
    int p = reserve(2);
    SHORT.set(buf, p, s);
    return this;
  }

  @Override
  public KeySink putChar(char c) {
    int p = reserve(2);
    SHORT.set(buf, p, (short) c);
    return this;
  }

  @Override
  public KeySink putInt(int i) {
    int p = reserve(4);
    INT.set(buf, p, i);
    return this;
  }

  @Override
  public KeySink putLong(long l) {
    int p = reserve(8);
    LONG.set(buf, p, l);
    return this;
  }

  @Override
  public KeySink putFloat(float f) {
    return putInt(Float.floatToRawIntBits(f));
  }

  @Override
  public KeySink putDouble(double d) {
    return putLong(Double.doubleToRawLongBits(d));
  }

  @Override
  public KeySink putChars(CharSequence chars) {
    int n = chars.length();
    for (int i = 0; i < n; i++) {
      int p = reserve(2);
      SHORT.set(buf, p, (short) chars.charAt(i));
    }
    return this;
  }

  @Override
  public KeySink putString(CharSequence chars) {
    return putChars(chars).putInt(chars.length());
  }

  /**
   * UTF-8 as {@code String.getBytes(UTF_8)} encodes it: a surrogate pair as 4 bytes, an unpaired
   * surrogate as {@code '?'}. Keeps 4 bytes of room before each char, the most one char (or a pair)
   * takes.
   */
  @Override
  public KeySink putUtf8(CharSequence chars) {
    if (hasher == null) {
      throw new IllegalStateException(
          "a KeySink is valid only inside the Funnel.funnel call it was passed to");
    }
    byte[] b = buf;
    int n = chars.length();
    int p = pos;
    int i = 0;
    while (i < n) {
      if (p > b.length - 4) {
        pos = p;
        makeRoom(4);
        b = buf;
        p = pos;
      }
      // a run of ASCII chars, as many as fit (end > i: at least 4 bytes are free)
      int end = Math.min(n, i + (b.length - p));
      char c = chars.charAt(i);
      while (c < 0x80) {
        b[p++] = (byte) c;
        if (++i == end) {
          break;
        }
        c = chars.charAt(i);
      }
      if (i == end || p > b.length - 4) {
        continue; // done, or the non-ASCII char at i needs room first
      }
      i++;
      if (c < 0x800) {
        b[p++] = (byte) (0xC0 | (c >> 6));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isSurrogate(c)) {
        char low;
        if (Character.isHighSurrogate(c)
            && i < n
            && Character.isLowSurrogate(low = chars.charAt(i))) {
          i++;
          int cp = Character.toCodePoint(c, low);
          b[p++] = (byte) (0xF0 | (cp >> 18));
          b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
          b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
          b[p++] = (byte) (0x80 | (cp & 0x3F));
        } else {
          b[p++] = (byte) '?';
        }
      } else {
        b[p++] = (byte) (0xE0 | (c >> 12));
        b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    pos = p;
    return this;
  }

  @Override
  public KeySink putUUID(UUID uuid) {
    return putLong(uuid.getLeastSignificantBits()).putLong(uuid.getMostSignificantBits());
  }

  @Override
  public <V> KeySink put(V value, Funnel<? super V> funnel) {
    funnel.funnel(Objects.requireNonNull(value, "value"), this);
    return this;
  }
}
