//! Jobs: type-erased references to work that some worker will execute exactly once.
//!
//! * [`JobRef`] is what the deques, the private stack and the injector hold: a data pointer, a
//!   static table for its type (the monomorphised function that knows how to run it, and the job's
//!   [`JobKind`] for the trace), and the [`RegionTag`] of the region it was created in (which waits
//!   may run it, see `crate::runtime::jobs::region`). Three words, `Copy`, compared by data pointer
//!   (which is how `join` recognises its own job b when it pops one back).
//! * [`StackJob`] lives in the frame of the thread that waits for it (`join`'s b, `install`). It carries a
//!   closure, a slot for the result (or the panic), and a latch set after the result is written.
//! * [`HeapJob`] is boxed and owns its closure (`spawn`, `Scope::spawn`); it frees itself when run.
//!
//! **Life of a job.** Created → its `JobRef` pushed (private stack, public deque or injector) → popped by
//! the owner or stolen by a thief, at most once (the deque guarantees it) → `execute` runs the closure,
//! catching any panic → the result is stored → the latch is set (the last access to a stack job).

use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};

use crate::platform::sync::{self, UnsafeCell};
use crate::platform::unwind::{self, Payload};
use crate::runtime::jobs::latch::Latch;
use crate::runtime::jobs::region::RegionTag;
use crate::runtime::trace::JobKind;

/// A type-erased pointer to a job, the table of what its type knows (how to execute it, and what
/// kind of job it is, for the trace), and the region it was created in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRef {
    pointer: *const (),
    vtable: &'static JobVTable,
    tag: RegionTag,
}

/// One per job type, in static memory: what a [`JobRef`] needs besides the data pointer.
#[derive(Debug)]
struct JobVTable {
    execute: unsafe fn(*const ()),
    kind: JobKind,
    /// [`Job::COUNTED_BY_SCOPE`] of the type.
    counted_by_scope: bool,
}

// SAFETY: a JobRef is a handle to a job whose closure and result are `Send` (enforced by the constructors'
// bounds); it is executed exactly once, by whichever thread takes it.
unsafe impl Send for JobRef {}
// SAFETY: shared references to a JobRef only allow copying its words.
unsafe impl Sync for JobRef {}

/// Something a [`JobRef`] can point to.
pub(crate) trait Job {
    /// What the trace calls a job of this type.
    const KIND: JobKind = JobKind::Other;
    /// Jobs of this type are a scope's ([`ScopeJob`]): one that is dropped unrun may leave its
    /// count to the worker's deferred release (see `crate::runtime::registry::worker`).
    const COUNTED_BY_SCOPE: bool = false;

    /// Runs the job.
    ///
    /// # Safety
    /// `this` must point to a live job that has not been executed yet; it is executed at most once.
    unsafe fn execute(this: *const Self);
}

impl JobRef {
    /// # Safety
    /// `data` must stay valid until the returned `JobRef` has been executed, and be executed at most once.
    #[inline]
    pub(crate) unsafe fn new<T: Job>(data: *const T) -> JobRef {
        // The simulation's timing mode: the job's lines are its creator's (the caller's).
        sync::plain_created(data);
        JobRef {
            pointer: data.cast(),
            // One table per job type, in static memory: building a reference stores an address,
            // like storing the function pointer alone would.
            vtable: const {
                &JobVTable {
                    execute: execute_erased::<T>,
                    kind: T::KIND,
                    counted_by_scope: T::COUNTED_BY_SCOPE,
                }
            },
            tag: RegionTag::ROOT,
        }
    }

    /// The same reference, created in region `tag` (a new reference is in [`RegionTag::ROOT`]).
    #[inline(always)]
    pub(crate) fn tagged(self, tag: RegionTag) -> JobRef {
        JobRef { tag, ..self }
    }

    /// The region the job was created in.
    #[inline(always)]
    pub(crate) fn tag(&self) -> RegionTag {
        self.tag
    }

    /// The id and tag of a reference read speculatively from a queue slot (whose words may be
    /// torn or stale: only these two plain words are read, and no reference is made).
    ///
    /// # Safety
    /// `job` must point to memory that holds a `JobRef`'s bytes (initialised, perhaps torn).
    #[inline(always)]
    pub(crate) unsafe fn raw_parts(job: *const JobRef) -> (usize, RegionTag) {
        // SAFETY: per the contract the bytes are initialised; any bit pattern is a valid pointer
        // or usize, and neither is dereferenced.
        unsafe {
            (
                std::ptr::addr_of!((*job).pointer).read() as usize,
                std::ptr::addr_of!((*job).tag).read(),
            )
        }
    }

