//! Wire types of zut's extension protocol v2.
//!
//! Every frame is one JSON object on one line; `type` is the discriminator.
//! [`ExtFrame`] holds the frames an extension sends to the host and
//! [`HostFrame`] the frames the host sends to an extension. This crate does
//! no I/O: it only describes, encodes and decodes frames.

mod content;
mod decode;
mod events;
mod ext_frame;
mod host_frame;
pub mod limits;
mod schema;
mod serde_helpers;

pub use content::{ContentBlock, PanelContent, SessionInfo};
pub use decode::{decode_ext_frame, decode_host_frame, encode_line, DecodeError};
pub use events::{is_interceptable, EventName, INTERCEPTABLE_EVENTS, LIFECYCLE_EVENTS};
pub use ext_frame::{
    Alert, ClearNotes, CommandResponse, EventInterceptResponse, ExtFrame, Hello, Notify, OpenPanel,
    PanelClose, PanelRender, RegisterCommand, RegisterTool, Status, Submit, SubmitSlash, Subscribe,
    ToolResult, Widget, WidgetClear,
};
pub use host_frame::{
    CommandInvoked, Event, EventIntercept, HelloAck, HostFrame, PanelKey, PanelResize, ToolCall,
};
pub use schema::protocol_schema;

/// The protocol major version spoken by this crate. A peer announcing any
/// other version is refused.
pub const PROTOCOL_VERSION: u32 = 2;
