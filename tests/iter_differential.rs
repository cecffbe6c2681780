//! Differential test: random chains of parallel adaptors against the same chains of `std::iter`
//! adaptors (or, for the few with no std twin, a sequential model written here), compared exactly.
//!
//! A case is drawn from one seed: a source (a range of any indexed integer type or of `char`s near
//! the ends of its domain, an owned `Vec` or a borrowed slice), up to six indexed adaptors, maybe one
//! adaptor that loses the indices, and a consumer; a pool of 1 to 8 threads (or the global pool).
//! Items are [`Item`]s, values whose every creation and drop a [`Ledger`] records: after each call
//! every item created has been dropped exactly once. Half the cases also inject a panic at one item
//! (a `map` that panics on one value): if that map ran on the value, the call must panic with the
//! injected payload; if it did not (a later `take` or `zip` cut the item off first), the call must
//! return the std result.
//!
//! Chains are built at run time: each adaptor is applied to an erased indexed iterator ([`DynPar`],
//! a boxed producer) and the result erased again, so each adaptor type is compiled once, not once
//! per chain.
//!
//! Runs a few seconds by default; `FORKJOIN_DIFF_SOAK=1` runs a hundred times more cases from a seed
//! taken from the clock (hours; not CI's `FORKJOIN_SOAK`, under which the fixed cases run);
//! `FORKJOIN_DIFF_SEED=<seed>` replays one case (printed on failure).

mod common;
mod iter_common;

use std::cmp::Ordering as CmpOrdering;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use forkjoin::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use forkjoin::prelude::*;
use forkjoin::{ThreadPool, ThreadPoolBuilder};
use iter_common::{payload_message, quiet_expected_panics};
use rand_xoshiro::rand_core::{Rng as _, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

// ---------------------------------------------------------------------------------------------
// Items and their ledger

/// Items created per case above which ids are only counted, not checked one by one.
const LEDGER_IDS: usize = 1 << 17;

/// Every item of one case: how many were created, and which were dropped (a second drop of the
/// same id is recorded as a double drop, not a panic: a panic in `drop` while unwinding aborts).
struct Ledger {
    created: AtomicUsize,
    dropped: AtomicUsize,
    double_drops: AtomicUsize,
    seen: Vec<AtomicU8>,
}

impl Ledger {
    fn new() -> Arc<Ledger> {
        Arc::new(Ledger {
            created: AtomicUsize::new(0),
            dropped: AtomicUsize::new(0),
            double_drops: AtomicUsize::new(0),
            seen: (0..LEDGER_IDS).map(|_| AtomicU8::new(0)).collect(),
        })
    }

    /// Panics unless every item created was dropped exactly once.
    fn check(&self) {
        let created = self.created.load(Ordering::SeqCst);
        let dropped = self.dropped.load(Ordering::SeqCst);
        let doubles = self.double_drops.load(Ordering::SeqCst);
        assert!(
            created == dropped && doubles == 0,
            "items: {created} created, {dropped} dropped, {doubles} dropped twice"
        );
    }
}

/// A value with a counted life.
struct Item {
    v: u64,
    id: usize,
    ledger: Arc<Ledger>,
}

impl Item {
    fn new(v: u64, ledger: &Arc<Ledger>) -> Item {
        let id = ledger.created.fetch_add(1, Ordering::Relaxed);
        Item {
            v,
            id,
            ledger: Arc::clone(ledger),
        }
    }
}

impl Clone for Item {
    fn clone(&self) -> Item {
        Item::new(self.v, &self.ledger)
    }
}

impl Drop for Item {
    fn drop(&mut self) {
        if let Some(flag) = self.ledger.seen.get(self.id) {
            if flag.swap(1, Ordering::Relaxed) != 0 {
                self.ledger.double_drops.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.ledger.dropped.fetch_add(1, Ordering::Relaxed);
    }
}

// ---------------------------------------------------------------------------------------------
// The erased indexed iterator

/// A producer of [`Item`]s behind a box: what lets a chain be built at run time.
trait ErasedProducer<'a>: Send {
    fn split_box(self: Box<Self>, index: usize) -> (Erased<'a>, Erased<'a>);
    fn iter_box(self: Box<Self>) -> Seq<'a>;
    fn min_len_dyn(&self) -> usize;
    fn max_len_dyn(&self) -> usize;
}

type Erased<'a> = Box<dyn ErasedProducer<'a> + 'a>;

impl<'a, P: Producer<Item = Item> + 'a> ErasedProducer<'a> for P {
    fn split_box(self: Box<Self>, index: usize) -> (Erased<'a>, Erased<'a>) {
        let (left, right) = (*self).split_at(index);
        (Box::new(left), Box::new(right))
    }
    fn iter_box(self: Box<Self>) -> Seq<'a> {
        Seq(Box::new((*self).into_iter()))
    }
    fn min_len_dyn(&self) -> usize {
        self.min_len()
    }
    fn max_len_dyn(&self) -> usize {
        self.max_len()
    }
}

/// The sequential iterator of an erased producer. `nth` and `nth_back` go through to the
/// producer's own iterator, so its skipping is what is tested.
trait SeqIter: DoubleEndedIterator<Item = Item> + ExactSizeIterator {}
impl<I: DoubleEndedIterator<Item = Item> + ExactSizeIterator> SeqIter for I {}

