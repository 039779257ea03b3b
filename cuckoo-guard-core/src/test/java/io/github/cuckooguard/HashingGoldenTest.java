package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.dynatrace.hash4j.hashing.HashFunnel;
import com.dynatrace.hash4j.hashing.HashSink;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * The direct hashing changed how keys reach the hash function (direct calls for the ready funnels,
 * a per-thread buffer for custom funnels) but not the hashes: every key must hash exactly as the
 * hash4j stream of the funnel's bytes did before, or dumps written before the change would read
 * back with false negatives. These tests compare the filter's own hash ({@link CuckooFilter#hash})
 * with hash4j's {@code hashToLong(key, funnel)} over the pre-issue-18 funnels, on random keys and
 * on pinned values.
 */
class HashingGoldenTest {

  private static final long[] SEEDS = {0L, 42L, 0x5EED_C0C0_F00DL};

  // The funnels as they were before the direct hashing, on hash4j's HashSink: the reference.
  private static final HashFunnel<Long> OLD_LONG = (k, s) -> s.putLong(k);
  private static final HashFunnel<Integer> OLD_INT = (k, s) -> s.putInt(k);
  private static final HashFunnel<CharSequence> OLD_STRING =
      (k, s) -> s.putBytes(k.toString().getBytes(StandardCharsets.UTF_8));
  private static final HashFunnel<byte[]> OLD_BYTES = (k, s) -> s.putBytes(k);
  private static final HashFunnel<UUID> OLD_UUID =
      (k, s) -> {
        s.putLong(k.getMostSignificantBits());
        s.putLong(k.getLeastSignificantBits());
      };

  private static <T> CuckooFilter<T> filter(Funnel<T> funnel, long seed) {
    return CuckooFilter.newBuilder(funnel).expectedInsertions(64).seed(seed).build();
  }

  /** Values computed with the pre-issue-18 code (hash4j 0.25.0 stream): pinned, like Guava's. */
  @Test
  void readyFunnelsKeepThePinnedHashesOfTheStreamBasedCode() {
    long[][] expected = {
      // long 123456789, int -7, "héllo € 😀", bytes 1..5, UUID(0x0123456789ABCDEF,
      // 0xFEDCBA9876543210)
      {
        0x27196AB4438F6AD5L,
        0x93655DB649343CEAL,
        0xD46E7987B34D7325L,
        0x59B68387649283C1L,
        0xB5FD91FEB4C92044L
      },
      {
        0xCB54F640BF059482L,
        0x3C659C6C62F26A8DL,
        0x469B31474595A64BL,
        0xF50DD12CE48FF9C9L,
        0x41FFC43DD086B0CEL
      },
      {
        0xAFFEF6595E4E96C7L,
        0x0E0C5F764F70270BL,
        0x351643BA5FFF6B48L,
        0x58BBF63443F3850BL,
        0x24C3F3EFB39D2DAEL
      },
    };
    for (int i = 0; i < SEEDS.length; i++) {
      long seed = SEEDS[i];
      assertThat(filter(Funnels.longFunnel(), seed).hash(123456789L)).isEqualTo(expected[i][0]);
      assertThat(filter(Funnels.integerFunnel(), seed).hash(-7)).isEqualTo(expected[i][1]);
      assertThat(filter(Funnels.stringFunnel(), seed).hash("h\u00e9llo \u20ac \uD83D\uDE00"))
          .isEqualTo(expected[i][2]);
      assertThat(filter(Funnels.byteArrayFunnel(), seed).hash(new byte[] {1, 2, 3, 4, 5}))
          .isEqualTo(expected[i][3]);
      assertThat(
              filter(Funnels.uuidFunnel(), seed)
                  .hash(new UUID(0x0123456789ABCDEFL, 0xFEDCBA9876543210L)))
          .isEqualTo(expected[i][4]);
    }
  }

