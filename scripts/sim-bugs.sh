#!/usr/bin/env bash
# The simulation's self-check: runs the simulation once per deliberately broken variant of the
# runtime (the environment variable FORKJOIN_SIM_BUG names it, read by `sync::sim_bug` in the
# shuttle build only, see docs/testing.md) and requires the named simulation to fail with a
# schedule shuttle can replay. Every variant runs on the one simulation build (the same as CI's
# `sim` stage). Exits non-zero if a variant passes (the simulation would have missed a real bug)
# or fails for another reason.
set -euo pipefail
cd "$(dirname "$0")/.."

# variant   test file (a module of the one test binary)   test name   what the simulation sees
cases=(
  "no_wake_on_inject install install_asleep_8"  # every worker asleep, injected work: a deadlock
  "no_wake_on_latch join fib_2"                 # the outside caller never woken: a deadlock
  "steal_without_cas deque deque_4"             # two takers win one item: the count differs
  "bounded_regions locks lock_around_deep_scope_8"  # a wait 70 scopes deep runs an outer item: relock
  "cancel_not_inherited cancel cancel_stolen_b_2"   # a stolen b sums an endless range on: step bound
  "release_held_while_idle cancel cancel_scope_8"   # dropped scope jobs' counts held asleep: deadlock
  "reserve_keeps_running reserve reserve_join_spawn_recv_1"  # a later stall gets no reserve: step bound
  "siblings_inline_joins siblings siblings_barrier_in_a_deep_join_8"  # b of a deep join inline: a waits forever
  "siblings_first_push_only siblings siblings_barrier_across_the_items_8"  # later pushes private, the sleeper untimed: deadlock
  "cap_ignored cap cap_join_tree_8"             # thieves take no place in the cap: more workers inside
  "cap_no_pump cap cap_spawns_8"                # a give-back hands no parked spawn on: a deadlock
  "resize_restart_lost resize resize_8"         # a slot regrown while its thread left stays empty: step bound
  "demanded_split_private max_len max_len_barrier_across_the_items_8"  # a with_max_len piece private while its owner blocks: deadlock
  "deadline_keeps_running deadline deadline_vs_cancel_2"  # an ended timer still marked running: a later deadline never fires, endless work runs on
  "bitmap_bit_after_count install install_two_pools_2"  # a sleeper listed after its count: a waker that counts it misses it, step bound
  "timeout_sleeps_on install blocked_owner_2"   # timeouts never claim a patrol: the blocked owner's private b is never taken, step bound
  "searcher_counted_asleep siblings siblings_barrier_after_the_last_worker_slept_2"  # sleepers count as searchers: publications wake nobody, a deadlock
)

export CARGO_TARGET_DIR=target/shuttle
export RUSTFLAGS="--cfg forkjoin_shuttle"
build_log=$(mktemp)
cargo test --release -p sim-tests --no-run 2>"$build_log" ||
  { echo "sim-bugs: the simulation does not build:"; tail -30 "$build_log"; exit 1; }
rm -f "$build_log"
failed=0
for case in "${cases[@]}"; do
  read -r bug target name <<<"$case"
  log=$(mktemp)
  start=$SECONDS
  if FORKJOIN_SIM_BUG="$bug" cargo test --release -p sim-tests --test sim -- --exact "$target::$name" >"$log" 2>&1; then
    echo "sim-bugs: $bug: $name PASSED, the simulation missed the bug"
    failed=1
  elif grep -q "no such broken variant" "$log"; then
    echo "sim-bugs: $bug is no broken variant of the runtime (see SIM_BUGS in src/platform/sync/sim.rs)"
    failed=1
  elif grep -q "failing schedule" "$log"; then
    # The reason, before the location of the panic (shuttle's own file for a deadlock or the step bound).
    why=$( (grep -m1 -E "deadlocked|assertion|exceeded" "$log" || grep -m1 "panicked at" "$log") | cut -c1-90 || true)
    echo "sim-bugs: $bug: $name failed as required in $((SECONDS - start)) s (${why})"
  else
    echo "sim-bugs: $bug: $name failed without a replayable schedule:"
    tail -20 "$log"
    failed=1
  fi
  rm -f "$log"
done
exit "$failed"
