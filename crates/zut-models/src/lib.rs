//! Models as users choose them, shared by every front end (print, TUI,
//! RPC, ACP) and `zut auth`/`--list-models`:
//!
//! * [`table`]: the model rows across providers (catalog, presets'
//!   defaults, `models.json`, discovered models), with prices and limits;
//! * [`discovery`]: live model lists fetched in the background and cached
//!   in `$ZUT_HOME/models-cache.json`;
//! * [`keys`]: where each provider's key comes from, checking a key before
//!   saving it to `auth.json`, removing one;
//! * [`oauth`]: OpenRouter's OAuth PKCE login (the local callback);
//! * [`switch`]: switching a live conversation to another provider's model
//!   and the controller hooks that need the settings files.
//!
//! Nothing here prints: the callers show the messages and errors.

pub mod discovery;
pub mod keys;
pub mod oauth;
pub mod switch;
pub mod table;