  @Test
  void readyFunnelsHashRandomKeysExactlyAsTheStreamOfTheirOldBytes() {
    SplittableRandom random = new SplittableRandom(18);
    for (int round = 0; round < 20; round++) {
      long seed = random.nextLong();
      Hasher64 reference = Hashing.xxh3_64(seed);
      CuckooFilter<Long> longs = filter(Funnels.longFunnel(), seed);
      CuckooFilter<Integer> ints = filter(Funnels.integerFunnel(), seed);
      CuckooFilter<CharSequence> strings = filter(Funnels.stringFunnel(), seed);
      CuckooFilter<byte[]> bytes = filter(Funnels.byteArrayFunnel(), seed);
      CuckooFilter<UUID> uuids = filter(Funnels.uuidFunnel(), seed);
      for (int i = 0; i < 500; i++) {
        long l = random.nextLong();
        assertThat(longs.hash(l)).isEqualTo(reference.hashToLong(l, OLD_LONG));
        int n = random.nextInt();
        assertThat(ints.hash(n)).isEqualTo(reference.hashToLong(n, OLD_INT));
        String s = randomString(random, i % 50 == 0 ? 6000 : 40);
        assertThat(strings.hash(s))
            .as("string of %s chars", s.length())
            .isEqualTo(reference.hashToLong(s, OLD_STRING));
        StringBuilder sb = new StringBuilder(s);
        assertThat(strings.hash(sb)).isEqualTo(reference.hashToLong(sb, OLD_STRING));
        byte[] b = new byte[random.nextInt(i % 50 == 0 ? 10_000 : 70)];
        random.nextBytes(b);
        assertThat(bytes.hash(b)).isEqualTo(reference.hashToLong(b, OLD_BYTES));
        UUID u = new UUID(random.nextLong(), random.nextLong());
        assertThat(uuids.hash(u)).isEqualTo(reference.hashToLong(u, OLD_UUID));
      }
    }
  }

  @Test
  void utf8OfUnpairedSurrogatesAndEveryLengthAroundTheBufferMatchesGetBytes() {
    Hasher64 reference = Hashing.xxh3_64(7);
    CuckooFilter<CharSequence> strings = filter(Funnels.stringFunnel(), 7);
    List<String> edge =
        new ArrayList<>(
            List.of(
                "",
                "\uD800",
                "\uDC00",
                "a\uD800b",
                "\uDBFF\uDFFF",
                "\uDC00\uD800",
                "\uD800\uD800\uDC00",
                "\u007F\u0080\u07FF\u0800\uFFFF",
                "x\uD83D"));
    StringBuilder ascii = new StringBuilder();
    for (int n = 0; n < 4200; n++) {
      if (n > 4080 || n < 8) {
        edge.add(ascii.toString());
        edge.add(ascii + "\u20ac");
        edge.add(ascii + "\uD83D\uDE00");
      }
      ascii.append((char) ('a' + n % 26));
    }
    for (String s : edge) {
      assertThat(strings.hash(s))
          .as("%s chars", s.length())
          .isEqualTo(reference.hashToLong(s, OLD_STRING));
    }
  }