    /// The three words of the reference, for storage in atomics.
    #[inline(always)]
    pub(crate) fn into_raw(self) -> (usize, usize, usize) {
        (
            self.pointer as usize,
            self.vtable as *const JobVTable as usize,
            self.tag.into_raw(),
        )
    }

    /// Rebuilds a reference from [`into_raw`](Self::into_raw)'s words.
    ///
    /// # Safety
    /// The words must come from `into_raw` of a live, not yet executed `JobRef`.
    #[inline(always)]
    pub(crate) unsafe fn from_raw(data: usize, vtable: usize, tag: usize) -> JobRef {
        JobRef {
            pointer: data as *const (),
            // SAFETY: `vtable` is the address of a `JobVTable` in static memory, per the contract.
            vtable: unsafe { &*(vtable as *const JobVTable) },
            tag: RegionTag::from_raw(tag),
        }
    }

    /// What kind of job this is (from its type).
    #[inline]
    pub(crate) fn kind(&self) -> JobKind {
        self.vtable.kind
    }

    /// True for a [`ScopeJob`] (from its type).
    #[inline(always)]
    pub(crate) fn is_scope_job(&self) -> bool {
        self.vtable.counted_by_scope
    }

    /// The identity of the job (its data pointer).
    #[inline]
    pub(crate) fn id(&self) -> *const () {
        self.pointer
    }

    /// Executes the job.
    ///
    /// # Safety
    /// Each `JobRef` is executed at most once, while its data is live (see [`JobRef::new`]).
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: forwarded caller contract; the table was instantiated for this pointer's type.
        unsafe { (self.vtable.execute)(self.pointer) }
    }
}

/// # Safety
/// `this` must have been created from a `*const T` by [`JobRef::new`].
unsafe fn execute_erased<T: Job>(this: *const ()) {
    // The simulation's timing mode: a thief reads lines its creator wrote.
    sync::plain_access(this.cast::<T>(), false);
    // SAFETY: see the function contract.
    unsafe { T::execute(this.cast::<T>()) }
}

/// The outcome of a job that ran: a value or a caught panic.
pub(crate) enum JobResult<T> {
    Ok(T),
    Panic(Payload),
}

impl<T> JobResult<T> {
    /// Runs `f`, catching a panic.
    #[inline]
    fn call(f: impl FnOnce() -> T) -> Self {
        match unwind::halt_unwinding(f) {
            Ok(v) => JobResult::Ok(v),
            Err(p) => JobResult::Panic(p),
        }
    }

    /// The value, re-raising a caught panic.
    pub(crate) fn into_return_value(self) -> T {
        match self {
            JobResult::Ok(v) => v,
            JobResult::Panic(p) => unwind::resume_unwinding(p),
        }
    }
}

/// A job stored in the frame of the thread that waits for it.
///
/// The closure receives `true` when the job was executed through its [`JobRef`] (taken from a queue)
/// and `false` when its creator ran it inline.
///
/// No drop glue: the closure is run exactly once (inline by the creator, or through the `JobRef` by
/// whoever took it), and a result written by `execute` is always taken by the waiter. This keeps the
/// `join` fast path free of "was it run / is there a result" checks.
pub(crate) struct StackJob<L, F, R> {
    latch: L,
    func: UnsafeCell<ManuallyDrop<F>>,
    /// Written by `execute` before it sets the latch; left uninitialised until then, so creating
    /// the job (on every `join`) stores nothing here.
    result: UnsafeCell<MaybeUninit<JobResult<R>>>,
}

