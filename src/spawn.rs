//! STUB: runs the job inline; replaced by the runtime.
#![allow(missing_docs)]

pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    func()
}
