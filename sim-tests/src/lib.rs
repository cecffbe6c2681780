//! forkjoin's real pools under shuttle's deterministic scheduler: the tests live in `tests/`.
//!
//! They compile to nothing unless built with `--cfg forkjoin_shuttle`; `docs/testing.md` has the
//! commands.
