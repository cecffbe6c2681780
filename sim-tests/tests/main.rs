//! The simulation's tests, as one test binary: each file of this folder is a module
//! (`cargo test --release -p sim-tests --test sim -- iter::` runs one file, `--exact
//! install::install_asleep_8` one test). One binary builds and links once, and its tests share
//! the machine's cores to the end of the run, where one binary per file ran each file's tests
//! only beside each other (a file's longest test, up to a minute at 256 workers, left the other
//! core idle).

mod cancel;
mod cap;
mod costs;
mod deadline;
mod deque;
mod drop;
mod heartbeat;
mod install;
mod iter;
mod join;
mod line_profile;
mod locks;
mod max_len;
mod pace;
mod panic;
mod reserve;
mod resize;
mod scope;
mod siblings;
