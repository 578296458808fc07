//! The error type returned by [`crate::Extension::run`] and by the
//! one-way senders of [`crate::Handle`].

use std::io;

/// Everything that can go wrong while talking to the host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SdkError {
    /// Reading stdin or writing stdout failed.
    #[error("io: {0}")]
    Io(#[from] io::Error),
    /// The host sent a line longer than the SDK accepts.
    #[error("host frame exceeds {limit} bytes")]
    LineTooLong {
        /// The cap, terminating LF included.
        limit: usize,
    },
    /// `hello_ack` announced a protocol major other than 2.
    #[error("unsupported host protocol version {0} (want {want})", want = zut_protocol::PROTOCOL_VERSION)]
    UnsupportedHostProtocol(u32),
    /// The host's first line was not a `hello_ack` frame.
    #[error("unsupported host protocol version: first host frame must be hello_ack (got {0})")]
    NotHelloAck(String),
    /// A frame was sent while no host connection is active (before
    /// [`crate::Extension::run`] started or after it returned).
    #[error("not connected to a host")]
    NotConnected,
}
