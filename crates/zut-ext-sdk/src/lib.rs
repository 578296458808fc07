//! Rust SDK for zut extensions.
