//! The interactive application: the `zut-tui` screen driven by the
//! conversation controller. The front end (the CLI) resolves flags and
//! files into a [`Launch`]; [`run`] opens the conversation, paints a
//! resumed one, forwards the controller's events to the screen and answers
//! the screen's requests (commands, pickers, session moves, model switches,
//! `/login`, MCP and subagent commands) on the conversation's runtime.
//!
//! | module | concern |
//! |---|---|
//! | `mode` | [`Launch`], [`run`], the `zut_tui::Controller` implementation, events to the screen, commands |
//! | `replay` | a resumed conversation's tail as transcript events |
//! | `session` | `/sessions`, `/fork`, the tree, `/new`, rename: the pickers and the moves |
//! | `models` | `/model` across providers, quick slots, `/login`, `/logout` |
//! | `settings` | settings the TUI changes, saved to `config.json` |
//! | `mcp` | the `/mcp` picker |
//! | `subagents` | `/subagents`, `/orchestrator` |

mod mcp;
mod mode;
mod models;
mod replay;
mod session;
mod settings;
mod subagents;

pub use mode::{run, Launch};
