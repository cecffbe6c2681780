//! `FORKJOIN_NUM_THREADS` and rayon's `RAYON_NUM_THREADS` (read when the former is unset): valid,
//! unparsable and zero values, and which one wins. Each case runs in a child process (this test
//! binary re-executed on one ignored "probe" test) so the environment never races other tests.

mod common;
use common::TIMEOUT;

const VAR: &str = "FORKJOIN_NUM_THREADS";
const RAYON_VAR: &str = "RAYON_NUM_THREADS";
/// Set only in the child processes: the probes do nothing in a normal `--ignored` run.
const PROBE: &str = "FORKJOIN_TEST_ENV_PROBE";
/// Tells a probe which variable its error must name.
const EXPECT_VAR: &str = "FORKJOIN_TEST_EXPECT_VAR";

/// Runs probe test `name` in a child with `VAR=value` (and `RAYON_NUM_THREADS` unset); returns its
/// stderr; fails if the child failed.
fn run_probe(name: &str, value: &str) -> String {
    run_probe_with(name, Some(value), None)
}

/// Runs probe test `name` in a child with the two variables set to these values (`None`: unset).
fn run_probe_with(name: &str, forkjoin: Option<&str>, rayon: Option<&str>) -> String {
    let mut cmd = common::probe_command(name, PROBE);
    cmd.env(EXPECT_VAR, if forkjoin.is_some() { VAR } else { RAYON_VAR });
    for (var, value) in [(VAR, forkjoin), (RAYON_VAR, rayon)] {
        match value {
            Some(v) => cmd.env(var, v),
            None => cmd.env_remove(var),
        };
    }
    let value = format!("{VAR}={forkjoin:?} {RAYON_VAR}={rayon:?}");
    common::run_probe_command(cmd, &format!("{name} with {value}"))
}

fn probing() -> bool {
    std::env::var_os(PROBE).is_some()
}

fn default_threads() -> usize {
    std::thread::available_parallelism().unwrap().get()
}

#[test]
fn invalid_values_are_build_errors_naming_the_variable() {
    for value in ["abc", "0", "-3", "", "2.5", "99999999999999999999999"] {
        run_probe("probe_build_rejects", value);
        run_probe("probe_build_global_rejects", value);
    }
}

#[test]
fn invalid_value_for_the_implicit_global_pool_falls_back_and_warns_once() {
    for value in ["abc", "0"] {
        let stderr = run_probe("probe_implicit_global_falls_back", value);
        let warnings = stderr.lines().filter(|l| l.contains(VAR)).count();
        assert_eq!(
            warnings, 1,
            "one warning naming {VAR} for {value:?}; stderr:\n{stderr}"
        );
    }
}

#[test]
fn a_valid_value_sets_the_default_thread_count() {
    run_probe("probe_valid_value_is_used", "3");
}

#[test]
fn rayon_num_threads_is_read_when_forkjoin_num_threads_is_unset() {
    run_probe_with("probe_valid_value_is_used", None, Some("3"));
}

#[test]
fn forkjoin_num_threads_wins_over_rayon_num_threads() {
    run_probe_with("probe_valid_value_is_used", Some("3"), Some("5"));
    // The rayon name is not even parsed then.
    run_probe_with("probe_valid_value_is_used", Some("3"), Some("abc"));
}

#[test]
fn invalid_rayon_num_threads_is_a_build_error_naming_it() {
    for value in ["abc", "0", ""] {
        run_probe_with("probe_build_rejects", None, Some(value));
        run_probe_with("probe_build_global_rejects", None, Some(value));
    }
    // A bad forkjoin value is named even when a good rayon one is set.
    run_probe_with("probe_build_rejects", Some("x"), Some("3"));
}

#[test]
fn a_count_above_the_maximum_is_an_error_saying_so() {
    let too_many = (forkjoin::max_num_threads() + 1).to_string();
    run_probe_with("probe_build_rejects", None, Some(&too_many));
}

#[test]
#[ignore = "probe: run in a child process by the tests above"]
fn probe_build_rejects() {
    if !probing() {
        return;
    }
    let var = std::env::var(EXPECT_VAR).unwrap();
    let value = std::env::var(&var).unwrap();
    let err = match forkjoin::ThreadPoolBuilder::new().build() {
        Err(e) => e,
        Ok(p) => panic!(
            "{var}={value:?} built a pool of {} threads",
            p.current_num_threads()
        ),
    };
    let msg = err.to_string();
    assert!(msg.contains(&var), "error must name {var}: {msg:?}");
    // An explicit thread count does not consult the variable.
    let p = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("explicit count");
    assert_eq!(p.current_num_threads(), 2);
}

