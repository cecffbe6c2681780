//! `build_global`: the first call configures the global pool, a second call is an error.
//! Its own test binary: the global pool is process-wide and can be configured only once.

mod common;
use common::TIMEOUT;

#[test]
fn build_global_twice() {
    forkjoin::ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("fj-global-{i}"))
        .build_global()
        .expect("first build_global succeeds");
    let err = forkjoin::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .expect_err("second build_global must fail");
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized.",
        "rayon's text"
    );

    // The first configuration is the one in use.
    assert_eq!(forkjoin::current_num_threads(), 3);
    let (name, index) = forkjoin::join(
        || std::thread::current().name().map(str::to_owned),
        forkjoin::current_thread_index,
    );
    let name = name.expect("global workers are named");
    assert!(name.starts_with("fj-global-"), "{name}");
    assert!(matches!(index, Some(i) if i < 3));
    let (tx, rx) = std::sync::mpsc::channel();
    forkjoin::spawn(move || tx.send(forkjoin::current_thread_index()).unwrap());
    assert!(rx.recv_timeout(TIMEOUT).unwrap().is_some());
}
