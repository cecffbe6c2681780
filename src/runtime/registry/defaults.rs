//! What a pool gets where its builder does not say: its thread count (the environment, else the
//! CPUs the process may use), its capacity for resizes, its threads' stack size, and
//! `siblings_may_wait` from the environment.

use crate::runtime::error::ThreadPoolBuildError;
use crate::runtime::sleep::MAX_THREADS;

/// The stack size of a worker thread when the builder sets none: `RUST_MIN_STACK`, else 2 MiB.
pub(crate) fn default_stack_size() -> usize {
    std::env::var("RUST_MIN_STACK")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(2 << 20)
}

/// Name of the environment variable that sets the default thread count.
pub(crate) const NUM_THREADS_ENV: &str = "FORKJOIN_NUM_THREADS";
/// rayon's name for it, honoured when [`NUM_THREADS_ENV`] is unset, so that a program ported from
/// rayon keeps its configuration.
pub(crate) const RAYON_NUM_THREADS_ENV: &str = "RAYON_NUM_THREADS";

/// The CPUs the process may use: its affinity mask and its cgroup CPU quota
/// (`crate::platform::cpu_limit`), or std's available parallelism where neither can be read.
pub(crate) fn available_parallelism() -> usize {
    crate::platform::cpu_limit::available_cpus()
}

/// How many worker slots a pool of `threads` gets unless its builder says
/// (`ThreadPoolBuilder::resizable_up_to`): room to grow to the CPUs the process may use, or, for
/// a pool that follows the CPU limit, to every CPU of the machine.
pub(crate) fn default_capacity(threads: usize, follows: bool) -> usize {
    let cpus = if follows {
        crate::platform::cpu_limit::machine_cpus()
    } else {
        available_parallelism()
    };
    threads.max(cpus).min(MAX_THREADS)
}

/// `FORKJOIN_NUM_THREADS` if set, else `RAYON_NUM_THREADS` if set (whichever is read: an error if it
/// is not a positive integer, or too large), else the machine's available parallelism.
///
/// rayon ignores an invalid or zero `RAYON_NUM_THREADS`; here it is an error like an invalid
/// `FORKJOIN_NUM_THREADS`, so a typo is not silently a different thread count.
pub(crate) fn default_num_threads() -> Result<usize, ThreadPoolBuildError> {
    let Some((var, raw)) = [NUM_THREADS_ENV, RAYON_NUM_THREADS_ENV]
        .into_iter()
        .find_map(|var| Some((var, std::env::var_os(var)?)))
    else {
        return Ok(available_parallelism().min(MAX_THREADS));
    };
    let text = raw.to_string_lossy();
    match text.trim().parse::<usize>() {
        Ok(n) if n > MAX_THREADS => Err(ThreadPoolBuildError::too_many_threads_in_env(
            var,
            n,
            MAX_THREADS,
        )),
        Ok(n) if n > 0 => Ok(n),
        _ => Err(ThreadPoolBuildError::invalid_env(
            var,
            text.into_owned(),
            "a positive integer thread count",
        )),
    }
}

/// The environment variable that sets
/// [`RegistryConfig::siblings_may_wait`](super::RegistryConfig::siblings_may_wait) for pools built
/// without `ThreadPoolBuilder::siblings_may_wait` (the global pool included), so that a dependency
/// tree switched from rayon through `[patch]` can have it without a code change.
pub(crate) const SIBLINGS_MAY_WAIT_ENV: &str = "FORKJOIN_SIBLINGS_MAY_WAIT";

/// [`SIBLINGS_MAY_WAIT_ENV`]: false if unset or empty, true for `1` or `true`, false for `0` or
/// `false`; `Err(raw value)` otherwise.
pub(crate) fn siblings_may_wait_from_env() -> Result<bool, String> {
    let Some(raw) = std::env::var_os(SIBLINGS_MAY_WAIT_ENV) else {
        return Ok(false);
    };
    let text = raw.to_string_lossy();
    match text.trim() {
        "" | "0" | "false" => Ok(false),
        "1" | "true" => Ok(true),
        _ => Err(text.into_owned()),
    }
}
