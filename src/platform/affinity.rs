//! CPU affinity: which CPUs the process may run on, and pinning the calling thread to one of them
//! (for [`ThreadPoolBuilder::pin_threads`](crate::ThreadPoolBuilder::pin_threads)).
//!
//! Linux only (`sched_getaffinity` / `sched_setaffinity` through `libc`); elsewhere both functions
//! return an [`io::ErrorKind::Unsupported`] error and the builder refuses to pin. CPUs are numbered
//! as the kernel numbers them, below [`CPU_CAPACITY`] (the size of a `cpu_set_t`, 1024 with glibc).

use std::io;

/// How many CPUs a `cpu_set_t` can name; higher-numbered CPUs cannot be pinned to.
#[cfg(target_os = "linux")]
pub(crate) const CPU_CAPACITY: usize = 8 * std::mem::size_of::<libc::cpu_set_t>();

/// The CPUs the process may run on, in ascending order.
///
/// This is the affinity mask of the process's main thread (the thread whose id is the process id):
/// what `taskset` or a cgroup cpuset allows, and what every thread inherits unless it changes its own.
/// The process's rather than the calling thread's, so that a pool built from a pinned worker of
/// another pool still spreads over every allowed CPU.
#[cfg(target_os = "linux")]
pub(crate) fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: `cpu_set_t` is a plain array of integers, for which all-zero bits are a valid value
    // (the empty set).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a live, writable `cpu_set_t` and the size passed is its size; `getpid` has no
    // preconditions and cannot fail.
    let rc = unsafe {
        libc::sched_getaffinity(
            libc::getpid(),
            std::mem::size_of::<libc::cpu_set_t>(),
            &mut set,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((0..CPU_CAPACITY)
        // SAFETY: `cpu < CPU_CAPACITY`, so the bit `CPU_ISSET` reads lies inside `set`.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// Restricts the calling thread to CPU `cpu` (`sched_setaffinity` on the thread itself).
///
/// Fails if `cpu` is not below [`CPU_CAPACITY`], or if the kernel refuses (the CPU is offline or not
/// in the thread's cpuset: `EINVAL`; a sandbox forbids the call: `EPERM`).
#[cfg(target_os = "linux")]
pub(crate) fn pin_current_thread(cpu: usize) -> io::Result<()> {
    if cpu >= CPU_CAPACITY {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("CPU {cpu} is beyond the {CPU_CAPACITY} CPUs a cpu_set_t can name"),
        ));
    }
    // SAFETY: as in `allowed_cpus`, all-zero is the valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu < CPU_CAPACITY` (checked above), so the bit `CPU_SET` writes lies inside `set`.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a live `cpu_set_t` and the size passed is its size; pid 0 names the calling
    // thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Not available outside Linux.
#[cfg(not(target_os = "linux"))]
pub(crate) fn allowed_cpus() -> io::Result<Vec<usize>> {
    Err(unsupported())
}

/// Not available outside Linux.
#[cfg(not(target_os = "linux"))]
pub(crate) fn pin_current_thread(_cpu: usize) -> io::Result<()> {
    Err(unsupported())
}

#[cfg(not(target_os = "linux"))]
fn unsupported() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "thread pinning is supported on Linux only",
    )
}

#[cfg(all(test, target_os = "linux", not(forkjoin_loom)))]
mod tests {
    use super::*;

    /// Parses a kernel CPU list such as `0-3,8,10-11`.
    fn parse_cpu_list(list: &str) -> Vec<usize> {
        let mut cpus = Vec::new();
        for part in list.trim().split(',').filter(|p| !p.is_empty()) {
            match part.split_once('-') {
                Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
                None => cpus.push(part.parse().unwrap()),
            }
        }
        cpus
    }

    fn status_cpus(path: &str) -> Vec<usize> {
        let status = std::fs::read_to_string(path).unwrap();
        let list = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .expect("Cpus_allowed_list in status");
        parse_cpu_list(list)
    }

    #[test]
    fn allowed_cpus_is_what_proc_reports_for_the_process() {
        let cpus = allowed_cpus().unwrap();
        assert!(!cpus.is_empty());
        assert_eq!(cpus, status_cpus("/proc/self/status"));
    }

    #[test]
    fn a_pinned_thread_may_run_on_that_cpu_only() {
        let cpus = allowed_cpus().unwrap();
        let last = *cpus.last().unwrap();
        // A fresh thread, so the test harness's thread keeps its mask.
        let seen = std::thread::spawn(move || {
            pin_current_thread(last).unwrap();
            status_cpus("/proc/thread-self/status")
        })
        .join()
        .unwrap();
        assert_eq!(seen, [last]);
    }

    #[test]
    fn pinning_to_a_cpu_outside_the_allowed_set_fails() {
        let cpus = allowed_cpus().unwrap();
        assert!(pin_current_thread(CPU_CAPACITY)
            .unwrap_err()
            .to_string()
            .contains("beyond"));
        // The highest CPU a set can name is offline or forbidden on any smaller machine: the kernel
        // refuses it (EINVAL), and the thread keeps its mask.
        if let Some(absent) = (0..CPU_CAPACITY).rev().find(|c| !cpus.contains(c)) {
            let r = std::thread::spawn(move || {
                let r = pin_current_thread(absent).map_err(|e| e.raw_os_error());
                (r, status_cpus("/proc/thread-self/status"))
            })
            .join()
            .unwrap();
            assert_eq!(r, (Err(Some(libc::EINVAL)), cpus));
        }
    }
}
