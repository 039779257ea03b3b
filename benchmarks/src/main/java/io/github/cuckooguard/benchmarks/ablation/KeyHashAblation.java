package io.github.cuckooguard.benchmarks.ablation;

import com.dynatrace.hash4j.hashing.HashFunnel;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.LongCuckooFilter;
import io.github.cuckooguard.benchmarks.Keys;
import io.github.cuckooguard.internal.hash.KeyHasher;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * What the direct hashing of the ready funnels changed in the cost of a key's hash, timed
 * interleaved so that a busy machine slows every variant alike: the hash as it was (hash4j's {@code
 * hashToLong(key, funnel)}, a new stream per call) against the hash as it is ({@link KeyHasher}: a
 * direct call for the ready funnels, the per-thread {@code KeySink} buffer for a custom funnel),
 * for {@code Long} and {@code String} keys, plus the whole {@code CuckooFilter<T>.mightContain} and
 * the primitive {@code LongCuckooFilter.mightContain} for scale. An ablation, not a benchmark of
 * record.
 *
 * <p>Each round runs every variant once over the same 65 536 boxed keys; the report keeps the
 * minimum, 10th percentile and median per variant over the rounds after the first third (warm-up).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.cuckooguard.benchmarks.ablation.KeyHashAblation [rounds]
 * </pre>
 */
public final class KeyHashAblation {

  private static final int KEYS = 1 << 16;
  private static final HashFunnel<Long> OLD_LONG = (k, s) -> s.putLong(k);
  private static final HashFunnel<CharSequence> OLD_STRING =
      (k, s) -> s.putBytes(k.toString().getBytes(StandardCharsets.UTF_8));

  private static long sink;

  private KeyHashAblation() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    Long[] longs = new Long[KEYS];
    String[] strings = new String[KEYS];
    long[] primitives = new long[KEYS];
    for (int i = 0; i < KEYS; i++) {
      primitives[i] = Keys.presentKey(i);
      longs[i] = primitives[i];
      strings[i] = "key-" + primitives[i];
    }
    Hasher64 hasher = Hashing.xxh3_64(Keys.SEED);
    Funnel<Long> custom = (key, s) -> s.putLong(key);
    KeyHasher<Long> newLong = new KeyHasher<>(Funnels.longFunnel(), Keys.SEED);
    KeyHasher<CharSequence> newString = new KeyHasher<>(Funnels.stringFunnel(), Keys.SEED);
    KeyHasher<Long> newCustom = new KeyHasher<>(custom, Keys.SEED);
    CuckooFilter<Long> longFilter =
        CuckooFilter.newBuilder(Funnels.longFunnel())
            .expectedInsertions(KEYS)
            .seed(Keys.SEED)
            .build();
    CuckooFilter<CharSequence> stringFilter =
        CuckooFilter.newBuilder(Funnels.stringFunnel())
            .expectedInsertions(KEYS)
            .seed(Keys.SEED)
            .build();
    LongCuckooFilter primitive =
        LongCuckooFilter.newBuilder().expectedInsertions(KEYS).seed(Keys.SEED).build();
    for (int i = 0; i < KEYS; i++) {
      longFilter.add(longs[i]);
      stringFilter.add(strings[i]);
      primitive.add(primitives[i]);
    }
    for (int i = 0; i < KEYS; i++) { // the new hashes are the old ones (HashingGoldenTest)
      if (newLong.hash(longs[i]) != hasher.hashToLong(longs[i], OLD_LONG)
          || newString.hash(strings[i]) != hasher.hashToLong(strings[i], OLD_STRING)
          || newCustom.hash(longs[i]) != hasher.hashToLong(longs[i], OLD_LONG)) {
        throw new IllegalStateException("hashes differ for key " + i);
      }
    }

    List<String> names = new ArrayList<>();
    List<LongSupplier> variants = new ArrayList<>();
    add(
        names,
        variants,
        "Long hash, before (hashToLong + stream)",
        () -> {
          long x = 0;
          for (Long k : longs) {
            x += hasher.hashToLong(k, OLD_LONG);
          }
          return x;
        });
    add(
        names,
        variants,
        "Long hash, after (longFunnel: hashLongToLong)",
        () -> {
          long x = 0;
          for (Long k : longs) {
            x += newLong.hash(k);
          }
          return x;
        });
    add(
        names,
        variants,
        "Long hash, after (custom funnel: KeySink buffer)",
        () -> {
          long x = 0;
          for (Long k : longs) {
            x += newCustom.hash(k);
          }
          return x;
        });
    add(
        names,
        variants,
        "String hash, before (getBytes + hashToLong + stream)",
        () -> {
          long x = 0;
          for (String k : strings) {
            x += hasher.hashToLong(k, OLD_STRING);
          }
          return x;
        });
    add(
        names,
        variants,
        "String hash, after (UTF-8 into the buffer)",
        () -> {
          long x = 0;
          for (String k : strings) {
            x += newString.hash(k);
          }
          return x;
        });
    byte[][] utf8 = new byte[KEYS][];
    for (int i = 0; i < KEYS; i++) {
      utf8[i] = strings[i].getBytes(StandardCharsets.UTF_8);
    }
    add(
        names,
        variants,
        "String hash, floor (hashBytesToLong of ready UTF-8)",
        () -> {
          long x = 0;
          for (byte[] k : utf8) {
            x += hasher.hashBytesToLong(k);
          }
          return x;
        });
    add(
        names,
        variants,
        "CuckooFilter<Long>.mightContain, after",
        () -> {
          long x = 0;
          for (Long k : longs) {
            x += longFilter.mightContain(k) ? 1 : 0;
          }
          return x;
        });
    add(
        names,
        variants,
        "CuckooFilter<String>.mightContain, after",
        () -> {
          long x = 0;
          for (String k : strings) {
            x += stringFilter.mightContain(k) ? 1 : 0;
          }
          return x;
        });
    add(
        names,
        variants,
        "LongCuckooFilter.mightContain (primitive)",
        () -> {
          long x = 0;
          for (long k : primitives) {
            x += primitive.mightContain(k) ? 1 : 0;
          }
          return x;
        });

    long[][] times = new long[variants.size()][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int v = 0; v < variants.size(); v++) {
        long start = System.nanoTime();
        sink += variants.get(v).getAsLong();
        times[v][r] = System.nanoTime() - start;
      }
    }
    int from = rounds / 3;
    System.out.printf(Locale.ROOT, "%d keys, rounds %d (first %d dropped)%n", KEYS, rounds, from);
    for (int v = 0; v < variants.size(); v++) {
      long[] t = Arrays.copyOfRange(times[v], from, rounds);
      Arrays.sort(t);
      System.out.printf(
          Locale.ROOT,
          "  %-56s min %6.2f  p10 %6.2f  median %6.2f ns/op%n",
          names.get(v),
          (double) t[0] / KEYS,
          (double) t[t.length / 10] / KEYS,
          (double) t[t.length / 2] / KEYS);
    }
    if (sink == 42) {
      System.out.println();
    }
  }

  private static void add(
      List<String> names, List<LongSupplier> variants, String name, LongSupplier variant) {
    names.add(name);
    variants.add(variant);
  }
}
