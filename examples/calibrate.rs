//! Measures, on this machine, the costs the virtual-time simulator charges (`docs/testing.md`,
//! "Predicted scaling"): atomic loads, stores and read-modify-writes with and without a second core
//! on the cache line, `SeqCst` fences, `membarrier(PRIVATE_EXPEDITED)` (for the caller and for a
//! thread it interrupts), futex wake-to-run latency and the wake call itself, `sched_yield`, a
//! spin-loop hint, a read of the runtime's clock, and unwinding (a raise caught at once, and per frame unwound: plain frames with
//! a destructor, of two sizes, and the frames of a recursion of forkjoin `join`s stopped by a
//! cancellation). Real threads and `std` atomics; Linux only (futex, membarrier).
//!
//! Run: `cargo run --release --example calibrate [-- --out FILE]` (about ten seconds). Each figure is
//! the median of seven runs, so a preemption by other work on a shared machine skews one run, not
//! the figure. With `--out`, the same lines also go to FILE, the machine's costs file
//! (`docs/data/costs-*.txt`) that `scripts/predict.sh --costs FILE` charges; the development VM's
//! are the simulator's defaults in `src/platform/sync/sim/costs.rs`.

#[cfg(target_os = "linux")]
mod linux {
    use std::hint::black_box;
    use std::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, Ordering};
    use std::sync::{Arc, Barrier};
    use std::thread;
    use std::time::{Duration, Instant};

    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
    const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

    /// The median of seven runs of `f`, each returning nanoseconds per operation.
    fn median(mut f: impl FnMut() -> f64) -> f64 {
        let mut v: Vec<f64> = (0..7).map(|_| f()).collect();
        v.sort_by(f64::total_cmp);
        v[3]
    }

    fn per_op(ops: u64, f: impl FnOnce()) -> f64 {
        let start = Instant::now();
        f();
        start.elapsed().as_nanos() as f64 / ops as f64
    }

    fn load() -> f64 {
        let a = AtomicU64::new(1);
        const N: u64 = 20_000_000;
        per_op(N, || {
            let mut s = 0;
            for _ in 0..N {
                s += black_box(&a).load(Ordering::Acquire);
            }
            black_box(s);
        })
    }

    fn store() -> f64 {
        let a = AtomicU64::new(1);
        const N: u64 = 20_000_000;
        per_op(N, || {
            for i in 0..N {
                black_box(&a).store(i, Ordering::Release);
            }
        })
    }

    fn rmw() -> f64 {
        let a = AtomicU64::new(0);
        const N: u64 = 10_000_000;
        per_op(N, || {
            for _ in 0..N {
                black_box(&a).fetch_add(1, Ordering::AcqRel);
            }
        })
    }

    fn fence_seqcst() -> f64 {
        let a = AtomicU64::new(0);
        const N: u64 = 10_000_000;
        per_op(N, || {
            for i in 0..N {
                black_box(&a).store(i, Ordering::Relaxed);
                fence(Ordering::SeqCst);
            }
        })
    }

    /// The runtime's clock (`platform::clock::ticks`): the time-stamp counter on x86-64, which a
    /// hypervisor may make dearer; `Instant` elsewhere.
    fn clock_read() -> f64 {
        #[cfg(target_arch = "x86_64")]
        fn ticks() -> u64 {
            // SAFETY: `rdtsc` exists on every x86-64 CPU and has no preconditions.
            unsafe { core::arch::x86_64::_rdtsc() }
        }
        #[cfg(not(target_arch = "x86_64"))]
        fn ticks() -> u64 {
            use std::sync::OnceLock;
            static EPOCH: OnceLock<Instant> = OnceLock::new();
            EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
        }
        const N: u64 = 5_000_000;
        per_op(N, || {
            let mut s = 0u64;
            for _ in 0..N {
                s = s.wrapping_add(ticks());
            }
            black_box(s);
        })
    }

    fn spin() -> f64 {
        const N: u64 = 2_000_000;
        per_op(N, || {
            for _ in 0..N {
                std::hint::spin_loop();
            }
        })
    }

    fn sched_yield() -> f64 {
        const N: u64 = 200_000;
        per_op(N, || {
            for _ in 0..N {
                thread::yield_now();
            }
        })
    }

    /// Two threads take turns incrementing one counter (each waits for its parity): half a round
    /// trip is one transfer of the cache line to the other core plus the RMW.
    fn ping_pong() -> f64 {
        const N: u64 = 1_000_000;
        let a = Arc::new(AtomicU64::new(0));
        let b = a.clone();
        let other = thread::spawn(move || {
            for i in 0..N {
                while b.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                b.fetch_add(1, Ordering::AcqRel);
            }
        });
        let t = per_op(2 * N, || {
            for i in 0..N {
                while a.load(Ordering::Acquire) != 2 * i {
                    std::hint::spin_loop();
                }
                a.fetch_add(1, Ordering::AcqRel);
            }
        });
        other.join().unwrap();
        t
    }

    /// Two threads hammer one counter with `fetch_add` at once: the time per operation each sees.
    fn contended_rmw() -> f64 {
        const N: u64 = 5_000_000;
        let a = Arc::new(AtomicU64::new(0));
        let go = Arc::new(Barrier::new(2));
        let (b, go2) = (a.clone(), go.clone());
        let other = thread::spawn(move || {
            go2.wait();
            for _ in 0..N {
                b.fetch_add(1, Ordering::AcqRel);
            }
        });
        go.wait();
        let t = per_op(N, || {
            for _ in 0..N {
                a.fetch_add(1, Ordering::AcqRel);
            }
        });
        other.join().unwrap();
        t
    }

    fn membarrier(cmd: libc::c_int) -> libc::c_long {
        // SAFETY: a plain syscall with integer arguments; failure is reported through the result.
        unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0, 0) }
    }

    /// The caller's cost of one `membarrier(PRIVATE_EXPEDITED)` while another thread of the process
    /// runs (so there is a CPU to interrupt), and the time that thread loses per barrier: its
    /// fixed loop is timed with and without a stream of barriers.
    fn membarrier_costs() -> Option<(f64, f64)> {
        if membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0 {
            return None;
        }
        let victim_loop = |stop: &AtomicBool| {
            let start = Instant::now();
            let mut x = 0u64;
            for i in 0..200_000_000u64 {
                x = black_box(x.wrapping_mul(31).wrapping_add(i));
                if i % 1_000_000 == 0 && stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            black_box(x);
            start.elapsed()
        };
        let quiet = median(|| victim_loop(&AtomicBool::new(false)).as_nanos() as f64);
        let mut caller = Vec::new();
        let mut lost = Vec::new();
        for _ in 0..7 {
            let done = Arc::new(AtomicBool::new(false));
            let d = done.clone();
            let victim = thread::spawn(move || {
                let t = victim_loop(&AtomicBool::new(false));
                d.store(true, Ordering::Release);
                t
            });
            let mut calls = 0u64;
            let start = Instant::now();
            while !done.load(Ordering::Acquire) {
                membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
                calls += 1;
            }
            caller.push(start.elapsed().as_nanos() as f64 / calls.max(1) as f64);
            let noisy = victim.join().unwrap().as_nanos() as f64;
            lost.push(((noisy - quiet) / calls.max(1) as f64).max(0.0));
        }
        caller.sort_by(f64::total_cmp);
        lost.sort_by(f64::total_cmp);
        Some((caller[3], lost[3]))
    }

    fn futex_wait(word: &AtomicU32, expected: u32) {
        // SAFETY: FUTEX_WAIT reads the u32 at a valid address borrowed for the call; no timeout.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                expected,
                std::ptr::null::<libc::timespec>(),
            );
        }
    }

    fn futex_wake(word: &AtomicU32) -> Duration {
        let start = Instant::now();
        // SAFETY: FUTEX_WAKE uses the address only as a key.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                1,
            );
        }
        start.elapsed()
    }

    /// Two threads that only ever sleep on a futex take turns waking each other: half a round trip
    /// is one wake-to-run latency (the waker's call, the scheduler, the sleeper's return). Also
    /// returns the waker's own time in `FUTEX_WAKE`.
    fn futex_ping_pong() -> (f64, f64) {
        const N: u32 = 20_000;
        let words = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
        let w = words.clone();
        let other = thread::spawn(move || {
            for i in 1..=N {
                while w[1].load(Ordering::Acquire) != i {
                    futex_wait(&w[1], i - 1);
                }
                w[0].store(i, Ordering::Release);
                futex_wake(&w[0]);
            }
        });
        let mut wake_time = Duration::ZERO;
        let t = per_op(2 * N as u64, || {
            for i in 1..=N {
                words[1].store(i, Ordering::Release);
                wake_time += futex_wake(&words[1]);
                while words[0].load(Ordering::Acquire) != i {
                    futex_wait(&words[0], i - 1);
                }
            }
        });
        other.join().unwrap();
        (t, wake_time.as_nanos() as f64 / N as f64)
    }

    /// A frame of the unwinding measurement: a destructor to run, like the runtime's join guards.
    struct Guard(u64);

    impl Drop for Guard {
        fn drop(&mut self) {
            black_box(self.0);
        }
    }

    /// Recurses `depth` frames, each with a guard and `WORDS` words of locals, then resumes a
    /// boxed payload.
    #[inline(never)]
    fn unwind_from<const WORDS: usize>(depth: u32) -> u64 {
        let guard = Guard(depth as u64);
        let mut locals = [0u64; WORDS];
        black_box(&mut locals);
        if depth == 0 {
            std::panic::resume_unwind(Box::new(0u32));
        }
        let r = unwind_from::<WORDS>(black_box(depth - 1)) + 1;
        black_box(&guard);
        black_box(&locals);
        r
    }

    /// One unwinding from `depth` frames of `WORDS` words down, caught at once, in ns.
    fn unwinding<const WORDS: usize>(depth: u32) -> f64 {
        const N: u64 = 20_000;
        per_op(N, || {
            for _ in 0..N {
                let r = std::panic::catch_unwind(|| unwind_from::<WORDS>(depth));
                black_box(r.is_err());
            }
        })
    }

    /// Recurses `depth` frames, each a `join` whose a recurses, then cancels `token` and joins
    /// until a join stops: the frames a cancelled recursion of joins unwinds (on a pool of one
    /// thread every join runs inline, a landing pad in the caller's frame).
    #[inline(never)]
    fn join_from(depth: u32, token: &forkjoin::CancelToken) -> u64 {
        if depth == 0 {
            token.cancel();
            // A recursion of inline joins meets a boundary at least every 64 joins.
            return (0..65)
                .map(|_| forkjoin::join(|| 1, || 1))
                .map(|(a, b)| a + b)
                .sum();
        }
        let (a, b) = forkjoin::join(|| join_from(black_box(depth - 1), token), || black_box(1));
        a + b
    }

    /// One cancellation of a recursion of joins `depth` frames deep, caught by `cancellable` on a
    /// pool of one thread, in ns.
    fn join_unwinding(pool: &forkjoin::ThreadPool, depth: u32) -> f64 {
        const N: u64 = 5_000;
        pool.install(|| {
            per_op(N, || {
                for _ in 0..N {
                    let token = forkjoin::CancelToken::new();
                    let r = forkjoin::cancellable(&token, || join_from(depth, &token));
                    black_box(r.is_err());
                }
            })
        })
    }

    pub fn main() {
        let out = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
            [] => None,
            [flag, file] if flag == "--out" => Some(file.clone()),
            _ => {
                eprintln!("usage: calibrate [--out FILE]");
                std::process::exit(2);
            }
        };
        // Every line printed, for the costs file.
        let lines = std::cell::RefCell::new(Vec::new());
        let say = |line: String| {
            println!("{line}");
            lines.borrow_mut().push(line);
        };
        say(format!(
            "calibrate: {} CPUs",
            thread::available_parallelism().map_or(0, |n| n.get())
        ));
        let row = |name: &str, ns: f64| say(format!("calibrate: {name:<28} {ns:>10.1} ns"));
        row("load (own line)", median(load));
        row("store (own line)", median(store));
        row("rmw (own line)", median(rmw));
        row("rmw (2 cores hammering)", median(contended_rmw));
        row("line transfer (ping-pong)", median(ping_pong));
        row("fence SeqCst (+ store)", median(fence_seqcst));
        row("spin_loop hint", median(spin));
        row("sched_yield", median(sched_yield));
        match membarrier_costs() {
            Some((caller, lost)) => {
                row("membarrier (caller)", caller);
                row("membarrier (other thread)", lost);
            }
            None => say("calibrate: membarrier registration failed".to_string()),
        }
        let mut wake = Vec::new();
        let latency = median(|| {
            let (latency, w) = futex_ping_pong();
            wake.push(w);
            latency
        });
        wake.sort_by(f64::total_cmp);
        row("futex wake-to-run", latency);
        row("futex wake call (waker)", wake[wake.len() / 2]);
        const DEPTH: u32 = 46;
        let raise = median(|| unwinding::<1>(0));
        row("unwind raise (caught at once)", raise);
        let per_frame =
            |unwinding: fn(u32) -> f64| (median(|| unwinding(DEPTH)) - raise) / f64::from(DEPTH);
        row("unwind per frame", per_frame(unwinding::<1>));
        row("  the same, 384 bytes more", per_frame(unwinding::<48>));
        let pool = forkjoin::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a pool of one thread");
        let shallow = median(|| join_unwinding(&pool, 0));
        let deep = median(|| join_unwinding(&pool, DEPTH));
        row("  a join's frame", (deep - shallow) / f64::from(DEPTH));
        row("clock read (ticks)", median(clock_read));
        if let Some(file) = out {
            let text = lines.into_inner().join("\n") + "\n";
            if let Err(e) = std::fs::write(&file, text) {
                eprintln!("calibrate: cannot write {file}: {e}");
                std::process::exit(1);
            }
        }
    }
}

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!("calibrate: Linux only (futex, membarrier)");
}
