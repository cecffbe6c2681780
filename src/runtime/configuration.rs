//! rayon's deprecated `Configuration` and `initialize`, so that old rayon code still ports:
//! [`ThreadPoolBuilder`] and [`ThreadPoolBuilder::build_global`] under their older names.
#![allow(deprecated)]

use std::any::Any;
use std::error::Error;

use crate::runtime::builder::ThreadPoolBuilder;
use crate::runtime::thread_pool::ThreadPool;

/// A pool configuration, under rayon's old name: use [`ThreadPoolBuilder`] instead.
///
/// ```
/// # #![allow(deprecated)]
/// let pool = forkjoin::Configuration::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.current_num_threads(), 2);
/// ```
#[deprecated(note = "Use `ThreadPoolBuilder`")]
#[derive(Debug, Default)]
pub struct Configuration {
    builder: ThreadPoolBuilder,
}

impl Configuration {
    /// [`ThreadPoolBuilder::new`].
    pub fn new() -> Configuration {
        Configuration::default()
    }

    /// [`ThreadPoolBuilder::build`], with the error boxed.
    pub fn build(self) -> Result<ThreadPool, Box<dyn Error + 'static>> {
        Ok(self.builder.build()?)
    }

    /// [`ThreadPoolBuilder::thread_name`].
    pub fn thread_name<F>(self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.map(|b| b.thread_name(closure))
    }

    /// [`ThreadPoolBuilder::num_threads`].
    pub fn num_threads(self, num_threads: usize) -> Configuration {
        self.map(|b| b.num_threads(num_threads))
    }

    /// [`ThreadPoolBuilder::panic_handler`].
    pub fn panic_handler<H>(self, panic_handler: H) -> Configuration
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.map(|b| b.panic_handler(panic_handler))
    }

    /// [`ThreadPoolBuilder::stack_size`].
    pub fn stack_size(self, stack_size: usize) -> Self {
        self.map(|b| b.stack_size(stack_size))
    }

    /// [`ThreadPoolBuilder::breadth_first`].
    pub fn breadth_first(self) -> Self {
        self.map(ThreadPoolBuilder::breadth_first)
    }

    /// [`ThreadPoolBuilder::start_handler`].
    pub fn start_handler<H>(self, start_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.map(|b| b.start_handler(start_handler))
    }

    /// [`ThreadPoolBuilder::exit_handler`].
    pub fn exit_handler<H>(self, exit_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.map(|b| b.exit_handler(exit_handler))
    }

    fn map(self, f: impl FnOnce(ThreadPoolBuilder) -> ThreadPoolBuilder) -> Self {
        Configuration {
            builder: f(self.builder),
        }
    }
}

/// Makes `config` the global pool's, under rayon's old name: use
/// [`ThreadPoolBuilder::build_global`] instead.
///
/// ```
/// # #![allow(deprecated)]
/// forkjoin::initialize(forkjoin::Configuration::new().num_threads(2)).unwrap();
/// assert_eq!(forkjoin::current_num_threads(), 2);
/// ```
#[deprecated(note = "use `ThreadPoolBuilder::build_global`")]
pub fn initialize(config: Configuration) -> Result<(), Box<dyn Error>> {
    Ok(config.builder.build_global()?)
}