struct Seq<'a>(Box<dyn SeqIter + 'a>);

impl Iterator for Seq<'_> {
    type Item = Item;
    fn next(&mut self) -> Option<Item> {
        self.0.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
    fn nth(&mut self, n: usize) -> Option<Item> {
        self.0.nth(n)
    }
}

impl DoubleEndedIterator for Seq<'_> {
    fn next_back(&mut self) -> Option<Item> {
        self.0.next_back()
    }
    fn nth_back(&mut self, n: usize) -> Option<Item> {
        self.0.nth_back(n)
    }
}

impl ExactSizeIterator for Seq<'_> {}

struct DynProducer<'a>(Erased<'a>);

impl<'a> Producer for DynProducer<'a> {
    type Item = Item;
    type IntoIter = Seq<'a>;
    fn into_iter(self) -> Seq<'a> {
        self.0.iter_box()
    }
    fn min_len(&self) -> usize {
        self.0.min_len_dyn()
    }
    fn max_len(&self) -> usize {
        self.0.max_len_dyn()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.0.split_box(index);
        (DynProducer(left), DynProducer(right))
    }
}

/// An indexed parallel iterator over an erased producer.
struct DynPar<'a> {
    producer: DynProducer<'a>,
    len: usize,
}

impl ParallelIterator for DynPar<'_> {
    type Item = Item;
    fn drive_unindexed<C: UnindexedConsumer<Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len)
    }
}

impl IndexedParallelIterator for DynPar<'_> {
    fn len(&self) -> usize {
        self.len
    }
    fn drive<C: Consumer<Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Item>>(self, callback: CB) -> CB::Output {
        callback.callback(self.producer)
    }
}

/// Hands `it`, erased, to `k`.
fn erase<I, K>(it: I, k: K) -> Outcome
where
    I: IndexedParallelIterator<Item = Item>,
    K: for<'b> FnOnce(DynPar<'b>) -> Outcome,
{
    struct Callback<K> {
        len: usize,
        k: K,
    }
    impl<K: for<'b> FnOnce(DynPar<'b>) -> Outcome> ProducerCallback<Item> for Callback<K> {
        type Output = Outcome;
        fn callback<P: Producer<Item = Item>>(self, producer: P) -> Outcome {
            (self.k)(DynPar {
                producer: DynProducer(Box::new(producer)),
                len: self.len,
            })
        }
    }
    let len = it.len();
    it.with_producer(Callback { len, k })
}

// ---------------------------------------------------------------------------------------------
// Cases

/// Where the items come from.
#[derive(Debug, Clone)]
enum Src {
    /// A range of the named type from `start` (as `i128`), `len` items, half-open or inclusive.
    Range {
        ty: Ty,
        start: i128,
        len: usize,
        inclusive: bool,
    },
    /// `char`s from `start`, `len` of them, inclusive.
    Chars { start: char, len: usize },
    /// An owned `Vec` of these values, drained.
    Vec(Vec<u64>),
    /// A slice of these values, cloned.
    Slice(Vec<u64>),
}

#[derive(Debug, Clone, Copy)]
enum Ty {
    U8,
    U16,
    U32,
    U64,
    Usize,
    I8,
    I16,
    I32,
    I64,
    Isize,
}

/// An adaptor that keeps the iterator indexed. Every item stays an `Item`: adaptors that change
/// the item type are followed by a `map` back.
#[derive(Debug, Clone)]
enum IOp {
    /// `v -> mix(v, salt)`; panics on the value `panic_on`.
    Map {
        salt: u64,
        panic_on: Option<u64>,
    },
    Enumerate,
    Skip(usize),
    Take(usize),
    StepBy(usize),
    Rev,
    Chain(Src),
    Zip(Src),
    Interleave(Src),
    InterleaveShortest(Src),
    Chunks(usize),
    FoldChunks(usize),
    WithMinLen(usize),
    WithMaxLen(usize),
    Intersperse(u64),
    Update(u64),
    MapInit(u64),
    PanicFuse,
}

/// An adaptor that loses the indices.
#[derive(Debug, Clone)]
enum UOp {
    Filter(u64),
    FilterMap(u64),
    FlatMap(u64),
    FlatMapIter(u64),
    Positions(u64),
    ChainAfterFilter(u64, Src),
}

