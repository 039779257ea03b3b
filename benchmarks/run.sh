#!/usr/bin/env bash
# Runs the benchmark suite of issue 3 and writes JSON results, the space/accuracy CSV, the SVG
# charts and a Markdown summary (results + ratios) into one directory.
#
#   benchmarks/run.sh smoke [outdir]   about one minute: every benchmark class once, short iterations
#   benchmarks/run.sh core  [outdir]   the core filters only (issue 16), about 15 minutes
#   benchmarks/run.sh full  [outdir]   the full suite, under 20 minutes on 2 cores (incl. about 5 for
#                                      the integration benchmarks: guarded / unguarded Hibernate and JCache)
#
# Build the jar first:  mvn -q -pl benchmarks -am package -DskipTests
# Run on a quiet machine: nothing else busy, no other JMH instance (each run gets its own tmpdir,
# so JMH's jmh.lock never collides with another run's).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
out="${2:-benchmarks/results/$mode-$(date -u +%Y%m%dT%H%M%SZ)}"
jar=benchmarks/target/benchmarks.jar
[[ -f "$jar" ]] || { echo "missing $jar: run mvn -q -pl benchmarks -am package -DskipTests" >&2; exit 1; }
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

jmh() { # jmh <name> <jmh arguments...>
  local name="$1"; shift
  echo "== $name: $*" >&2
  java -Djava.io.tmpdir="$tmp" -jar "$jar" -rf json -rff "$out/$name.json" "$@" > "$out/$name.log"
}
guard_ratios() { # guard_ratios <name> <jmh arguments...>: JMH through GuardRatios, which also writes
  # the guarded / unguarded ratios of the run to <name>.ratios.md
  local name="$1"; shift
  echo "== $name: $*" >&2
  java -Djava.io.tmpdir="$tmp" -cp "$jar" io.github.cuckooguard.benchmarks.integration.GuardRatios \
    --table "$out/$name.ratios.md" -rf json -rff "$out/$name.json" "$@" > "$out/$name.log"
}
report() { # report <SpaceAccuracyReport arguments...>
  java -Xmx6g -cp "$jar" io.github.cuckooguard.benchmarks.SpaceAccuracyReport --out "$out/space-accuracy.csv" "$@" \
    > "$out/space-accuracy.md"
  java -cp "$jar" io.github.cuckooguard.benchmarks.SpaceChart "$out/space-accuracy.csv" "$out"
}

