//! SGF reading and writing (placeholder; filled in below).