/// What consumes the chain; `m` values are moduli of predicates and keys.
#[derive(Debug, Clone)]
enum Term {
    CollectValues,
    CollectItems,
    Sum,
    Count,
    Min,
    Max,
    MinByKey(u64),
    MaxByKey(u64),
    Reduce,
    ReduceWith,
    FoldReduce,
    FindFirst(u64),
    FindLast(u64),
    Any(u64),
    All(u64),
    Partition(u64),
    Unzip,
    // Indexed only:
    PositionFirst(u64),
    PositionLast(u64),
    CollectIntoVec,
    Len,
    /// Compared with the std result, with the value at `at` (if any) changed by `delta`, and the
    /// last `cut` values dropped.
    Cmp {
        at: usize,
        delta: i8,
        cut: usize,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Values(Vec<u64>),
    Wide(u128),
    Size(usize),
    OptValue(Option<u64>),
    OptSize(Option<usize>),
    Bool(bool),
    Pair(Vec<u64>, Vec<u64>),
    Mat(Mat),
    Ord(CmpOrdering),
}

#[derive(Debug, Clone)]
struct Case {
    threads: usize,
    src: Src,
    iops: Vec<IOp>,
    uop: Option<UOp>,
    term: Term,
}

// ---------------------------------------------------------------------------------------------
// The item functions, shared by the parallel run and the model

fn mix(v: u64, salt: u64) -> u64 {
    let mut z = v ^ salt;
    z = (z ^ (z >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^ (z >> 29)
}

fn pair(a: u64, b: u64) -> u64 {
    a.rotate_left(17) ^ b.wrapping_mul(3)
}

fn chunk_value(vs: impl IntoIterator<Item = u64>) -> u64 {
    vs.into_iter()
        .fold(0x1234_5678, |acc, v| acc.wrapping_mul(31).wrapping_add(v))
}

/// A 2×2 matrix over `u64` (wrapping): an associative, non-commutative product, so a reduction
/// in the wrong order gives a different answer.
type Mat = [u64; 4];
const ID: Mat = [1, 0, 0, 1];

fn mat(v: u64) -> Mat {
    [v | 1, 1, v >> 7, 1]
}

fn mul(a: Mat, b: Mat) -> Mat {
    let m = |x: u64, y: u64| x.wrapping_mul(y);
    [
        m(a[0], b[0]).wrapping_add(m(a[1], b[2])),
        m(a[0], b[1]).wrapping_add(m(a[1], b[3])),
        m(a[2], b[0]).wrapping_add(m(a[3], b[2])),
        m(a[2], b[1]).wrapping_add(m(a[3], b[3])),
    ]
}

fn keep(v: u64, m: u64) -> bool {
    v % m != 0
}

fn to_u64(x: i128) -> u64 {
    x as u64
}

const INJECTED: &str = "expected: injected panic (iter_differential)";

/// What the parallel run needs besides the case: the ledger and the injected panic's flag.
struct Cx {
    ledger: Arc<Ledger>,
    fired: AtomicBool,
}

impl Cx {
    fn item(&self, v: u64) -> Item {
        Item::new(v, &self.ledger)
    }
}

// ---------------------------------------------------------------------------------------------
// The model: the same chain on std's iterators over plain values

/// Expands `$m!(T, args...)` for the integer type `T` that `$ty` names.
macro_rules! for_ty {
    ($ty:expr, $m:ident!($($arg:tt)*)) => {
        match $ty {
            Ty::U8 => $m!(u8, $($arg)*),
            Ty::U16 => $m!(u16, $($arg)*),
            Ty::U32 => $m!(u32, $($arg)*),
            Ty::U64 => $m!(u64, $($arg)*),
            Ty::Usize => $m!(usize, $($arg)*),
            Ty::I8 => $m!(i8, $($arg)*),
            Ty::I16 => $m!(i16, $($arg)*),
            Ty::I32 => $m!(i32, $($arg)*),
            Ty::I64 => $m!(i64, $($arg)*),
            Ty::Isize => $m!(isize, $($arg)*),
        }
    };
}

fn ty_bounds(ty: Ty) -> (i128, i128) {
    macro_rules! bounds {
        ($t:ty,) => {
            (<$t>::MIN as i128, <$t>::MAX as i128)
        };
    }
    for_ty!(ty, bounds!())
}

/// The std values of a source, through std's own ranges of the source's type.
fn model_src(src: &Src) -> Vec<u64> {
    macro_rules! std_range {
        ($t:ty, $start:expr, $len:expr, $inclusive:expr) => {{
            let start = $start as $t;
            if $inclusive {
                // `len >= 1` for inclusive sources.
                let last = ($start + $len as i128 - 1) as $t;
                (start..=last).map(|x| to_u64(x as i128)).collect()
            } else {
                let end = ($start + $len as i128) as $t;
                (start..end).map(|x| to_u64(x as i128)).collect()
            }
        }};
    }
    match src {
        Src::Range {
            ty,
            start,
            len,
            inclusive,
        } => for_ty!(ty, std_range!(*start, *len, *inclusive)),
        Src::Chars { start, len } => (*start..=char::MAX).take(*len).map(|c| c as u64).collect(),
        Src::Vec(v) | Src::Slice(v) => v.clone(),
    }
}

fn interleave_model(a: Vec<u64>, b: Vec<u64>, shortest: bool) -> Vec<u64> {
    let (mut a, mut b) = (a.into_iter(), b.into_iter());
    let mut out = Vec::new();
    loop {
        match a.next() {
            Some(x) => out.push(x),
            None if shortest => return out,
            None => {
                out.extend(b);
                return out;
            }
        }
        match b.next() {
            Some(y) => out.push(y),
            None if shortest => return out,
            None => {
                out.extend(a);
                return out;
            }
        }
    }
}

fn model_iop(op: &IOp, v: Vec<u64>) -> Vec<u64> {
    match op {
        IOp::Map { salt, .. } => v.into_iter().map(|x| mix(x, *salt)).collect(),
        IOp::Enumerate => v
            .into_iter()
            .enumerate()
            .map(|(i, x)| pair(i as u64, x))
            .collect(),
        IOp::Skip(n) => v.into_iter().skip(*n).collect(),
        IOp::Take(n) => v.into_iter().take(*n).collect(),
        IOp::StepBy(k) => v.into_iter().step_by(*k).collect(),
        IOp::Rev => v.into_iter().rev().collect(),
        IOp::Chain(s) => v.into_iter().chain(model_src(s)).collect(),
        IOp::Zip(s) => v
            .into_iter()
            .zip(model_src(s))
            .map(|(a, b)| pair(a, b))
            .collect(),
        IOp::Interleave(s) => interleave_model(v, model_src(s), false),
        IOp::InterleaveShortest(s) => interleave_model(v, model_src(s), true),
        IOp::Chunks(k) | IOp::FoldChunks(k) => v
            .chunks(*k)
            .map(|c| chunk_value(c.iter().copied()))
            .collect(),
        IOp::WithMinLen(_) | IOp::WithMaxLen(_) | IOp::PanicFuse => v,
        IOp::Intersperse(sep) => {
            let mut out = Vec::with_capacity(v.len() * 2);
            for (i, x) in v.into_iter().enumerate() {
                if i > 0 {
                    out.push(*sep);
                }
                out.push(x);
            }
            out
        }
        IOp::Update(d) | IOp::MapInit(d) => v.into_iter().map(|x| x.wrapping_add(*d)).collect(),
    }
}

fn flat_len(v: u64, m: u64) -> u64 {
    v % m
}

fn model_uop(op: &UOp, v: Vec<u64>) -> Vec<u64> {
    match op {
        UOp::Filter(m) => v.into_iter().filter(|&x| keep(x, *m)).collect(),
        UOp::FilterMap(m) => v
            .into_iter()
            .filter(|&x| keep(x, *m))
            .map(|x| x.wrapping_mul(5))
            .collect(),
        UOp::FlatMap(m) | UOp::FlatMapIter(m) => v
            .into_iter()
            .flat_map(|x| (0..flat_len(x, *m)).map(move |j| pair(x, j)))
            .collect(),
        UOp::Positions(m) => v
            .into_iter()
            .enumerate()
            .filter(|&(_, x)| keep(x, *m))
            .map(|(i, _)| i as u64)
            .collect(),
        UOp::ChainAfterFilter(m, s) => v
            .into_iter()
            .filter(|&x| keep(x, *m))
            .chain(model_src(s))
            .collect(),
    }
}

fn model_term(term: &Term, v: Vec<u64>) -> Outcome {
    match term {
        Term::CollectValues | Term::CollectItems | Term::CollectIntoVec => Outcome::Values(v),
        Term::Sum => Outcome::Wide(v.iter().map(|&x| x as u128).sum()),
        Term::Count | Term::Len => Outcome::Size(v.len()),
        Term::Min => Outcome::OptValue(v.iter().copied().min()),
        Term::Max => Outcome::OptValue(v.iter().copied().max()),
        Term::MinByKey(m) => Outcome::OptValue(v.iter().copied().min_by_key(|x| x % m)),
        Term::MaxByKey(m) => Outcome::OptValue(v.iter().copied().max_by_key(|x| x % m)),
        Term::Reduce | Term::FoldReduce => Outcome::Mat(v.iter().map(|&x| mat(x)).fold(ID, mul)),
        Term::ReduceWith => Outcome::Mat(v.iter().map(|&x| mat(x)).reduce(mul).unwrap_or(ID)),
        Term::FindFirst(m) => Outcome::OptValue(v.iter().copied().find(|&x| !keep(x, *m))),
        Term::FindLast(m) => Outcome::OptValue(v.iter().copied().rfind(|&x| !keep(x, *m))),
        Term::Any(m) => Outcome::Bool(v.iter().any(|&x| !keep(x, *m))),
        Term::All(m) => Outcome::Bool(v.iter().all(|&x| keep(x, *m))),
        Term::Partition(m) => {
            let (a, b) = v.iter().copied().partition(|&x| keep(x, *m));
            Outcome::Pair(a, b)
        }
        Term::Unzip => Outcome::Pair(v.clone(), v.iter().map(|x| x ^ 1).collect()),
        Term::PositionFirst(m) => Outcome::OptSize(v.iter().position(|&x| !keep(x, *m))),
        Term::PositionLast(m) => Outcome::OptSize(v.iter().rposition(|&x| !keep(x, *m))),
        Term::Cmp { at, delta, cut } => {
            let other = cmp_other(&v, *at, *delta, *cut);
            Outcome::Ord(v.iter().cmp(other.iter()))
        }
    }
}

/// The other side of a `Cmp`: the values with one changed and some cut off the end.
fn cmp_other(v: &[u64], at: usize, delta: i8, cut: usize) -> Vec<u64> {
    let mut other = v.to_vec();
    if let Some(x) = other.get_mut(at) {
        *x = x.wrapping_add_signed(delta as i64);
    }
    other.truncate(other.len().saturating_sub(cut));
    other
}

// ---------------------------------------------------------------------------------------------
// The parallel run

/// Hands the parallel source of `src` (items created in `cx`'s ledger), erased, to `k`.
fn with_src<K>(src: &Src, cx: &Cx, k: K) -> Outcome
where
    K: for<'b> FnOnce(DynPar<'b>) -> Outcome,
{
    macro_rules! par_range {
        ($t:ty, $start:expr, $len:expr, $inclusive:expr) => {{
            let start = $start as $t;
            let item = |x: $t| cx.item(to_u64(x as i128));
            if $inclusive {
                let last = ($start + $len as i128 - 1) as $t;
                erase((start..=last).into_par_iter().map(item), k)
            } else {
                let end = ($start + $len as i128) as $t;
                erase((start..end).into_par_iter().map(item), k)
            }
        }};
    }
    match src {
        Src::Range {
            ty,
            start,
            len,
            inclusive,
        } => for_ty!(ty, par_range!(*start, *len, *inclusive)),
        Src::Chars { start, len } => {
            let last = (*start..=char::MAX).nth(len - 1).expect("len fits");
            erase(
                (*start..=last).into_par_iter().map(|c| cx.item(c as u64)),
                k,
            )
        }
        Src::Vec(v) => {
            let items: Vec<Item> = v.iter().map(|&x| cx.item(x)).collect();
            erase(items.into_par_iter(), k)
        }
        Src::Slice(v) => {
            let items: Vec<Item> = v.iter().map(|&x| cx.item(x)).collect();
            erase(items.par_iter().cloned(), k)
        }
    }
}

fn run_iops(it: DynPar<'_>, ops: &[IOp], case: &Case, cx: &Cx) -> Outcome {
    let Some((op, rest)) = ops.split_first() else {
        return run_tail(it, case, cx);
    };
    let next = |it: DynPar<'_>| run_iops(it, rest, case, cx);
    match op {
        IOp::Map { salt, panic_on } => {
            let (salt, panic_on) = (*salt, *panic_on);
            let f = move |mut x: Item| {
                if Some(x.v) == panic_on {
                    cx.fired.store(true, Ordering::SeqCst);
                    panic!("{INJECTED}");
                }
                x.v = mix(x.v, salt);
                x
            };
            erase(it.map(f), next)
        }
        IOp::Enumerate => erase(
            it.enumerate().map(|(i, mut x)| {
                x.v = pair(i as u64, x.v);
                x
            }),
            next,
        ),
        IOp::Skip(n) => erase(it.skip(*n), next),
        IOp::Take(n) => erase(it.take(*n), next),
        IOp::StepBy(k) => erase(it.step_by(*k), next),
        IOp::Rev => erase(it.rev(), next),
        IOp::Chain(s) => with_src(s, cx, |other| erase(it.chain(other), next)),
        IOp::Zip(s) => with_src(s, cx, |other| {
            erase(
                it.zip(other).map(|(mut a, b)| {
                    a.v = pair(a.v, b.v);
                    a
                }),
                next,
            )
        }),
        IOp::Interleave(s) => with_src(s, cx, |other| erase(it.interleave(other), next)),
        IOp::InterleaveShortest(s) => {
            with_src(s, cx, |other| erase(it.interleave_shortest(other), next))
        }
        IOp::Chunks(k) => erase(
            it.chunks(*k)
                .map(|c| cx.item(chunk_value(c.iter().map(|x| x.v)))),
            next,
        ),
        IOp::FoldChunks(k) => erase(
            it.fold_chunks(
                *k,
                || None,
                |acc: Option<Item>, x| {
                    let prev = acc.map_or(0x1234_5678, |a| a.v);
                    Some(cx.item(prev.wrapping_mul(31).wrapping_add(x.v)))
                },
            )
            // A chunk is never empty, but `panic_fuse` may cut one short after another item's
            // panic: the empty fold stands for it then (and a panic here would replace the
            // injected one).
            .map(|acc| acc.unwrap_or_else(|| cx.item(chunk_value([])))),
            next,
        ),
        IOp::WithMinLen(n) => erase(it.with_min_len(*n), next),
        IOp::WithMaxLen(n) => erase(it.with_max_len(*n), next),
        IOp::Intersperse(sep) => erase(it.intersperse(cx.item(*sep)), next),
        IOp::Update(d) => {
            let d = *d;
            erase(it.update(move |x| x.v = x.v.wrapping_add(d)), next)
        }
        IOp::MapInit(d) => {
            let d = *d;
            erase(
                it.map_init(
                    move || d,
                    |d, mut x| {
                        x.v = x.v.wrapping_add(*d);
                        x
                    },
                ),
                next,
            )
        }
        IOp::PanicFuse => erase(it.panic_fuse(), next),
    }
}

fn run_tail(it: DynPar<'_>, case: &Case, cx: &Cx) -> Outcome {
    let Some(uop) = &case.uop else {
        return match &case.term {
            Term::PositionFirst(m) => {
                let m = *m;
                Outcome::OptSize(it.position_first(move |x| !keep(x.v, m)))
            }
            Term::PositionLast(m) => {
                let m = *m;
                Outcome::OptSize(it.position_last(move |x| !keep(x.v, m)))
            }
            Term::CollectIntoVec => {
                let mut out = Vec::new();
                it.collect_into_vec(&mut out);
                Outcome::Values(out.iter().map(|x| x.v).collect())
            }
            Term::Len => Outcome::Size(it.len()),
            Term::Cmp { at, delta, cut } => {
                // The other side is the model's own values, changed: computed here from a
                // sequential copy of the same chain would be circular, so the case carries it.
                let other = cmp_other(&case_model(case), *at, *delta, *cut);
                Outcome::Ord(it.map(|x| x.v).cmp(other.par_iter().copied()))
            }
            term => run_term(it, term),
        };
    };
    match uop {
        UOp::Filter(m) => {
            let m = *m;
            run_term(it.filter(move |x| keep(x.v, m)), &case.term)
        }
        UOp::FilterMap(m) => {
            let m = *m;
            run_term(
                it.filter_map(move |mut x| {
                    keep(x.v, m).then(|| {
                        x.v = x.v.wrapping_mul(5);
                        x
                    })
                }),
                &case.term,
            )
        }
        UOp::FlatMap(m) => {
            let m = *m;
            run_term(
                it.flat_map(move |x| {
                    let v = x.v;
                    (0..flat_len(v, m))
                        .into_par_iter()
                        .map(move |j| cx.item(pair(v, j)))
                }),
                &case.term,
            )
        }
        UOp::FlatMapIter(m) => {
            let m = *m;
            run_term(
                it.flat_map_iter(move |x| {
                    let v = x.v;
                    (0..flat_len(v, m)).map(move |j| cx.item(pair(v, j)))
                }),
                &case.term,
            )
        }
        UOp::Positions(m) => {
            let m = *m;
            run_term(
                it.positions(move |x| keep(x.v, m))
                    .map(|i| cx.item(i as u64)),
                &case.term,
            )
        }
        UOp::ChainAfterFilter(m, s) => {
            let m = *m;
            with_src(s, cx, |other| {
                run_term(it.filter(move |x| keep(x.v, m)).chain(other), &case.term)
            })
        }
    }
}

fn run_term<I: ParallelIterator<Item = Item>>(it: I, term: &Term) -> Outcome {
    match *term {
        Term::CollectValues => Outcome::Values(it.map(|x| x.v).collect()),
        Term::CollectItems => {
            let items: Vec<Item> = it.collect();
            Outcome::Values(items.iter().map(|x| x.v).collect())
        }
        Term::Sum => Outcome::Wide(it.map(|x| x.v as u128).sum()),
        Term::Count => Outcome::Size(it.count()),
        Term::Min => Outcome::OptValue(it.map(|x| x.v).min()),
        Term::Max => Outcome::OptValue(it.map(|x| x.v).max()),
        Term::MinByKey(m) => Outcome::OptValue(it.min_by_key(|x| x.v % m).map(|x| x.v)),
        Term::MaxByKey(m) => Outcome::OptValue(it.max_by_key(|x| x.v % m).map(|x| x.v)),
        Term::Reduce => Outcome::Mat(it.map(|x| mat(x.v)).reduce(|| ID, mul)),
        Term::ReduceWith => Outcome::Mat(it.map(|x| mat(x.v)).reduce_with(mul).unwrap_or(ID)),
        Term::FoldReduce => Outcome::Mat(
            it.fold(|| ID, |acc, x| mul(acc, mat(x.v)))
                .reduce(|| ID, mul),
        ),
        Term::FindFirst(m) => Outcome::OptValue(it.find_first(|x| !keep(x.v, m)).map(|x| x.v)),
        Term::FindLast(m) => Outcome::OptValue(it.find_last(|x| !keep(x.v, m)).map(|x| x.v)),
        Term::Any(m) => Outcome::Bool(it.any(|x| !keep(x.v, m))),
        Term::All(m) => Outcome::Bool(it.all(|x| keep(x.v, m))),
        Term::Partition(m) => {
            let (a, b): (Vec<u64>, Vec<u64>) = it.map(|x| x.v).partition(|&x| keep(x, m));
            Outcome::Pair(a, b)
        }
        Term::Unzip => {
            let (a, b) = it.map(|x| (x.v, x.v ^ 1)).unzip();
            Outcome::Pair(a, b)
        }
        Term::PositionFirst(_)
        | Term::PositionLast(_)
        | Term::CollectIntoVec
        | Term::Len
        | Term::Cmp { .. } => unreachable!("indexed consumers are drawn only for indexed chains"),
    }
}

// ---------------------------------------------------------------------------------------------
// Drawing cases

struct Rng(Xoshiro256PlusPlus);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }
    fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in `0..n` (`n > 0`; the bias is irrelevant here).
    fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }
    fn usize_in(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo + 1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// A length: mostly short, sometimes around the powers of two the splitter cuts at.
    fn len(&mut self, max: usize) -> usize {
        let n = match self.below(6) {
            0 => self.usize_in(0, 3),
            1 => self.usize_in(0, 40),
            2 => {
                let p = 1usize << self.usize_in(2, 11);
                p + self.usize_in(0, 2) - 1
            }
            _ => self.usize_in(0, max),
        };
        n.min(max)
    }
    /// A count relative to `len`: 0, 1, near `len`, anywhere, or huge.
    fn count_near(&mut self, len: usize) -> usize {
        match self.below(7) {
            0 => 0,
            1 => 1,
            2 => len,
            3 => len.saturating_sub(1),
            4 => len + 1,
            5 => usize::MAX - self.below(2) as usize,
            _ => self.usize_in(0, len + 2),
        }
    }
}

