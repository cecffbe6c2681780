#!/usr/bin/env bash
# The scaling table and picture: the standard suite (forkjoin, rayon, chili, forte, sequential) at
# 1..16 threads, medians as CSV, forkjoin's pool counters as CSV, and docs/img/scaling.svg drawn from
# the medians; then forkjoin's leaves on a busy pool of 2 (`suite --busy`, busy.csv), which the
# simulator's validation charges (`scripts/predict.sh 4,8,16 "" 0 --costs FILE --measured
# OUT/scaling.csv --measured OUT/busy.csv`). About 4 minutes on a 16-core machine.
#
#   scripts/scale.sh [OUT_DIR] [THREADS]        # defaults: target/scale, 1,2,4,8,16
#
# FIELD=1 also measures the field's sizes (fib-39, skynet-1e8, nqueens-14, matmul-2048; 3 rounds):
# forkjoin alone on 1 thread, every runtime at the largest thread count, forkjoin's busy leaves on
# 2, all into OUT/field.csv, which `scripts/predict.sh <largest> fib-39,skynet-1e8,nqueens-14,matmul-2048
# 0 --costs FILE --measured OUT/field.csv` compares with. About 2 more minutes on 16 cores.
#
# SUITE_BIN / PLOT_BIN: prebuilt binaries of examples/suite.rs and examples/scaling_plot.rs (for a
# machine without cargo); otherwise both are built here. ROUNDS (default 7) and TITLE override.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/scale}
threads=${2:-1,2,4,8,16}
rounds=${ROUNDS:-7}
if [[ -z "${SUITE_BIN:-}" || -z "${PLOT_BIN:-}" ]]; then
  cargo build --release --example suite --example scaling_plot
  SUITE_BIN=target/release/examples/suite
  PLOT_BIN=target/release/examples/scaling_plot
fi
mkdir -p "$out"
cpus=$(nproc)
model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' || echo unknown)
title=${TITLE:-"speedup over sequential: $cpus CPUs, $model"}
echo "== suite at $threads threads, $rounds rounds, $cpus CPUs ($model)"
"$SUITE_BIN" --threads "$threads" --rounds "$rounds" --rows fib,skynet,nqueens,matmul,tree-left,tree-right,iter-small,iter-sum,joins \
  --csv "$out/scaling.csv" --stats-csv "$out/counts.csv" | tee "$out/scaling.md"
echo "== forkjoin's leaves on a busy pool of 2 (one free worker)"
"$SUITE_BIN" --busy --threads 2 --rounds "$rounds" --rows fib,skynet,nqueens,matmul,tree-left,tree-right \
  --csv "$out/busy.csv" | tee "$out/busy.md"
if [[ -n "${FIELD:-}" ]]; then
  field=fib-39,skynet-1e8,nqueens-14,matmul-2048
  largest=${threads##*,}
  echo "== the field's sizes: forkjoin on 1 thread, every runtime on $largest, busy leaves on 2"
  "$SUITE_BIN" --threads 1 --rounds 3 --runtimes forkjoin --rows "$field" --csv "$out/field-1.csv" | tee "$out/field.md"
  "$SUITE_BIN" --threads "$largest" --rounds 3 --rows "$field" --csv "$out/field-p.csv" | tee -a "$out/field.md"
  "$SUITE_BIN" --busy --threads 2 --rounds 3 --rows "$field" --csv "$out/field-busy.csv" | tee -a "$out/field.md"
  { cat "$out/field-1.csv"; tail -n +2 "$out/field-p.csv"; tail -n +2 "$out/field-busy.csv"; } >"$out/field.csv"
  rm "$out/field-1.csv" "$out/field-p.csv" "$out/field-busy.csv"
fi
"$PLOT_BIN" "$out/scaling.csv" "$out/scaling.svg" "$title"
echo "== wrote $out/scaling.{md,csv,svg}, $out/counts.csv and $out/busy.{md,csv}${FIELD:+, $out/field.{md,csv}}"
