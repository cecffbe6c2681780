#!/usr/bin/env bash
# Times what real crates' users call through rayon, on rayon and on forkjoin: one program
# (compat/real-clients-bench/main.rs) built twice from one source, once on crates.io rayon and once
# with rayon and rayon-core patched onto compat/ (as compat/real-clients.sh patches them), run
# alternately, and prints forkjoin / rayon per workload and thread count.
#
#   compat/real-clients-bench.sh [--rounds R] [--reps N] [--threads "1 2"] [--codegen-units N] [WORKLOAD ...]
#
# Both builds use cargo's default release profile, as a user's crate does (16 codegen units: which
# unit a loop lands in decides what gets inlined into it, docs/iterators.md); `--codegen-units N`
# sets it for both.
#
# Each round runs every workload at every thread count on both builds, in alternating order; each
# run reports the median of N repetitions in one process. The table gives, per row, the median over
# the rounds of each build, their ratio (below 1: forkjoin is faster), and the lowest and highest
# ratio of one round's two runs (how noisy the row is). Exits 1 if the two builds
# disagree on a result. The jwalk rows walk a tree of 50,000 empty files made once under target/.
set -euo pipefail

rounds=3
reps=11
threads="1 2"
codegen_units=""
workloads=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --codegen-units) codegen_units=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) workloads+=("$1"); shift ;;
    esac
done
if [ ${#workloads[@]} -eq 0 ]; then
    workloads=(ndarray-zip ndarray-map-inplace ndarray-axis-sum hashbrown-reduce hashbrown-extend
        dashmap-sum dashmap-extend indexmap-sum indexmap-extend indexmap-sort-keys jwalk jwalk-sorted
        blake3 image-from-par-fn image-pixels-mut faer-matmul)
fi

root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/target/real-clients-bench"
mkdir -p "$work"

# The two builds: the same source and dependencies; the forkjoin one adds the patch.
for build in rayon forkjoin; do
    dir="$work/$build"
    mkdir -p "$dir/src"
    cp "$root/compat/real-clients-bench/main.rs" "$dir/src/main.rs"
    {
        printf '[package]\nname = "real-clients-bench"\nversion = "0.0.0"\nedition = "2021"\n\n'
        printf '[dependencies]\n'
        printf 'rayon = "=1.12.0"\n'
        printf 'ndarray = { version = "=0.17.2", features = ["rayon"] }\n'
        printf 'hashbrown = { version = "=0.17.2", features = ["rayon"] }\n'
        printf 'indexmap = { version = "=2.14.0", features = ["rayon"] }\n'
        printf 'dashmap = { version = "=6.2.1", features = ["rayon"] }\n'
        printf 'jwalk = "=0.9.0"\n'
        printf 'blake3 = { version = "=1.8.7", features = ["rayon"] }\n'
        printf 'image = { version = "=0.25.10", default-features = false, features = ["rayon"] }\n'
        printf 'faer = "=0.24.4"\n'
        if [ -n "$codegen_units" ]; then
            printf '\n[profile.release]\ncodegen-units = %s\n' "$codegen_units"
        fi
        printf '\n[workspace]\n'
        if [ "$build" = forkjoin ]; then
            printf '\n[patch.crates-io]\nrayon = { path = "%s" }\nrayon-core = { path = "%s" }\n' \
                "$root/compat/rayon" "$root/compat/rayon-core"
        fi
    } > "$dir/Cargo.toml"
    echo "real-clients-bench: building the $build build" >&2
    CARGO_TARGET_DIR="$dir/target" cargo build --release --quiet --manifest-path "$dir/Cargo.toml"
done

tree="$work/tree"
if [ ! -d "$tree" ]; then
    echo "real-clients-bench: making the jwalk tree (50,000 files)" >&2
    for a in $(seq 0 9); do
        for b in $(seq 0 9); do
            d="$tree/d$a/e$b"
            mkdir -p "$d"
            (cd "$d" && touch $(seq -f 'f%03g' 0 499))
        done
    done
fi

results="$work/results.txt"
: > "$results"
for round in $(seq 1 "$rounds"); do
    for w in "${workloads[@]}"; do
        for t in $threads; do
            # Alternate which build runs first.
            if [ $((round % 2)) -eq 1 ]; then order="rayon forkjoin"; else order="forkjoin rayon"; fi
            for build in $order; do
                line=$("$work/$build/target/release/real-clients-bench" "$w" "$t" "$reps" "$tree")
                echo "$build $line $round" >> "$results"
            done
        done
    done
    echo "real-clients-bench: round $round of $rounds done" >&2
done

# build workload threads seconds checksum round -> one row per (workload, threads)
awk -v rounds="$rounds" '
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    key = $2 " " $3
    if (!(key in seen)) { seen[key] = 1; order[++rows] = key }
    times[$1, key] = times[$1, key] " " $4
    per_round[$1, key, $6] = $4
    if (($1, key) in sum && sum[$1, key] != $5) bad = bad "\n  " key ": " $1 " results differ between rounds"
    sum[$1, key] = $5
}
END {
    printf "| workload | threads | rayon ms | forkjoin ms | forkjoin ÷ rayon | range over rounds | results |\n"
    printf "| --- | --: | --: | --: | --: | --: | --- |\n"
    for (r = 1; r <= rows; r++) {
        key = order[r]; split(key, k, " ")
        ry = median(times["rayon", key]); fj = median(times["forkjoin", key])
        # The two runs of one round ran side by side: how far the ratio of a round strays.
        lo = ""; hi = ""
        for (i = 1; i <= rounds; i++) {
            q = per_round["forkjoin", key, i] / per_round["rayon", key, i]
            if (lo == "" || q < lo) lo = q
            if (hi == "" || q > hi) hi = q
        }
        same = (sum["rayon", key] == sum["forkjoin", key]) ? "equal" : "DIFFER"
        if (same == "DIFFER") bad = bad "\n  " key ": the builds disagree"
        printf "| %s | %s | %.2f | %.2f | %.2f | %.2f–%.2f | %s |\n", k[1], k[2], ry * 1000, fj * 1000, fj / ry, lo, hi, same
    }
    if (bad != "") { printf "real-clients-bench: %s\n", bad > "/dev/stderr"; exit 1 }
}' "$results"