const TYS: [Ty; 10] = [
    Ty::U8,
    Ty::U16,
    Ty::U32,
    Ty::U64,
    Ty::Usize,
    Ty::I8,
    Ty::I16,
    Ty::I32,
    Ty::I64,
    Ty::Isize,
];

fn draw_src(rng: &mut Rng, max_len: usize) -> Src {
    match rng.below(8) {
        0..=3 => {
            let ty = TYS[rng.below(TYS.len() as u64) as usize];
            let (min, max) = ty_bounds(ty);
            let domain = max - min + 1;
            let inclusive = rng.chance(50);
            let mut len = rng.len(max_len) as i128;
            if inclusive {
                len = len.max(1);
            }
            // A half-open range cannot include the type's maximum.
            let room = if inclusive { domain } else { domain - 1 };
            let len = len.min(room);
            let start = match rng.below(4) {
                0 => min,
                // Ends at the type's maximum (inclusive) or one short of it.
                1 => min + room - len,
                2 => 0i128.clamp(min, min + room - len),
                _ => min + (rng.u64() as i128).rem_euclid(room - len + 1),
            };
            Src::Range {
                ty,
                start,
                len: len as usize,
                inclusive,
            }
        }
        4 => {
            // Around the surrogate gap, or at the end of the `char` domain.
            let start = match rng.below(3) {
                0 => '\u{D7F0}',
                1 => char::from_u32(0x10_FFFF - rng.below(50) as u32).unwrap(),
                _ => 'a',
            };
            // The scalar values from `start` on (an upper bound below the end of the domain).
            let available = (0x10_FFFF - start as usize + 1).min(max_len.max(1));
            let len = rng.len(max_len).clamp(1, available);
            Src::Chars { start, len }
        }
        5..=6 => {
            let len = rng.len(max_len);
            Src::Vec((0..len).map(|_| rng.below(1000)).collect())
        }
        _ => {
            let len = rng.len(max_len);
            Src::Slice((0..len).map(|_| rng.u64()).collect())
        }
    }
}

