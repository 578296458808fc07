//! zut's built-in tools (being built).