impl<L: Latch, F: FnOnce(bool) -> R, R> StackJob<L, F, R> {
    /// A job running `func`, signalling `latch` when executed through its [`JobRef`].
    #[inline]
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            latch,
            func: UnsafeCell::new(ManuallyDrop::new(func)),
            result: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// A reference for the queues.
    ///
    /// # Safety
    /// `self` must not move or be dropped until the returned reference has been executed or provably
    /// discarded (e.g. popped back by its creator); its closure and result must be `Send` if another
    /// thread may execute it.
    #[inline]
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: forwarded to the caller.
        unsafe { JobRef::new(self) }
    }

    /// The latch set after the job ran through its [`JobRef`].
    #[inline]
    pub(crate) fn latch(&self) -> &L {
        &self.latch
    }

    /// Runs the closure on the creating thread (the job was popped back, never shared).
    ///
    /// # Safety
    /// At most once, and only if the job's `JobRef` was not and will not be executed (its creator took
    /// it back, or never shared it).
    #[inline]
    pub(crate) unsafe fn run_inline(&self, stolen: bool) -> R {
        let func = self.func.with_mut(|f| {
            // SAFETY: per the contract nobody else runs or touches `func`, and it is taken once.
            unsafe { ManuallyDrop::take(&mut *f) }
        });
        func(stolen)
    }

    /// Drops the closure without running it (the job was popped back and its work was
    /// cancelled, see `crate::runtime::cancel`).
    ///
    /// # Safety
    /// As for [`run_inline`](Self::run_inline), which it replaces.
    #[inline]
    pub(crate) unsafe fn drop_unrun(&self) {
        self.func.with_mut(|f| {
            // SAFETY: per the contract nobody else runs or touches `func`, and it is taken once.
            unsafe { ManuallyDrop::drop(&mut *f) }
        });
    }

    /// The result after the latch was observed set (re-raising a panic of the job).
    ///
    /// # Safety
    /// The latch must have been observed set: `execute` wrote the result.
    #[inline]
    pub(crate) unsafe fn into_result(self) -> R {
        sync::plain_access(&self.result, false);
        // SAFETY: per the contract, `execute` initialised the result before setting the latch.
        unsafe { self.result.into_inner().assume_init() }.into_return_value()
    }

    /// Takes the result out after the latch was observed set (re-raising a panic of the job).
    ///
    /// # Safety
    /// The latch must have been observed set (so the executing thread is done with the job), and the
    /// result must not have been taken before.
    #[inline]
    pub(crate) unsafe fn take_result(&self) -> R {
        sync::plain_access(&self.result, false);
        // SAFETY: per the contract, `execute` initialised the result and no other thread accesses it
        // any more; it is read out once.
        let result = self.result.with_mut(|r| unsafe { (*r).assume_init_read() });
        result.into_return_value()
    }

    /// Like [`take_result`](Self::take_result) but returns the panic instead of raising it (for a
    /// caller that only drops or keeps it: raising and catching it would cost an unwinding).
    ///
    /// # Safety
    /// As for [`take_result`](Self::take_result).
    #[inline]
    pub(crate) unsafe fn take_job_result(&self) -> JobResult<R> {
        sync::plain_access(&self.result, false);
        // SAFETY: forwarded to the caller, as in `take_result`.
        self.result.with_mut(|r| unsafe { (*r).assume_init_read() })
    }

    /// This job seen without its closure and result types (see [`ErasedStackJob`]).
    ///
    /// # Safety
    /// As for [`as_job_ref`](Self::as_job_ref): the erased job's [`JobRef`] is executed at most
    /// once, and only if the job's other references are not.
    #[inline]
    pub(crate) unsafe fn erased(&self) -> ErasedStackJob<'_, L> {
        ErasedStackJob {
            latch: &self.latch,
            // SAFETY: forwarded to the caller.
            job: unsafe { self.as_job_ref() },
            drop_unrun: drop_unrun_erased::<L, F, R>,
            take_panic: take_panic_erased::<L, F, R>,
        }
    }

    /// Like [`into_result`](Self::into_result) but returns the panic instead of raising it.
    ///
    /// # Safety
    /// As for [`into_result`](Self::into_result).
    #[cfg(all(test, not(forkjoin_loom)))] // its tests do not run under loom
    pub(crate) unsafe fn into_job_result(self) -> JobResult<R> {
        // SAFETY: forwarded to the caller.
        unsafe { self.result.into_inner().assume_init() }
    }
}

/// A [`StackJob`] without its closure and result types, for the cold paths of its creator (b of
/// a `join` that was published, or that a panic of a leaves behind): compiled once, not once per
/// closure as a generic function would be, with b's body inlined into each copy.
///
/// Its creator runs a job it took back through [`run`](Self::run), as a thief would: the result
/// or panic goes to the job's slot and the latch is set.
pub(crate) struct ErasedStackJob<'a, L> {
    latch: &'a L,
    job: JobRef,
    drop_unrun: unsafe fn(*const ()),
    take_panic: unsafe fn(*const ()) -> Option<Payload>,
}

