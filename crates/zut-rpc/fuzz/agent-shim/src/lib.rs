//! Stands in for `zut_agent` in the fuzz build: the RPC wire types name
//! only `zut_agent::transcript::JsonBlock` (a message content block), which
//! is any JSON value as far as the request parser is concerned.

/// The piece of `zut_agent::transcript` the wire types use.
pub mod transcript {
    /// A content block of a message, as JSON.
    pub type JsonBlock = serde_json::Value;
}