/// The largest number of values any stage of a case may hold.
const MAX_STAGE: usize = 12_000;

fn draw_case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let threads = rng.usize_in(0, 8); // 0: the global pool
    let src = draw_src(&mut rng, 3000);
    let mut model = model_src(&src);
    let mut iops = Vec::new();
    for _ in 0..rng.usize_in(0, 6) {
        let len = model.len();
        let op = match rng.below(19) {
            0 | 1 => IOp::Map {
                salt: rng.u64(),
                panic_on: None,
            },
            2 => IOp::Enumerate,
            3 => IOp::Skip(rng.count_near(len)),
            4 => IOp::Take(rng.count_near(len)),
            5 | 6 => IOp::StepBy(match rng.below(4) {
                0 => rng.usize_in(1, 4),
                1 => rng.usize_in(5, 40),
                2 => rng.count_near(len).max(1),
                _ => 1 << rng.usize_in(0, 63),
            }),
            7 => IOp::Rev,
            8 => IOp::Chain(draw_src(&mut rng, 1500)),
            9 => IOp::Zip(draw_src(&mut rng, 3000)),
            10 => IOp::Interleave(draw_src(&mut rng, 1500)),
            11 => IOp::InterleaveShortest(draw_src(&mut rng, 1500)),
            12 => IOp::Chunks(rng.count_near(len).max(1)),
            13 => IOp::FoldChunks(rng.usize_in(1, 9)),
            14 => IOp::WithMinLen(rng.count_near(len).max(1)),
            15 => IOp::WithMaxLen(rng.count_near(len).max(1)),
            16 => IOp::Intersperse(rng.below(1000)),
            17 => match rng.below(3) {
                0 => IOp::Update(rng.below(100)),
                1 => IOp::MapInit(rng.below(100)),
                _ => IOp::PanicFuse,
            },
            _ => IOp::Rev,
        };
        let next = model_iop(&op, model.clone());
        if next.len() > MAX_STAGE {
            continue;
        }
        model = next;
        iops.push(op);
    }
    let m = rng.usize_in(2, 9) as u64;
    let uop = match rng.below(10) {
        0 => Some(UOp::Filter(m)),
        1 => Some(UOp::FilterMap(m)),
        2 => Some(UOp::FlatMap(m.min(5))),
        3 => Some(UOp::FlatMapIter(m.min(5))),
        4 => Some(UOp::Positions(m)),
        5 => Some(UOp::ChainAfterFilter(m, draw_src(&mut rng, 1000))),
        _ => None,
    };
    let n = rng.below(if uop.is_some() { 17 } else { 22 });
    let k = rng.usize_in(2, 9) as u64;
    let term = match n {
        0 => Term::CollectValues,
        1 => Term::CollectItems,
        2 => Term::Sum,
        3 => Term::Count,
        4 => Term::Min,
        5 => Term::Max,
        6 => Term::MinByKey(k),
        7 => Term::MaxByKey(k),
        8 => Term::Reduce,
        9 => Term::ReduceWith,
        10 => Term::FoldReduce,
        11 => Term::FindFirst(k),
        12 => Term::FindLast(k),
        13 => Term::Any(k * 10),
        14 => Term::All(k * 10),
        15 => Term::Partition(k),
        16 => Term::Unzip,
        17 => Term::PositionFirst(k),
        18 => Term::PositionLast(k),
        19 => Term::CollectIntoVec,
        20 => Term::Len,
        _ => Term::Cmp {
            at: rng.count_near(model.len()),
            delta: [-1i8, 0, 1][rng.below(3) as usize],
            cut: rng.usize_in(0, 2) * rng.usize_in(0, 1),
        },
    };
    Case {
        threads,
        src,
        iops,
        uop,
        term,
    }
}