impl<L> ErasedStackJob<'_, L> {
    /// The job's latch, set once it ran through its [`JobRef`].
    #[inline]
    pub(crate) fn latch(&self) -> &L {
        self.latch
    }

    /// The job's identity, as its [`JobRef`]s carry it ([`JobRef::id`]).
    #[inline]
    pub(crate) fn id(&self) -> *const () {
        self.job.id()
    }

    /// Runs the job on the calling thread: the result goes to its slot, then the latch is set.
    ///
    /// # Safety
    /// As for [`StackJob::run_inline`]: at most once, and only if no other reference to the job
    /// was or will be executed.
    #[inline]
    pub(crate) unsafe fn run(&self) {
        // SAFETY: forwarded to the caller; `job` was made from the live job by `StackJob::erased`.
        unsafe { self.job.execute() }
    }

    /// [`StackJob::drop_unrun`].
    ///
    /// # Safety
    /// As for [`StackJob::drop_unrun`].
    #[inline]
    pub(crate) unsafe fn drop_unrun(&self) {
        // SAFETY: forwarded to the caller; the function was instantiated for the job's type.
        unsafe { (self.drop_unrun)(self.job.id()) }
    }

    /// Takes the result out after the job ran and drops it, returning its panic if it panicked.
    ///
    /// # Safety
    /// As for [`StackJob::take_job_result`].
    #[inline]
    pub(crate) unsafe fn take_panic(&self) -> Option<Payload> {
        // SAFETY: forwarded to the caller; the function was instantiated for the job's type.
        unsafe { (self.take_panic)(self.job.id()) }
    }
}

/// [`ErasedStackJob::drop_unrun`] for jobs of one type.
///
/// # Safety
/// `this` points to a live `StackJob<L, F, R>`; as for [`StackJob::drop_unrun`].
unsafe fn drop_unrun_erased<L: Latch, F: FnOnce(bool) -> R, R>(this: *const ()) {
    // SAFETY: forwarded to the caller.
    unsafe { (*this.cast::<StackJob<L, F, R>>()).drop_unrun() }
}

/// [`ErasedStackJob::take_panic`] for jobs of one type.
///
/// # Safety
/// `this` points to a live `StackJob<L, F, R>`; as for [`StackJob::take_job_result`].
unsafe fn take_panic_erased<L: Latch, F: FnOnce(bool) -> R, R>(this: *const ()) -> Option<Payload> {
    // SAFETY: forwarded to the caller.
    match unsafe { (*this.cast::<StackJob<L, F, R>>()).take_job_result() } {
        JobResult::Ok(_) => None,
        JobResult::Panic(payload) => Some(payload),
    }
}

impl<L: Latch, F: FnOnce(bool) -> R, R> Job for StackJob<L, F, R> {
    const KIND: JobKind = L::JOB_KIND;

    unsafe fn execute(this: *const Self) {
        // SAFETY: the caller guarantees `this` is live and executed once; the creator does not touch
        // `func`/`result` until the latch is set.
        let this = unsafe { &*this };
        let abort = unwind::AbortIfPanic;
        // SAFETY: exclusive access as above; a JobRef is executed once, and then the creator does not
        // run the job inline.
        let func = this
            .func
            .with_mut(|f| unsafe { ManuallyDrop::take(&mut *f) });
        let result = JobResult::call(move || func(true));
        // SAFETY: exclusive access as above; the latch below publishes this write. The slot was
        // uninitialised (each job executes once), so nothing is overwritten.
        this.result.with_mut(|r| unsafe { (*r).write(result) });
        sync::plain_access(&this.result, true);
        // SAFETY: `this.latch` is live; after `set` we do not touch `this` again.
        unsafe { Latch::set(&this.latch) };
        std::mem::forget(abort);
    }
}

/// A boxed job that owns its closure.
pub(crate) struct HeapJob<BODY> {
    body: BODY,
}

impl<BODY: FnOnce() + Send> HeapJob<BODY> {
    pub(crate) fn new(body: BODY) -> Box<Self> {
        Box::new(HeapJob { body })
    }

    /// Leaks the box into a `JobRef`; executing it frees the box.
    ///
    /// # Safety
    /// Everything `BODY` borrows must outlive the job's execution (the caller waits for it, e.g. with a
    /// scope's count latch, or `BODY: 'static`). The reference must be executed exactly once or the box
    /// leaks.
    pub(crate) unsafe fn into_job_ref(self: Box<Self>) -> JobRef {
        // SAFETY: forwarded to the caller; the box is live until `execute` reclaims it.
        unsafe { JobRef::new(Box::into_raw(self)) }
    }
}

impl<BODY: FnOnce() + Send> Job for HeapJob<BODY> {
    const KIND: JobKind = JobKind::Spawned;

    unsafe fn execute(this: *const Self) {
        // SAFETY: `this` came from `Box::into_raw` in `into_job_ref` and is executed once.
        let this = unsafe { Box::from_raw(this as *mut Self) };
        (this.body)();
    }
}

