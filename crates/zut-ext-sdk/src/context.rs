//! The per-request context passed to command and tool handlers.

use std::sync::Arc;

use crate::handle::Handle;
use crate::host_info::HostInfo;

/// Passed to every command and tool handler.
#[derive(Debug, Clone)]
pub struct Context {
    pub(crate) handle: Handle,
    pub(crate) host: Arc<HostInfo>,
    pub(crate) request_id: String,
}

impl Context {
    /// The handle for one-way frames (notify, status, panels, ...).
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Host metadata from `hello_ack`.
    pub fn host(&self) -> &HostInfo {
        &self.host
    }

    /// The id of the request being answered (opaque; for logging only).
    pub fn request_id(&self) -> &str {
        &self.request_id
    }
}
