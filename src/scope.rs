//! STUB: sequential `scope`; replaced by the runtime.
#![allow(missing_docs)]

use std::marker::PhantomData;

pub struct Scope<'scope> {
    _marker: PhantomData<&'scope mut &'scope ()>,
}

impl<'scope> Scope<'scope> {
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        body(self)
    }
}

pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    op(&Scope {
        _marker: PhantomData,
    })
}
