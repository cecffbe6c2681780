//! loom model checks for forkjoin's concurrent protocols live in `tests/`, one file per primitive.
//!
//! They compile to nothing unless built with `--cfg forkjoin_loom`; see the README for the command.
