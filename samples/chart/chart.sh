#!/usr/bin/env bash
# Runs the samples (all three stories, with and without the guard in one run), keeps their tables
# in samples/chart/samples-run.tsv with the commit and the machine's load, and draws
# samples/chart/guard-savings.svg from them (the chart of the root README).
#
#   samples/chart/chart.sh                 run the samples, then draw
#   samples/chart/chart.sh --draw-only     draw again from the kept samples-run.tsv
#   SAMPLES_ARGS="db --rows 200000" samples/chart/chart.sh   other sizes (see -Dargs=--help)
#
# Needs Java 17+ and Maven 3.8+, nothing else (Chart.java runs as a single-file program).
set -euo pipefail
cd "$(dirname "$0")/../.."

dir=samples/chart
tsv="$dir/samples-run.tsv"
svg="$dir/guard-savings.svg"

if [[ "${1:-}" != "--draw-only" ]]; then
  commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  if [[ -n "$(git status --porcelain -- . ':!samples/chart' 2>/dev/null)" ]]; then
    commit="$commit+uncommitted changes"
  fi
  load_before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  mvn -q -pl samples -am compile -Prun -Dargs="${SAMPLES_ARGS:-} --results $tmp/run.tsv"
  load_after="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  {
    cat "$tmp/run.tsv"
    printf '# commit\t%s\n' "$commit"
    printf '# machine\t%s cores\n' "$(nproc 2>/dev/null || echo '?')"
    printf '# load\t%s before, %s after\n' "$load_before" "$load_after"
  } > "$tsv"
fi
java "$dir/Chart.java" "$tsv" "$svg"
