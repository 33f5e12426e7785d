//! The `hane` binary (placeholder).
fn main() {}