/// Inserts a `map` that panics at one value of its input (if it has any), at a random stage.
fn inject_panic(case: &mut Case, seed: u64) {
    let mut rng = Rng::new(seed ^ 0xDEAD_BEEF);
    let at = rng.usize_in(0, case.iops.len());
    let mut model = model_src(&case.src);
    for op in &case.iops[..at] {
        model = model_iop(op, model);
    }
    let panic_on = match model.len() {
        0 => rng.u64(),
        n => model[rng.below(n as u64) as usize],
    };
    case.iops.insert(
        at,
        IOp::Map {
            salt: rng.u64(),
            panic_on: Some(panic_on),
        },
    );
}

/// The std result of the values of a case, before its consumer.
fn case_model(case: &Case) -> Vec<u64> {
    let mut v = model_src(&case.src);
    for op in &case.iops {
        v = model_iop(op, v);
    }
    if let Some(uop) = &case.uop {
        v = model_uop(uop, v);
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Running cases

fn pools() -> &'static [ThreadPool] {
    static POOLS: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        (1..=8)
            .map(|n| ThreadPoolBuilder::new().num_threads(n).build().unwrap())
            .collect()
    })
}

fn payload_str(p: &(dyn std::any::Any + Send)) -> &str {
    payload_message(p).unwrap_or("<non-string payload>")
}

