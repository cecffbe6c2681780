#!/usr/bin/env bash
# Predicted scaling of the suite's shapes (docs/testing.md, "Predicted scaling"): the real pool under
# shuttle in the simulation's timing mode, at virtual core counts, one line per shape and count:
#   predict: SHAPE cores=P time_us=T speedup=S self_speedup=U steals=N (failed F, sleeps Z; seed, steps, real seconds)
#
# usage: scripts/predict.sh [CORES] [SHAPES] [SEEDS] [--costs FILE] [--measured CSV] [--leaf SHAPE=SEQ_PS:PAR_PS]...
#   CORES   comma-separated virtual core counts (default 1,2,4,8,16,64,256)
#   SHAPES  fib,skynet,nqueens,matmul,tree-left,tree-right (default: these), or the field's sizes
#           fib-39,skynet-1e8,nqueens-14,matmul-2048
#   SEEDS   tie-break seeds, one prediction each (default 0; e.g. 0,1,2 shows the spread)
#   --costs FILE     charge another machine's calibration (examples/calibrate.rs --out FILE;
#                    docs/data/costs-*.txt) instead of the development VM's
#   --measured CSV   a scripts/scale.sh run (docs/data/scaling-*.csv): leaves from its 1-thread rows,
#                    and each line compares the prediction with its forkjoin median at that count
# Flags may come before, between or after the positional arguments.
# Exits non-zero only if the build or a simulated run fails, never on the predicted numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
positional=()
flags=()
while (($#)); do
    case "$1" in
    --*)
        (($# >= 2)) || { echo "predict.sh: $1 needs a value" >&2; exit 2; }
        flags+=("$1" "$2")
        shift 2
        ;;
    *)
        positional+=("$1")
        shift
        ;;
    esac
done
cores=${positional[0]:-1,2,4,8,16,64,256}
shapes=${positional[1]:-fib,skynet,nqueens,matmul,tree-left,tree-right}
seeds=${positional[2]:-0}
export RUSTFLAGS="--cfg forkjoin_shuttle" CARGO_TARGET_DIR=target/shuttle
cargo build --release -q -p sim-tests --example predict
exec target/shuttle/release/examples/predict --cores "$cores" --shapes "$shapes" --seeds "$seeds" ${flags[@]+"${flags[@]}"}
