//! The eight symmetries of the square board (placeholder).