/// Runs the case of `seed` (with a panic injected if `panics`) and checks it against std.
fn check_case(seed: u64, panics: bool) {
    let mut case = draw_case(seed);
    if panics {
        inject_panic(&mut case, seed);
    }
    let expected = model_term(&case.term, case_model(&case));
    let cx = Cx {
        ledger: Ledger::new(),
        fired: AtomicBool::new(false),
    };
    let run = || with_src(&case.src, &cx, |it| run_iops(it, &case.iops, &case, &cx));
    let got = catch_unwind(AssertUnwindSafe(|| match case.threads {
        0 => run(),
        n => pools()[n - 1].install(run),
    }));
    let fail = |what: String| -> ! {
        panic!(
            "iter_differential: seed {seed}{}: {what}\n  case: {case:?}\n  replay: \
             FORKJOIN_DIFF_SEED={seed} cargo test --profile release-tests --test iter_differential",
            if panics { " (with a panic)" } else { "" }
        )
    };
    let fired = cx.fired.load(Ordering::SeqCst);
    match got {
        Ok(got) if !fired => {
            if got != expected {
                fail(format!("got {got:?}, std gives {expected:?}"));
            }
        }
        Ok(got) => fail(format!("the injected panic was lost; returned {got:?}")),
        Err(p) if fired && payload_str(&*p) == INJECTED => {}
        Err(p) => fail(format!("unexpected panic: {}", payload_str(&*p))),
    }
    if let Err(p) = catch_unwind(AssertUnwindSafe(|| cx.ledger.check())) {
        fail(payload_str(&*p).to_string());
    }
}

