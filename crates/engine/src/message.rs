//! [`message_error!`](crate::message_error): the one way the workspace declares an error that
//! is a single message for the user (a rules string that does not parse, a board that is not
//! one, a config value out of range, shard bytes that are not a shard).

/// Declares `pub struct $name(pub String)`, an error whose `Display` is the message itself
/// (after a fixed prefix, when one is given as `prefix = "..."`), with `Clone`, `Debug`,
/// `PartialEq`, `Eq` and `std::error::Error`. Doc comments and other attributes written
/// before the name go on the struct.
#[macro_export]
macro_rules! message_error {
    ($(#[$attr:meta])* $name:ident) => {
        $crate::message_error!($(#[$attr])* $name, prefix = "");
    };
    ($(#[$attr:meta])* $name:ident, prefix = $prefix:literal) => {
        $(#[$attr])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name(pub String);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }

        impl std::error::Error for $name {}
    };
}
