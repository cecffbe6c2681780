//! `build_global` after the global pool already started (implicitly) is an error.
//! Its own test binary: the global pool is process-wide.

#[test]
fn build_global_after_the_global_pool_started_is_an_error() {
    // Any use of the global pool starts it with the default configuration.
    assert_eq!(forkjoin::join(|| 1, || 2), (1, 2));
    let threads = forkjoin::current_num_threads();
    let err = forkjoin::ThreadPoolBuilder::new()
        .num_threads(threads + 1)
        .build_global()
        .expect_err("the global pool already runs");
    assert!(!err.to_string().is_empty());
    assert_eq!(forkjoin::current_num_threads(), threads, "unchanged");
}