/// The seeds to run: one (`FORKJOIN_DIFF_SEED`), many from the clock (`FORKJOIN_DIFF_SOAK`), or
/// a fixed set.
fn seeds(salt: u64, default_cases: u64) -> Vec<u64> {
    if let Ok(seed) = std::env::var("FORKJOIN_DIFF_SEED") {
        let seed = seed.parse().expect("FORKJOIN_DIFF_SEED must be a u64");
        return vec![seed];
    }
    let (base, cases) = if std::env::var_os("FORKJOIN_DIFF_SOAK").is_some() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        eprintln!("iter_differential: soak from base seed {now}");
        (now, default_cases * 100)
    } else {
        (0x5EED_0000, default_cases)
    };
    (0..cases)
        .map(|i| mix(base.wrapping_add(i), salt))
        .collect()
}

fn watch(what: &'static str, f: impl FnOnce() + Send + 'static) {
    let limit = if std::env::var_os("FORKJOIN_DIFF_SOAK").is_some() {
        Duration::from_secs(6 * 3600)
    } else {
        Duration::from_secs(300)
    };
    common::watchdog(what, limit, f);
}

#[test]
fn adaptor_chains_match_std() {
    watch("adaptor chains", || {
        for seed in seeds(1, 15_000) {
            check_case(seed, false);
        }
    });
}

#[test]
fn injected_panics_propagate_and_drop_every_item_once() {
    // The injected panics (thousands of them) are not printed.
    quiet_expected_panics();
    watch("injected panics", || {
        for seed in seeds(2, 10_000) {
            check_case(seed, true);
        }
    });
}