/// A [`HeapJob`] of a `scope`, counted in its latch: the same job, recognisable from its
/// [`JobRef`] ([`JobRef::is_scope_job`]).
pub(crate) struct ScopeJob<BODY>(HeapJob<BODY>);

impl<BODY: FnOnce() + Send> ScopeJob<BODY> {
    pub(crate) fn new(body: BODY) -> Box<Self> {
        Box::new(ScopeJob(HeapJob { body }))
    }

    /// Leaks the box into a `JobRef`; executing it frees the box.
    ///
    /// # Safety
    /// As [`HeapJob::into_job_ref`].
    pub(crate) unsafe fn into_job_ref(self: Box<Self>) -> JobRef {
        // SAFETY: forwarded to the caller; the box is live until `execute` reclaims it.
        unsafe { JobRef::new(Box::into_raw(self)) }
    }
}

impl<BODY: FnOnce() + Send> Job for ScopeJob<BODY> {
    const KIND: JobKind = JobKind::Spawned;
    const COUNTED_BY_SCOPE: bool = true;

    unsafe fn execute(this: *const Self) {
        // SAFETY: `this` came from `Box::into_raw` in `into_job_ref` and is executed once.
        let this = unsafe { Box::from_raw(this as *mut Self) };
        (this.0.body)();
    }
}

/// Moves a value across a `Send` boundary that the type system cannot see (e.g. a raw pointer whose
/// target outlives the job, which the caller guarantees).
pub(crate) struct SendPtr<T>(pub(crate) *const T, PhantomData<ManuallyDrop<T>>);

impl<T> SendPtr<T> {
    pub(crate) fn new(ptr: *const T) -> Self {
        SendPtr(ptr, PhantomData)
    }
}

// SAFETY: only created for pointers to `Sync` data that outlives the job carrying it (documented at each
// use).
unsafe impl<T: Sync> Send for SendPtr<T> {}
// SAFETY: a shared `SendPtr` only hands out copies of the pointer, to `Sync` data (a broadcast's
// shares all point to their scope).
unsafe impl<T: Sync> Sync for SendPtr<T> {}

#[cfg(all(test, not(forkjoin_loom)))]
mod tests {
    use super::*;
    use crate::platform::sync::for_tests::mpsc;
    use crate::runtime::jobs::latch::CoreLatch;

    #[test]
    fn stack_job_executes_through_its_ref() {
        let job = StackJob::new(|stolen: bool| (stolen, 40 + 2), CoreLatch::new());
        // SAFETY: `job` outlives the reference, executed once below.
        let r = unsafe { job.as_job_ref() };
        assert_eq!(r.id(), &job as *const _ as *const ());
        assert_eq!(r.kind(), JobKind::Other);
        let tag = crate::runtime::jobs::region::Regions::new(1).tag(0, 3);
        let (data, vtable, raw_tag) = r.tagged(tag).into_raw();
        // SAFETY: the words of a live, unexecuted reference.
        let r = unsafe { JobRef::from_raw(data, vtable, raw_tag) };
        assert_eq!(r.tag(), tag);
        // SAFETY: `r` is a live local holding a JobRef's bytes.
        assert_eq!(unsafe { JobRef::raw_parts(&r) }, (r.id() as usize, tag));
        // SAFETY: executed once while `job` is live.
        unsafe { r.execute() };
        assert!(job.latch().probe());
        // SAFETY: the latch is set.
        assert_eq!(unsafe { job.into_result() }, (true, 42));
    }

    #[test]
    fn stack_job_inline() {
        let job = StackJob::new(|stolen: bool| stolen, CoreLatch::new());
        // SAFETY: never shared; run once.
        assert!(!unsafe { job.run_inline(false) });
    }

    #[test]
    fn stack_job_captures_panics() {
        let job = StackJob::new(|_| -> u8 { panic!("inside job") }, CoreLatch::new());
        // SAFETY: as above.
        unsafe { job.as_job_ref().execute() };
        assert!(job.latch().probe());
        // SAFETY: the latch is set.
        match unsafe { job.into_job_result() } {
            JobResult::Panic(p) => assert_eq!(unwind::payload_message(&p), "inside job"),
            _ => panic!("expected a panic"),
        }
    }

    #[test]
    fn heap_job_runs_and_frees() {
        let (tx, rx) = mpsc::channel();
        let job = HeapJob::new(move || tx.send(7).unwrap());
        // SAFETY: the closure is 'static; executed once.
        let r = unsafe { job.into_job_ref() };
        assert_eq!(r.kind(), JobKind::Spawned);
        // SAFETY: as above.
        unsafe { r.execute() };
        assert_eq!(rx.recv().unwrap(), 7);
    }
}