  /** Each ready funnel's direct hash equals the hash of the bytes it puts into a KeySink. */
  @Test
  void readyFunnelsHashAlikeThroughTheirDirectPathAndThroughTheSink() {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 2000; i++) {
      long seed = random.nextLong();
      long l = random.nextLong();
      assertThat(filter(viaSink(Funnels.longFunnel()), seed).hash(l))
          .isEqualTo(filter(Funnels.longFunnel(), seed).hash(l));
      int n = random.nextInt();
      assertThat(filter(viaSink(Funnels.integerFunnel()), seed).hash(n))
          .isEqualTo(filter(Funnels.integerFunnel(), seed).hash(n));
      String s = randomString(random, 30);
      assertThat(filter(viaSink(Funnels.stringFunnel()), seed).hash(s))
          .isEqualTo(filter(Funnels.stringFunnel(), seed).hash(s));
      byte[] b = new byte[random.nextInt(50)];
      random.nextBytes(b);
      assertThat(filter(viaSink(Funnels.byteArrayFunnel()), seed).hash(b))
          .isEqualTo(filter(Funnels.byteArrayFunnel(), seed).hash(b));
      UUID u = new UUID(random.nextLong(), random.nextLong());
      assertThat(filter(viaSink(Funnels.uuidFunnel()), seed).hash(u))
          .isEqualTo(filter(Funnels.uuidFunnel(), seed).hash(u));
    }
  }

  /** The same funnel, hidden from the fast path: the filter can only use its sink. */
  private static <T> Funnel<T> viaSink(Funnel<T> ready) {
    return new Funnel<T>() {
      @Override
      public void funnel(T key, KeySink sink) {
        ready.funnel(key, sink);
      }
    };
  }

  /** One put on both sinks: ours and hash4j's. */
  private record Put(
      String name,
      BiConsumer<KeySink, Object> ours,
      BiConsumer<HashSink, Object> theirs,
      Object value) {}

  private static Put randomPut(SplittableRandom r) {
    switch (r.nextInt(15)) {
      case 0:
        {
          byte v = (byte) r.nextInt();
          return new Put("byte", (s, x) -> s.putByte((Byte) x), (s, x) -> s.putByte((Byte) x), v);
        }
      case 1:
        {
          byte[] v = bytes(r);
          return new Put(
              "bytes", (s, x) -> s.putBytes((byte[]) x), (s, x) -> s.putBytes((byte[]) x), v);
        }
      case 2:
        {
          byte[] v = bytes(r);
          int off = v.length == 0 ? 0 : r.nextInt(v.length);
          int len = r.nextInt(v.length - off + 1);
          return new Put(
              "bytes[off,len]",
              (s, x) -> s.putBytes((byte[]) x, off, len),
              (s, x) -> s.putBytes((byte[]) x, off, len),
              v);
        }
      case 3:
        {
          byte[] v = bytes(r);
          return new Put(
              "byteArray",
              (s, x) -> s.putByteArray((byte[]) x),
              (s, x) -> s.putByteArray((byte[]) x),
              v);
        }
      case 4:
        {
          boolean v = r.nextBoolean();
          return new Put(
              "boolean",
              (s, x) -> s.putBoolean((Boolean) x),
              (s, x) -> s.putBoolean((Boolean) x),
              v);
        }
      case 5:
        {
          short v = (short) r.nextInt();
          return new Put(
              "short", (s, x) -> s.putShort((Short) x), (s, x) -> s.putShort((Short) x), v);
        }
      case 6:
        {
          char v = (char) r.nextInt();
          return new Put(
              "char", (s, x) -> s.putChar((Character) x), (s, x) -> s.putChar((Character) x), v);
        }
      case 7:
        {
          int v = r.nextInt();
          return new Put(
              "int", (s, x) -> s.putInt((Integer) x), (s, x) -> s.putInt((Integer) x), v);
        }
      case 8:
        {
          long v = r.nextLong();
          return new Put("long", (s, x) -> s.putLong((Long) x), (s, x) -> s.putLong((Long) x), v);
        }
      case 9:
        {
          float v = Float.intBitsToFloat(r.nextInt());
          return new Put(
              "float", (s, x) -> s.putFloat((Float) x), (s, x) -> s.putFloat((Float) x), v);
        }
      case 10:
        {
          double v = Double.longBitsToDouble(r.nextLong());
          return new Put(
              "double", (s, x) -> s.putDouble((Double) x), (s, x) -> s.putDouble((Double) x), v);
        }
      case 11:
        {
          String v = randomString(r, 600);
          return new Put(
              "chars", (s, x) -> s.putChars((String) x), (s, x) -> s.putChars((String) x), v);
        }
      case 12:
        {
          String v = randomString(r, 600);
          return new Put(
              "string", (s, x) -> s.putString((String) x), (s, x) -> s.putString((String) x), v);
        }
      case 13:
        {
          String v = randomString(r, 600);
          return new Put(
              "utf8",
              (s, x) -> s.putUtf8((String) x),
              (s, x) -> s.putBytes(((String) x).getBytes(StandardCharsets.UTF_8)),
              v);
        }
      default:
        {
          UUID v = new UUID(r.nextLong(), r.nextLong());
          return new Put("uuid", (s, x) -> s.putUUID((UUID) x), (s, x) -> s.putUUID((UUID) x), v);
        }
    }
  }

  private static byte[] bytes(SplittableRandom r) {
    byte[] b = new byte[r.nextInt(8) == 0 ? r.nextInt(5000) : r.nextInt(20)];
    r.nextBytes(b);
    return b;
  }

  /**
   * A custom funnel keeps its hashes when moved from hash4j's HashSink to KeySink: random sequences
   * of every put, including keys that outgrow the per-thread buffer, hash as hash4j's stream does.
   */
  @Test
  void everyKeySinkPutHashesAsTheHashSinkMethodOfTheSameName() {
    SplittableRandom random = new SplittableRandom(99);
    for (int round = 0; round < 3000; round++) {
      long seed = random.nextLong();
      List<Put> puts = new ArrayList<>();
      for (int n = random.nextInt(1, 30); n > 0; n--) {
        puts.add(randomPut(random));
      }
      Funnel<List<Put>> ours = (key, sink) -> key.forEach(p -> p.ours().accept(sink, p.value()));
      HashFunnel<List<Put>> theirs =
          (key, sink) -> key.forEach(p -> p.theirs().accept(sink, p.value()));
      assertThat(filter(ours, seed).hash(puts))
          .as("puts %s", puts.stream().map(Put::name).toList())
          .isEqualTo(Hashing.xxh3_64(seed).hashToLong(puts, theirs));
    }
  }

  /**
   * The per-thread buffer starts small and grows once per thread: every growth step (256 B up to 4
   * KiB, then the spill) is taken by a fresh thread here, with each kind of put.
   */
  @Test
  void keysThatGrowAFreshThreadsBufferHashAsTheStream() throws InterruptedException {
    SplittableRandom random = new SplittableRandom(256);
    List<Throwable> failures = new ArrayList<>();
    for (int round = 0; round < 300; round++) {
      long seed = random.nextLong();
      List<Put> puts = new ArrayList<>();
      for (int n = random.nextInt(1, 12); n > 0; n--) {
        puts.add(randomPut(random));
      }
      String s = randomString(random, 3000);
      Thread t =
          new Thread(
              () -> {
                Funnel<List<Put>> ours =
                    (key, sink) -> key.forEach(p -> p.ours().accept(sink, p.value()));
                HashFunnel<List<Put>> theirs =
                    (key, sink) -> key.forEach(p -> p.theirs().accept(sink, p.value()));
                assertThat(filter(ours, seed).hash(puts))
                    .isEqualTo(Hashing.xxh3_64(seed).hashToLong(puts, theirs));
                assertThat(filter(Funnels.stringFunnel(), seed).hash(s))
                    .isEqualTo(Hashing.xxh3_64(seed).hashToLong(s, OLD_STRING));
              });
      t.setUncaughtExceptionHandler(
          (thread, e) -> {
            synchronized (failures) {
              failures.add(e);
            }
          });
      t.start();
      t.join();
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void aFunnelThatHashesAnotherKeyInsideItsCallGetsItsOwnSink() {
    CuckooFilter<Long> inner = filter(Funnels.longFunnel(), 5);
    CuckooFilter<CharSequence> innerStrings = filter(Funnels.stringFunnel(), 5);
    Funnel<Long> nesting =
        (key, sink) -> {
          sink.putLong(key);
          sink.putLong(inner.hash(key + 1)); // a ready funnel: no sink
          sink.putLong(
              innerStrings.hash("k" + key)); // the string path uses the thread's buffer too
          sink.putInt(7);
        };
    HashFunnel<Long> reference =
        (key, sink) ->
            sink.putLong(key)
                .putLong(Hashing.xxh3_64(5).hashLongToLong(key + 1))
                .putLong(
                    Hashing.xxh3_64(5)
                        .hashBytesToLong(("k" + key).getBytes(StandardCharsets.UTF_8)))
                .putInt(7);
    CuckooFilter<Long> outer = filter(nesting, 9);
    for (long k = 0; k < 100; k++) {
      assertThat(outer.hash(k)).isEqualTo(Hashing.xxh3_64(9).hashToLong(k, reference));
    }
  }

  @Test
  void aSinkKeptPastItsCallRefusesWritesAndLeavesLaterKeysIntact() {
    KeySink[] kept = new KeySink[1];
    CuckooFilter<Long> filter =
        filter(
            (key, sink) -> {
              kept[0] = sink;
              sink.putLong(key);
            },
            1);
    long before = filter.hash(1L);
    assertThatThrownBy(() -> kept[0].putLong(2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("valid only inside the Funnel.funnel call");
    assertThatThrownBy(() -> kept[0].putUtf8("x")).isInstanceOf(IllegalStateException.class);
    assertThat(filter.hash(1L)).isEqualTo(before).isEqualTo(Hashing.xxh3_64(1).hashLongToLong(1L));
  }

  @Test
  void aFunnelThatThrowsLeavesTheSinkUsableForTheNextKey() {
    CuckooFilter<Long> filter =
        filter(
            (key, sink) -> {
              sink.putLong(key);
              if (key < 0) {
                throw new IllegalArgumentException("negative");
              }
            },
            1);
    assertThatThrownBy(() -> filter.add(-1L)).isInstanceOf(IllegalArgumentException.class);
    assertThat(filter.hash(3L)).isEqualTo(Hashing.xxh3_64(1).hashLongToLong(3L));
  }

  /**
   * Add, dump, read back, look up: no key of a custom funnel (short and spilling keys) goes
   * missing, neither in the filter that took it nor in the one read from its dump.
   */
  @Test
  void customFunnelKeysSurviveADumpWithoutAFalseNegative() throws IOException {
    Funnel<String> custom =
        new Funnel<>() {
          @Override
          public void funnel(String key, KeySink sink) {
            sink.putInt(key.length()).putUtf8(key).putBoolean(key.isEmpty());
          }

          @Override
          public String id() {
            return "test-custom-v1";
          }
        };
    CuckooFilter<String> filter =
        CuckooFilter.newBuilder(custom).expectedInsertions(5000).seed(11).build();
    SplittableRandom random = new SplittableRandom(4);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      keys.add(randomString(random, i % 100 == 0 ? 5000 : 30) + i);
    }
    keys.forEach(k -> assertThat(filter.add(k)).isTrue());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    CuckooFilter<String> read =
        CuckooFilter.readFrom(new ByteArrayInputStream(out.toByteArray()), custom);
    for (String k : keys) {
      assertThat(filter.mightContain(k)).isTrue();
      assertThat(read.mightContain(k)).isTrue();
    }
  }

  /** Random UTF-16: mostly ASCII, some 2- and 3-byte chars, surrogate pairs and lone surrogates. */
  static String randomString(SplittableRandom r, int maxLength) {
    int n = r.nextInt(maxLength + 1);
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      int kind = r.nextInt(10);
      if (kind < 6) {
        sb.append((char) r.nextInt(0x80));
      } else if (kind == 6) {
        sb.append((char) r.nextInt(0x80, 0x800));
      } else if (kind == 7) {
        sb.append((char) r.nextInt(0x800, 0xD800));
      } else if (kind == 8) {
        sb.appendCodePoint(r.nextInt(0x10000, 0x110000));
      } else {
        sb.append(
            (char) r.nextInt(0xD800, 0xE000)); // a lone surrogate, unless the next char pairs it
      }
    }
    return sb.toString();
  }
}
