#!/usr/bin/env bash
# Cancellation latency at many cores, predicted (docs/benchmarks.md, "Cancellation latency"): the real
# pool under shuttle in the simulation's timing mode, the virtual time from `cancel()` to `cancellable`
# returning, one line per shape, canceller, core count and seed:
#   cancel: SHAPE from=WHO cores=P latency_us=L (cancel at C us, returned at R us; seed, steps, real seconds)
#
# usage: scripts/cancel-latency.sh [CORES] [SHAPES] [SEEDS]
#   CORES   comma-separated virtual core counts (default 16,64)
#   SHAPES  iter,join,scope,scope-flat (default: all)
#   SEEDS   tie-break seeds (default 0,1,2)
# About 35 s on the 2-core VM once built. The real-thread counterpart:
#   cargo run --release --example cancel_latency
set -euo pipefail
cd "$(dirname "$0")/.."
cores=${1:-16,64}
shapes=${2:-iter,join,scope,scope-flat}
seeds=${3:-0,1,2}
export RUSTFLAGS="--cfg forkjoin_shuttle" CARGO_TARGET_DIR=target/shuttle
cargo build --release -q -p sim-tests --example cancel_latency
exec target/shuttle/release/examples/cancel_latency --cores "$cores" --shapes "$shapes" --seeds "$seeds"