#[test]
#[ignore = "probe: run in a child process by the tests above"]
fn probe_build_global_rejects() {
    if !probing() {
        return;
    }
    let var = std::env::var(EXPECT_VAR).unwrap();
    let err = forkjoin::ThreadPoolBuilder::new()
        .build_global()
        .expect_err("invalid value must fail build_global");
    assert!(
        err.to_string().contains(&var),
        "error must name {var}: {err}"
    );
}

#[test]
#[ignore = "probe: run in a child process by the tests above"]
fn probe_implicit_global_falls_back() {
    if !probing() {
        return;
    }
    let (a, b) = forkjoin::join(forkjoin::current_num_threads, || 1);
    assert_eq!((a, b), (default_threads(), 1));
    assert_eq!(forkjoin::current_num_threads(), default_threads());
    let (tx, rx) = std::sync::mpsc::channel();
    forkjoin::spawn(move || tx.send(()).unwrap());
    rx.recv_timeout(TIMEOUT).unwrap();
}

#[test]
#[ignore = "probe: run in a child process by the tests above"]
fn probe_valid_value_is_used() {
    if !probing() {
        return;
    }
    let p = forkjoin::ThreadPoolBuilder::new().build().unwrap();
    assert_eq!(p.current_num_threads(), 3);
    assert_eq!(forkjoin::current_num_threads(), 3, "the global pool too");
    assert_eq!(forkjoin::join(forkjoin::current_num_threads, || 0).0, 3);
}

/// `FORKJOIN_SIBLINGS_MAY_WAIT`: runs probe `name` in a child with it set to `value` (and a
/// global pool of 4 threads).
fn run_siblings_probe(name: &str, value: &str) {
    let mut cmd = common::probe_command(name, PROBE);
    cmd.env(SIBLINGS_VAR, value)
        .env(VAR, "4")
        .env_remove(RAYON_VAR);
    common::run_probe_command(cmd, &format!("{name} with {SIBLINGS_VAR}={value:?}"));
}

const SIBLINGS_VAR: &str = "FORKJOIN_SIBLINGS_MAY_WAIT";

#[test]
fn siblings_may_wait_from_the_environment_reaches_the_global_pool() {
    for value in ["1", "true"] {
        run_siblings_probe("probe_siblings_may_wait_on", value);
    }
}

#[test]
fn an_invalid_siblings_may_wait_is_a_build_error_naming_it() {
    for value in ["yes", "2"] {
        run_siblings_probe("probe_siblings_may_wait_rejects", value);
    }
}

#[test]
#[ignore = "probe: run in a child process by the tests above"]
fn probe_siblings_may_wait_on() {
    if !probing() {
        return;
    }
    // Eight joins deep on the implicit global pool, a waits at a barrier only b can pass: this
    // completes only if the deep join pushed b.
    fn deep(depth: usize) -> u32 {
        if depth == 0 {
            let barrier = std::sync::Barrier::new(2);
            forkjoin::join(|| barrier.wait(), || barrier.wait());
            return 1;
        }
        forkjoin::join(|| deep(depth - 1), || 0).0
    }
    let ran = common::watchdog("a barrier eight joins deep", TIMEOUT, || {
        (0..50).map(|_| deep(8)).sum::<u32>()
    });
    assert_eq!(ran, 50);
}

#[test]
#[ignore = "probe: run in a child process by the tests above"]
fn probe_siblings_may_wait_rejects() {
    if !probing() {
        return;
    }
    let err = forkjoin::ThreadPoolBuilder::new()
        .build()
        .expect_err("an invalid value must fail build");
    assert!(err.to_string().contains(SIBLINGS_VAR), "{err}");
    // The builder's own option does not read the variable.
    let pool = forkjoin::ThreadPoolBuilder::new()
        .siblings_may_wait(false)
        .build()
        .expect("explicit option");
    assert_eq!(pool.install(|| forkjoin::join(|| 1, || 2)), (1, 2));
}
