//! What the kernel says a thread is doing: running (or ready to), or blocked. The stall check of a
//! pool's reserve worker (`crate::runtime::registry::reserve`) asks it of each worker thread, so
//! that a pool whose threads are all blocked in user code (a lock, a channel, a barrier) is told
//! apart from one whose threads compute.
//!
//! Linux only: the state letter of `/proc/self/task/TID/stat` (`R` running or runnable; `S`, `D`,
//! `T`, ... not running). Elsewhere nothing is known and the reserve worker is not kept; under the
//! simulation every thread reads as blocked.

/// The kernel's id of the calling thread (0 where unknown).
pub(crate) fn current_tid() -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `gettid` has no preconditions and cannot fail.
        let tid = unsafe { libc::gettid() };
        usize::try_from(tid).unwrap_or(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// Whether [`is_running`] can tell anything, and so whether a pool may keep a reserve worker: on
/// Linux; never under loom; under the simulation, while a test asks for reserve workers
/// (`__sim::keep_reserve_workers`).
#[cfg_attr(forkjoin_loom, allow(dead_code))] // the reserve, its only user, is not under loom
pub(crate) fn observable() -> bool {
    #[cfg(forkjoin_loom)]
    {
        false
    }
    #[cfg(forkjoin_shuttle)]
    {
        super::sync::sim::reserve_workers()
    }
    #[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
    {
        cfg!(target_os = "linux")
    }
}

/// Under the simulation every thread reads as blocked: the monitor then starts a reserve whenever
/// work waits at two looks, which covers every start a machine could make.
#[cfg(forkjoin_shuttle)]
pub(crate) fn is_running(_tid: usize) -> Option<bool> {
    Some(false)
}

/// True if thread `tid` of this process is running or runnable, false if it is blocked or
/// stopped, `None` if unknown (no such thread, no `/proc`, or not Linux). Not built under loom,
/// where no reserve worker is kept.
#[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
pub(crate) fn is_running(tid: usize) -> Option<bool> {
    if tid == 0 || !cfg!(target_os = "linux") {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
    state_of(&stat).map(|state| state == 'R')
}

/// The state letter of a `stat` line: the first field after the command name, which is in
/// parentheses and may itself hold spaces and parentheses (hence the last `)`).
#[cfg(not(any(forkjoin_loom, forkjoin_shuttle)))]
fn state_of(stat: &str) -> Option<char> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.trim_start().chars().next()
}

#[cfg(all(test, not(any(forkjoin_loom, forkjoin_shuttle))))]
mod tests {
    use super::*;

    #[test]
    fn the_state_follows_the_command_name_whatever_it_holds() {
        assert_eq!(state_of("42 (worker) S 1 2 3"), Some('S'));
        assert_eq!(state_of("42 (a) b) R 1 2 3"), Some('R'));
        assert_eq!(state_of("42 (no state"), None);
        assert_eq!(state_of(""), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_calling_thread_runs_and_a_blocked_one_does_not() {
        assert_eq!(is_running(current_tid()), Some(true));
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let blocked = std::thread::spawn(move || {
            tx.send(current_tid()).unwrap();
            done_rx.recv().unwrap();
        });
        let tid = rx.recv().unwrap();
        // The thread blocks in `recv` at some point after it sent its id; wait for the kernel to
        // say so (bounded: a watchdog, not a timing assumption).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while is_running(tid) != Some(false) {
            assert!(std::time::Instant::now() < deadline, "never seen blocked");
            std::thread::yield_now();
        }
        done_tx.send(()).unwrap();
        blocked.join().unwrap();
        assert_eq!(is_running(0), None);
    }
}
