//! STUB: replaced by the runtime.
#![allow(missing_docs)]

use std::fmt;

#[derive(Debug)]
pub struct ThreadPoolBuildError {
    message: String,
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ThreadPoolBuildError {}
