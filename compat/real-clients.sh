#!/usr/bin/env bash
# Runs the rayon tests of real crates that call rayon, as published (indexmap, hashbrown, dashmap),
# with their whole dependency tree's rayon and rayon-core patched onto forkjoin (compat/rayon and
# compat/rayon-core, through [patch.crates-io], as a user would). Each crate's published source is
# copied from the cargo registry into target/real-clients/<crate>, its manifest gets the two patch
# lines, the lockfile is checked to hold no rayon but the patched one, and its rayon tests run.
#
#   compat/real-clients.sh                  # against forkjoin; exits 1 if a test fails
#   compat/real-clients.sh --against-rayon  # the same tests against rayon itself (checks the harness)
#
# Prints one line per crate: "real-clients: CRATE VERSION: N passed, M failed".
set -euo pipefail

# crate, exact version, the cargo test arguments that select its rayon tests.
CLIENTS=(
    "indexmap 2.14.0 --lib rayon"
    "hashbrown 0.17.2 --test rayon"
    "dashmap 6.2.1 --lib rayon"
)

against_rayon=false
case "${1:-}" in
    "") ;;
    --against-rayon) against_rayon=true ;;
    *) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/target/real-clients"
mkdir -p "$work"
export CARGO_TARGET_DIR="$work/target"
# Line tables keep backtraces; full debug info and incremental caches fill a CI disk.
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=line-tables-only CARGO_PROFILE_TEST_DEBUG=line-tables-only

# Put the published sources into the registry cache: a throwaway package that depends on them.
fetch="$work/fetch"
mkdir -p "$fetch/src"
: > "$fetch/src/lib.rs"
{
    printf '[package]\nname = "real-clients-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n'
    printf '[dependencies]\n'
    for client in "${CLIENTS[@]}"; do
        read -r name version _ <<<"$client"
        printf '%s = "=%s"\n' "$name" "$version"
    done
    printf '\n[workspace]\n'
} > "$fetch/Cargo.toml"
cargo fetch --manifest-path "$fetch/Cargo.toml" --quiet
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"

failed_any=false
for client in "${CLIENTS[@]}"; do
    read -r name version test_args <<<"$client"
    src=$(ls -d "$registry"/*/"$name-$version" | head -n 1)
    dir="$work/$name"
    rm -rf "$dir"
    cp -r "$src" "$dir"
    rm -f "$dir/Cargo.lock"
    # Its own workspace (it lies inside forkjoin's), and the patch.
    printf '\n[workspace]\n' >> "$dir/Cargo.toml"
    if ! $against_rayon; then
        printf '\n[patch.crates-io]\nrayon = { path = "%s" }\nrayon-core = { path = "%s" }\n' \
            "$root/compat/rayon" "$root/compat/rayon-core" >> "$dir/Cargo.toml"
    fi
    cargo generate-lockfile --manifest-path "$dir/Cargo.toml" --quiet
    # Every rayon and rayon-core in the tree must be the patched one (a path crate: no source).
    from_registry=$(awk '/^\[\[package\]\]/{n=""} /^name = /{n=$3} /^source = "registry/{ if (n=="\"rayon\"" || n=="\"rayon-core\"") print n }' "$dir/Cargo.lock")
    if ! $against_rayon && [ -n "$from_registry" ]; then
        echo "real-clients: $name $version: rayon from the registry left in the tree: $from_registry"
        failed_any=true
        continue
    fi
    log="$work/$name.log"
    # shellcheck disable=SC2086 # the test selection is a list of arguments
    if cargo test --manifest-path "$dir/Cargo.toml" --features rayon $test_args >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed_any=true
    fi
    passed=$(awk '/^test result:/{p+=$4} END{print p+0}' "$log")
    failed=$(awk '/^test result:/{f+=$6} END{print f+0}' "$log")
    echo "real-clients: $name $version: $passed passed, $failed failed ($status; log $log)"
    if [ "$status" = FAILED ] && [ "$passed" = 0 ]; then
        grep -m 20 -E '^error' "$log" || true
    fi
done
$failed_any && exit 1
exit 0
