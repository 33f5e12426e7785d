//! What hane asks of the machine it runs on, in one low home below every other crate (as
//! ripgrep's `grep-cli` is for ripgrep): the one writer of every file hane keeps ([`file`]:
//! atomic, links kept links, devices and FIFOs written through), the one reader of every file
//! it is given ([`read`]: a limit per kind of file, pipes only where a user names them), the
//! CPU time Linux counts for a process or a thread ([`cpu`], for GTP's `cputime` and the
//! benchmarks), the one request to stop long work ([`Stop`]) and the text of a list of numbers
//! for a user ([`show`]). It depends on nothing, so every crate may use it without an arrow
//! between them.

pub mod cpu;
pub mod file;
pub mod read;
pub mod show;
pub mod stop;

pub use stop::Stop;
