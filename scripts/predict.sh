#!/usr/bin/env bash
# Predicted scaling of the suite's shapes (docs/testing.md, "Predicted scaling"): the real pool under
# shuttle in the simulation's timing mode, at virtual core counts, one line per shape and count:
#   predict: SHAPE cores=P time_us=T speedup=S steals=N (failed F, sleeps Z; seed, steps, real seconds)
#
# usage: scripts/predict.sh [CORES] [SHAPES] [SEEDS] [--leaf SHAPE=SEQ_PS:PAR_PS]...
#   CORES   comma-separated virtual core counts (default 1,2,4,8,16,64,256)
#   SHAPES  fib,skynet,nqueens,matmul,tree-left,tree-right (default: all)
#   SEEDS   tie-break seeds, one prediction each (default 0; e.g. 0,1,2 shows the spread)
# Exits non-zero only if the build or a simulated run fails, never on the predicted numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
cores=${1:-1,2,4,8,16,64,256}
shapes=${2:-fib,skynet,nqueens,matmul,tree-left,tree-right}
seeds=${3:-0}
shift $(($# < 3 ? $# : 3))
export RUSTFLAGS="--cfg forkjoin_shuttle" CARGO_TARGET_DIR=target/shuttle
cargo build --release -q -p sim-tests --example predict
exec target/shuttle/release/examples/predict --cores "$cores" --shapes "$shapes" --seeds "$seeds" "$@"
