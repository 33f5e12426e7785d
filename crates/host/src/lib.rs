//! What hane asks of the machine it runs on, in one low home below every other crate (as
//! ripgrep's `grep-cli` is for ripgrep): today the CPU time Linux counts for a process or a
//! thread ([`cpu`]), for GTP's `cputime` and the benchmarks. It depends on nothing, so the
//! front-ends and the pipeline both use it without an arrow between them.

pub mod cpu;
