//! What interceptors answer to `event_intercept`.

use serde_json::Value;

/// The two constructors every decision has: `allow()` (the default, which
/// lets the event through) and `block(reason)` (the default otherwise).
macro_rules! allow_and_block {
    ($decision:ty, $allow_doc:literal, $block_doc:literal) => {
        impl $decision {
            #[doc = $allow_doc]
            pub fn allow() -> Self {
                Self::default()
            }

            #[doc = $block_doc]
            pub fn block(reason: impl Into<String>) -> Self {
                Self {
                    block: true,
                    reason: reason.into(),
                    ..Self::default()
                }
            }
        }
    };
}

/// Decision of a `tool_call` interceptor. The default allows the call
/// unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallDecision {
    /// Refuse the call; the model sees `reason` as the tool error.
    pub block: bool,
    /// Refusal text (ignored by the host when not blocking).
    pub reason: String,
    /// Complete replacement argument object (ignored when blocking). For
    /// `bash`, keep the required `timeout` when rewriting `command`.
    pub modified_args: Option<Value>,
}

allow_and_block!(
    ToolCallDecision,
    "Lets the call run unchanged.",
    "Refuses the call with `reason`."
);

impl ToolCallDecision {
    /// Lets the call run with `args` instead of the model's arguments.
    pub fn rewrite(args: Value) -> Self {
        Self {
            modified_args: Some(args),
            ..Self::default()
        }
    }
}

/// Decision of a `turn_start` interceptor. The default allows the turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnStartDecision {
    /// Skip the model call; `reason` is shown to the user.
    pub block: bool,
    /// Why the turn was blocked.
    pub reason: String,
    /// Hidden context sent only with the upcoming model request (ignored
    /// when blocking; bounded by the host to 16 KiB).
    pub context: String,
}

allow_and_block!(
    TurnStartDecision,
    "Lets the turn run.",
    "Blocks the turn with `reason`."
);

impl TurnStartDecision {
    /// Lets the turn run with hidden `context` for this request only.
    pub fn with_context(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            ..Self::default()
        }
    }
}

/// Decision of an `assistant_message` interceptor. The default shows the
/// message as is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssistantMessageDecision {
    /// Hide the message from the user (the transcript keeps it).
    pub block: bool,
    /// Why it was hidden.
    pub reason: String,
    /// Replacement user-visible text (ignored when blocking or empty).
    pub replace_text: String,
}

allow_and_block!(
    AssistantMessageDecision,
    "Shows the message unchanged.",
    "Hides the message with `reason`."
);

impl AssistantMessageDecision {
    /// Shows `text` to the user instead of the model's text.
    pub fn replace(text: impl Into<String>) -> Self {
        Self {
            replace_text: text.into(),
            ..Self::default()
        }
    }
}
