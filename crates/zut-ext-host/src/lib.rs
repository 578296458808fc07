//! zut's extension host.
//!
//! Finds extensions ([`discovery`]), reads their manifests ([`manifest`]),
//! starts them as child processes, runs the protocol v2 handshake, keeps the
//! registry of their commands and tools, dispatches calls, fans out
//! lifecycle events, runs interception chains and shuts them down.
//!
//! The host knows nothing of the UI or of LLMs. It talks to the rest of zut
//! through [`ExtensionHost`]'s methods and a bounded channel of
//! [`UiEvent`]s that the embedder drains.

pub mod discovery;
pub mod home;
pub mod manifest;

pub use discovery::{Candidate, Discovery, DiscoveryOptions, Planned, Scope};
pub use home::ZutHome;
pub use manifest::{ExecSpec, Manifest, ManifestError};