start=$SECONDS
case "$mode" in
  smoke)
    short=(-f 1 -wi 1 -i 1 -w 1s -r 1s)
    jmh lookup "${short[@]}" 'LookupBatchBenchmark' -p impl=OURS_16,FF_CUCKOO_16,GUAVA_12,CF4J_12 \
      -p n=1000000 -p positivePercent=100,0
    jmh insert -f 1 -wi 1 -i 1 'InsertBenchmark' -p impl=OURS_12,CF4J_12
    jmh delete -f 1 -wi 1 -i 1 'DeleteBenchmark' -p impl=OURS_12,CF4J_12
    jmh concurrent "${short[@]}" 'ConcurrentMixBenchmark' -p impl=OURS_12
    report --n 100000 --probes 1000000
    ;;
  full)
    std=(-f 1 -wi 1 -i 3 -w 1s -r 1s)
    shares=(-p positivePercent=0,50,100)
    # 1 M keys: every comparison; 16 M keys (slow to build for Guava and CuckooFilter4J): the
    # comparisons that have targets
    jmh lookup-1t-1m "${std[@]}" 'LookupBenchmark.oneThread' "${shares[@]}" -p n=1000000 \
      -p impl=OURS_8,OURS_12,OURS_16,FF_CUCKOO_8,FF_CUCKOO_16,GUAVA_8,GUAVA_12,GUAVA_16,CF4J_12
    jmh lookup-1t-16m "${std[@]}" 'LookupBenchmark.oneThread' "${shares[@]}" -p n=16000000 \
      -p impl=OURS_8,OURS_12,OURS_16,FF_CUCKOO_8,FF_CUCKOO_16,GUAVA_12
    jmh lookup-batch -f 1 -wi 3 -i 5 -w 1s -r 1s 'LookupBatchBenchmark' -p n=1000000,16000000 \
      -p positivePercent=100,0,50 -p impl=OURS_8,OURS_12,OURS_16,FF_CUCKOO_8,FF_CUCKOO_16,GUAVA_12,CF4J_12
    jmh lookup-2t "${std[@]}" 'LookupBenchmark.twoThreads' "${shares[@]}" -p n=1000000,16000000 \
      -p impl=OURS_8,OURS_12,OURS_16
    jmh insert -f 1 -wi 3 -i 5 'InsertBenchmark' \
      -p impl=OURS_8,OURS_12,OURS_16,FF_CUCKOO_8,FF_CUCKOO_16,GUAVA_12,CF4J_8,CF4J_12,CF4J_16
    jmh delete -f 1 -wi 3 -i 5 'DeleteBenchmark'
    jmh concurrent "${std[@]}" 'ConcurrentMixBenchmark'
    # allocation of the primitive path: lookups, and add + remove (the concurrent writer); the
    # single-shot insert/delete benchmarks would count the filter their setup allocates
    jmh alloc -f 1 -wi 1 -i 1 -w 1s -r 1s -prof gc 'LookupBenchmark.oneThread|ConcurrentMixBenchmark' \
      -p impl=OURS_8,OURS_12,OURS_16 -p n=1000000 -p positivePercent=50
    report --n 1000000,1048577 --probes 10000000
    # what the adapters' guards save (issues 5 and 6), each setting with and without the guard: the
    # classes' own iterations (5 x 2 s warm-up, Hibernate's find path needs it; 3 x 2 s measured)
    guard_ratios hibernate-find -f 1 'HibernateFindBenchmark'
    guard_ratios jcache-cluster-get -f 1 'JCacheClusterGetBenchmark'
    # issue 18: the object-key path (ready and custom funnels) beside the primitive filter, and a
    # guarded Caffeine cache / Caffeine-JCache cache beside the plain one, all with -prof gc
    jmh object-keys "${std[@]}" -prof gc 'ObjectKeyFilterBenchmark'
    guard_ratios caffeine -f 1 -prof gc 'CaffeineCacheBenchmark|CaffeineJCacheGetBenchmark'
    ;;
  core)
    # the core filter comparison (issue 16): lookups as batches of 1,024 independent keys, pure
    # positive and pure negative (the 50/50 mix as an extra row), every implementation warmed the
    # same (3 x 1 s); inserts; allocation; interleaved ratios; space at equal measured fpp
    std=(-f 1 -wi 3 -i 5 -w 1s -r 1s)
    jmh lookup-batch "${std[@]}" 'LookupBatchBenchmark' -p n=1000000,16000000 -p positivePercent=100,0,50 \
      -p impl=OURS_8,OURS_12,OURS_16,FF_CUCKOO_8,FF_CUCKOO_16,GUAVA_12,CF4J_12
    jmh insert -f 1 -wi 3 -i 5 'InsertBenchmark' -p impl=OURS_8,OURS_16,FF_CUCKOO_8,FF_CUCKOO_16
    jmh alloc -f 1 -wi 1 -i 1 -w 1s -r 1s -prof gc 'LookupBatchBenchmark' -p impl=OURS_8,OURS_16 \
      -p n=1000000 -p positivePercent=100,0
    for f in 8 16; do
      for n in 1000000 16000000; do
        java -Xmx3g -cp "$jar" io.github.cuckooguard.benchmarks.LookupRatios "$f" "$n" > "$out/ratios-f$f-n$n.txt"
      done
    done
    report --n 1000000 --probes 10000000 --impl OURS_8,OURS_12,OURS_13,OURS_16,GUAVA_8,GUAVA_12,GUAVA_16
    ;;
  *)
    echo "usage: $0 smoke|full|core [outdir]" >&2; exit 2 ;;
esac

java -cp "$jar" io.github.cuckooguard.benchmarks.ResultTable "$out"/*.json > "$out/summary.md"
for ratios in "$out"/*.ratios.md; do
  if [[ -f "$ratios" ]]; then
    printf '\n%s, guarded / unguarded:\n\n' "$(basename "$ratios" .ratios.md)" >> "$out/summary.md"
    cat "$ratios" >> "$out/summary.md"
  fi
done
{
  echo
  echo "machine: $(nproc) cores, $(java -version 2>&1 | head -1), $(uname -sr); suite time $((SECONDS - start)) s"
} >> "$out/summary.md"
echo "wrote $out (summary.md, space-accuracy.md, *.json, *.svg) in $((SECONDS - start)) s" >&2
