//! loom models of the region test that waiting workers run before they take a job
//! (`crate::runtime::jobs::region`): a thief that tests a job against a filter before its CAS
//! takes only jobs that pass, each exactly once; and the region table it reads is ordered by the
//! push that published the job, while a reused entry can only fool a test whose CAS then fails.

use crate::deque::{Steal, Worker};
use crate::runtime::jobs::region::{Own, RegionTag, Regions, WaitFor};
use loom::sync::Arc;
use loom::thread;

#[test]
fn a_filtered_thief_takes_only_what_it_accepts_and_each_job_once() {
    // Even items belong to the thief's wait, odd ones do not. The owner pushes while the thief
    // steals with the filter and pops the rest: every item is delivered once, and the thief holds
    // only even ones.
    loom::model(|| {
        let w = Worker::new();
        w.push(0usize);
        let stealer = w.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            for _ in 0..3 {
                // SAFETY: `steal_if` passes the bits of a `usize` slot.
                match stealer.steal_if(|item| unsafe { *item } % 2 == 0) {
                    Some(Steal::Success(v)) => got.push(v),
                    Some(Steal::Retry) => thread::yield_now(),
                    Some(Steal::Empty) | None => break,
                }
            }
            got
        });
        w.push(1);
        w.push(2);
        let mut all: Vec<usize> = std::iter::from_fn(|| w.pop()).collect();
        let stolen = thief.join().unwrap();
        assert!(stolen.iter().all(|v| v % 2 == 0), "stole {stolen:?}");
        all.extend(stolen);
        all.extend(std::iter::from_fn(|| w.pop()));
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2]);
    });
}

#[test]
fn a_reused_region_entry_never_lets_a_foreign_job_through() {
    // Worker 0 opens its level-0 region with key 10 and pushes a job in it (phase 0). If it pops
    // the job back itself, it reopens the same entry with key 20 and pushes another job with the
    // same tag (phase 1). A thief waiting for key 10 may take the phase-0 job, never the phase-1
    // one, though both carry the same tag and it may read the entry while it is rewritten.
    loom::model(|| {
        let regions = Arc::new(Regions::new(1));
        let tag = regions.tag(0, 0);
        let w = Worker::new();
        let stealer = w.stealer();
        let (r, s) = (regions.clone(), stealer);
        let thief = thread::spawn(move || {
            // SAFETY: `steal_if` passes the bits of a `(RegionTag, u8)` slot; only the tag is read.
            let stolen = s.steal_if(|job: *const (RegionTag, u8)| unsafe {
                r.belongs(WaitFor::Key { key: 10, depth: 1 }, 0, (*job).0)
            });
            match stolen {
                Some(Steal::Success((_, phase))) => Some(phase),
                _ => None,
            }
        });
        regions.open(tag, 10, RegionTag::ROOT, Own::default());
        w.push((tag, 0u8));
        let popped = w.pop();
        if popped.is_some() {
            regions.open(tag, 20, RegionTag::ROOT, Own::default());
            w.push((tag, 1u8));
        }
        let stolen = thief.join().unwrap();
        assert_ne!(
            stolen,
            Some(1),
            "a job of region 20 ran in a wait for region 10"
        );
        // Exactly once: the phase-0 job went to the owner or the thief.
        assert!(popped.is_some() != (stolen == Some(0)));
    });
}

#[test]
fn a_region_past_the_first_segment_is_visible_to_a_thief() {
    // The owner nests 65 regions, so the 65th has its entry in a segment allocated just now, and
    // pushes a job created in it. A thief waiting for that region's key that finds the job must
    // accept it: the deque's Release/Acquire orders the new segment and its entry before the job.
    // 65 opens of five words each are more branches than loom's default allows.
    let mut model = loom::model::Builder::new();
    model.max_branches = 4_000;
    model.check(|| {
        let regions = Arc::new(Regions::new(1));
        let w = Worker::new();
        let stealer = w.stealer();
        let r = regions.clone();
        let thief = thread::spawn(move || {
            // SAFETY: `steal_if` passes the bits of a `(RegionTag, u8)` slot; only the tag is read.
            stealer.steal_if(|job: *const (RegionTag, u8)| unsafe {
                r.belongs(
                    WaitFor::Key {
                        key: 1064,
                        depth: 65,
                    },
                    0,
                    (*job).0,
                )
            })
        });
        let mut parent = RegionTag::ROOT;
        for level in 0..65 {
            let tag = regions.tag(0, level);
            regions.open(tag, 1000 + level, parent, Own::default());
            parent = tag;
        }
        w.push((parent, 0u8));
        match thief.join().unwrap() {
            None => panic!("a wait refused a job of its own region"),
            Some(Steal::Success(_)) => assert!(w.pop().is_none()),
            Some(Steal::Empty) | Some(Steal::Retry) => assert!(w.pop().is_some()),
        }
    });
}
