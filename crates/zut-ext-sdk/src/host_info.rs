//! What the host told the extension in `hello_ack`.

use zut_protocol::{HelloAck, SessionInfo};

/// Host metadata received in `hello_ack`.
///
/// Paths are kept as the host sent them (UTF-8 strings); an empty string
/// means the host did not say. Use `std::path::Path::new(&info.data_dir)`
/// to build file paths.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostInfo {
    /// Protocol major spoken by the host (always 2 once accepted).
    pub protocol_version: u32,
    /// Host version string, e.g. `0.1.0`.
    pub zut_version: String,
    /// Active provider at start-up (may be empty).
    pub provider: String,
    /// Active model at start-up (may be empty).
    pub model: String,
    /// The user's project directory. The extension process itself runs in
    /// its own directory, so use this instead of the process cwd.
    pub cwd: String,
    /// The extension's own directory.
    pub extension_dir: String,
    /// Where the extension should persist its state (same as `extension_dir`).
    pub data_dir: String,
    /// The active session branch, when the host already announced one.
    pub session: Option<SessionInfo>,
}

impl From<HelloAck> for HostInfo {
    fn from(ack: HelloAck) -> Self {
        Self {
            protocol_version: ack.protocol_version,
            zut_version: ack.zut_version,
            provider: ack.provider,
            model: ack.model,
            cwd: ack.cwd,
            extension_dir: ack.extension_dir,
            data_dir: ack.data_dir,
            session: ack.session,
        }
    }
}
