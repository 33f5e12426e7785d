//! Values written for a user in words and numbers rather than Rust's Debug form: the one
//! place a list of numbers (a shape, board sizes, weights) becomes text.

use std::fmt::Display;

/// The items of `items` separated by commas: `3, 7, 7` for a shape `[3, 7, 7]`.
pub fn list<T: Display>(items: &[T]) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_join_with_commas() {
        assert_eq!(list(&[3, 7, 7]), "3, 7, 7");
        assert_eq!(list(&[0.5f32]), "0.5");
        assert_eq!(list::<u8>(&[]), "");
    }
}
