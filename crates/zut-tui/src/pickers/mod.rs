//! Pickers: framed lists floating over the chat (`/sessions`, `/fork`,
//! the session tree, `/model`, `/reasoning`, `/settings`, `/skills`,
//! `/theme`, `/mcp`). A picker has the
//! keys while it is open: ↑/↓, PgUp/PgDn, Home/End move, typing filters,
//! Enter picks, Esc clears the filter then closes.
//!
//! The entries of the conversation's pickers (sessions, turns, models)
//! come from the conversation side ([`crate::Controller::open_picker`]
//! answered with [`crate::TuiEvent::Picker`]); what a pick does is done
//! there too ([`crate::Controller::pick`]). `/settings` and `/reasoning`
//! are built here from what the TUI already knows.

mod keys;
mod login;
mod render;
mod sessions;
pub mod slots;
mod theme;

use std::time::{Duration, Instant};

use crate::app::{App, Effect};

pub use keys::Outcome;

/// Double Esc within this window opens the session tree.
const DOUBLE_ESC: Duration = Duration::from_millis(500);

/// Which picker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PickerKind {
    /// Resume a session of this directory.
    Sessions,
    /// Fork the session at a user message.
    Fork,
    /// The session's history and branches; check one out.
    Tree,
    /// Switch model.
    Model,
    /// Reasoning level.
    Reasoning,
    /// Settings (model, reasoning, alerts).
    Settings,
    /// Resume a session of any directory (the sessions picker's other
    /// scope, Tab).
    AllSessions,
    /// The skills; a pick puts `/skill:<name> ` into the editor.
    Skills,
    /// Themes, previewed while moving.
    Theme,
    /// `/mcp`: the MCP servers and their states; a pick opens
    /// [`PickerKind::McpServer`] for that server.
    Mcp,
    /// One MCP server's actions (enable, disable, reconnect); a pick runs
    /// `/mcp <action> <server>`.
    McpServer,
    /// `/login`: pick a provider, then type its key (masked).
    Login,
    /// `/logout`: pick a provider whose stored key to remove.
    Logout,
    /// `/subagents`: the children; Enter opens one's transcript.
    Subagents,
    /// One child's transcript, live (`crate::subagents_view`).
    SubagentLog,
}

impl PickerKind {
    /// The command that opens it (without the slash).
    pub fn command(self) -> &'static str {
        match self {
            Self::Sessions => "sessions",
            Self::Fork => "fork",
            Self::Tree => "tree",
            Self::Model => "model",
            Self::Reasoning => "reasoning",
            Self::Settings => "settings",
            Self::AllSessions => "sessions",
            Self::Skills => "skills",
            Self::Theme => "theme",
            Self::Mcp | Self::McpServer => "mcp",
            Self::Login => "login",
            Self::Logout => "logout",
            Self::Subagents | Self::SubagentLog => "subagents",
        }
    }
}

/// One row of a picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerItem {
    /// The text shown (one line; sanitized when drawn).
    pub label: String,
    /// Dim text after the label (one line).
    pub detail: String,
    /// What a pick of this row sends back (empty: not pickable, e.g. the
    /// `[current]` row).
    pub value: String,
    /// Marked as the current one (`●`).
    pub current: bool,
}

impl PickerItem {
    /// A pickable row.
    pub fn new(label: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            detail: String::new(),
            value: value.into(),
            current: false,
        }
    }

    /// With dim detail text.
    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }

    /// Marked as the current entry.
    pub fn current(mut self, current: bool) -> Self {
        self.current = current;
        self
    }
}

/// An open picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picker {
    /// Which one.
    pub kind: PickerKind,
    /// Title in the top border.
    pub title: String,
    /// The key hint under the title.
    pub hint: String,
    /// Every row, in order.
    pub items: Vec<PickerItem>,
    /// What was typed to filter.
    pub query: String,
    /// Selected position within the filtered rows.
    pub selected: usize,
    /// Shown when there are no rows at all.
    pub empty: String,
    /// The new title being typed for the selected session (Ctrl+R in the
    /// sessions picker).
    pub rename: Option<String>,
    /// What Esc goes back to (the theme in use before the preview); the
    /// provider whose key is typed in the `/login` picker.
    pub origin: String,
    /// The key being typed in the `/login` picker (drawn masked).
    pub secret: Option<String>,
}

impl Picker {
    /// A picker of `kind` with `items`; the first current row is selected.
    pub fn new(kind: PickerKind, title: &str, items: Vec<PickerItem>) -> Self {
        let hint = match kind {
            PickerKind::Sessions | PickerKind::AllSessions => {
                "↑/↓ · enter resume · type to filter · / search · tab scope · ctrl+r rename · esc"
            }
            PickerKind::Skills => {
                "↑/↓ pick · enter insert /skill:<name> · type to filter · esc close"
            }
            PickerKind::Theme => {
                "↑/↓ preview · enter switch and save · type to filter · esc restore"
            }
            PickerKind::Fork => {
                "↑/↓ pick · enter fork (the message back in the editor) · esc cancel"
            }
            PickerKind::Tree => {
                "↑/↓ pgup/pgdn home/end · enter check out · type to filter · esc cancel"
            }
            PickerKind::Model | PickerKind::Reasoning => {
                "↑/↓ pick · enter switch · type to filter · esc cancel"
            }
            PickerKind::Settings => "↑/↓ pick · enter change · esc close",
            PickerKind::Mcp => "↑/↓ pick · enter enable/disable/reconnect · type to filter · esc",
            PickerKind::McpServer => "↑/↓ pick · enter run · esc close",
            PickerKind::Login => {
                "↑/↓ pick a provider · enter type its key · type to filter · esc cancel"
            }
            PickerKind::Logout => "↑/↓ pick · enter remove its stored key · esc cancel",
            PickerKind::Subagents => {
                "↑/↓ pick · enter transcript · ctrl+e message · ctrl+x stop · esc close"
            }
            PickerKind::SubagentLog => {
                "live · ↑/↓ scroll · ctrl+e message · ctrl+x stop · esc back"
            }
        };
        let selected = items.iter().position(|i| i.current).unwrap_or(0);
        Self {
            kind,
            title: title.to_string(),
            hint: hint.to_string(),
            items,
            query: String::new(),
            selected,
            empty: "nothing to pick".into(),
            rename: None,
            origin: String::new(),
            secret: None,
        }
    }

    /// With the text shown when there are no rows.
    pub fn empty_text(mut self, text: &str) -> Self {
        self.empty = text.to_string();
        self
    }

    /// With `selected` as the selected row (clamped).
    pub fn select(mut self, selected: usize) -> Self {
        self.selected = selected.min(self.items.len().saturating_sub(1));
        self
    }

    /// Indices of the rows matching the filter (case-insensitive
    /// substring of the label or detail), in order.
    pub fn visible(&self) -> Vec<usize> {
        let mut q = self.query.to_lowercase();
        if matches!(self.kind, PickerKind::Sessions | PickerKind::AllSessions) && q.starts_with('/')
        {
            // `/words`: a full-text search, run on Enter; the rows stay.
            q.clear();
        }
        self.items
            .iter()
            .enumerate()
            .filter(|(_, it)| {
                q.is_empty()
                    || it.label.to_lowercase().contains(&q)
                    || it.detail.to_lowercase().contains(&q)
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The selected row, if any row is visible.
    pub fn selected_item(&self) -> Option<&PickerItem> {
        let v = self.visible();
        v.get(self.selected.min(v.len().saturating_sub(1)))
            .map(|i| &self.items[*i])
    }
}

/// What the picker commands do in the app; `None` when `name` is not one
/// of them (or is given arguments it passes on, like `/model <id>`).
pub(crate) fn builtin(app: &mut App, name: &str, args: &str) -> Option<Vec<Effect>> {
    let kind = match name {
        "sessions" | "resume" => PickerKind::Sessions,
        "fork" => PickerKind::Fork,
        "tree" => PickerKind::Tree,
        "model" | "models" if args.is_empty() => {
            // `/model` itself switches, whatever a slot row asked before.
            app.pending_slot = None;
            PickerKind::Model
        }
        "reasoning" if args.is_empty() => {
            app.picker = Some(reasoning_picker(&app.status.reasoning));
            return Some(Vec::new());
        }
        "settings" => {
            app.picker = Some(settings_picker(app));
            return Some(Vec::new());
        }
        "skills" => PickerKind::Skills,
        "mcp" if args.is_empty() => PickerKind::Mcp,
        "login" => {
            if let Some(effects) = login::command(app, args) {
                return Some(effects);
            }
            PickerKind::Login
        }
        "logout" if args.is_empty() => PickerKind::Logout,
        "theme" | "themes" if args.is_empty() => {
            app.picker = Some(theme::picker(app));
            return Some(Vec::new());
        }
        _ => return None,
    };
    Some(open(app, kind))
}

/// Asks the conversation for a picker's rows (session pickers wait for the
/// running turn).
pub(crate) fn open(app: &mut App, kind: PickerKind) -> Vec<Effect> {
    if app.busy
        && matches!(
            kind,
            PickerKind::Sessions | PickerKind::AllSessions | PickerKind::Fork | PickerKind::Tree
        )
    {
        app.push_note(
            "warn",
            format!(
                "/{} waits for the running turn (esc stops it)",
                kind.command()
            ),
        );
        return Vec::new();
    }
    vec![Effect::OpenPicker(kind)]
}

/// Esc on an idle, empty editor: a second one within half a second opens
/// the session tree.
pub(crate) fn double_esc(app: &mut App, now: Instant) -> Vec<Effect> {
    if app.busy || !app.editor.is_empty() {
        app.last_esc = None;
        return Vec::new();
    }
    match app.last_esc.take() {
        Some(t) if now.duration_since(t) < DOUBLE_ESC => open(app, PickerKind::Tree),
        _ => {
            app.last_esc = Some(now);
            Vec::new()
        }
    }
}

/// The reasoning levels, the current one marked.
fn reasoning_picker(current: &str) -> Picker {
    let current = if current.is_empty() { "off" } else { current };
    let items = zut_types::REASONING_LEVELS
        .iter()
        .map(|l| PickerItem::new(*l, *l).current(*l == current))
        .collect();
    Picker::new(PickerKind::Reasoning, "reasoning", items)
}

/// `/settings`: what can be changed from the TUI.
fn settings_picker(app: &App) -> Picker {
    let s = &app.status;
    let reasoning = if s.reasoning.is_empty() {
        "off"
    } else {
        &s.reasoning
    };
    let mut items = vec![
        PickerItem::new("model", "model").detail(format!("{} ({})", s.model, s.provider)),
        PickerItem::new("reasoning", "reasoning").detail(reasoning.to_string()),
        PickerItem::new("terminal alerts", "alerts").detail(
            match (app.alerts_enabled, app.themes.config_path.is_some()) {
                (true, true) => "on: alerts and approvals ring the bell (config.json)",
                (true, false) => "on: alerts and approvals ring the bell (this run)",
                (false, true) => "off (config.json)",
                (false, false) => "off (this run)",
            },
        ),
    ];
    items.extend(slots::rows(app));
    Picker::new(PickerKind::Settings, "settings", items)
}

/// A pick: the model and reasoning go through their commands, settings
/// open the next picker, the rest is the conversation's.
fn picked(app: &mut App, kind: PickerKind, value: String) -> Vec<Effect> {
    match kind {
        PickerKind::Model => vec![Effect::Command {
            name: "model".into(),
            args: value,
        }],
        PickerKind::Reasoning => vec![Effect::Command {
            name: "reasoning".into(),
            args: value,
        }],
        PickerKind::Settings => match value.as_str() {
            "model" => open(app, PickerKind::Model),
            "reasoning" => {
                app.picker = Some(reasoning_picker(&app.status.reasoning));
                Vec::new()
            }
            "alerts" => {
                app.alerts_enabled = !app.alerts_enabled;
                let state = if app.alerts_enabled { "on" } else { "off" };
                // Written to config.json, as the Go original's /settings does.
                let saved = match &app.themes.config_path {
                    Some(cfg) => match crate::config_write::set(
                        cfg,
                        &[(
                            "terminal_alerts_enabled",
                            serde_json::Value::Bool(app.alerts_enabled),
                        )],
                    ) {
                        Ok(()) => " (saved)".to_string(),
                        Err(e) => {
                            app.push_note("error", format!("terminal alerts not saved: {e}"));
                            String::new()
                        }
                    },
                    None => String::new(),
                };
                app.push_status(
                    "ok",
                    format!("✓ terminal alerts {state}{saved}"),
                    Instant::now(),
                );
                app.picker = Some(settings_picker(app).select(2));
                Vec::new()
            }
            other => slots::pick(app, other).unwrap_or_default(),
        },
        PickerKind::Skills => {
            app.editor.insert(&format!("/skill:{value} "));
            app.popup_dismissed = true;
            Vec::new()
        }
        PickerKind::Theme => crate::themes::command(app, &value),
        PickerKind::McpServer => vec![Effect::Command {
            name: "mcp".into(),
            args: value,
        }],
        PickerKind::Mcp => vec![Effect::Pick { kind, value }],
        PickerKind::Sessions
        | PickerKind::AllSessions
        | PickerKind::Fork
        | PickerKind::Tree
        | PickerKind::Login => {
            vec![Effect::Pick { kind, value }]
        }
        PickerKind::Logout => vec![Effect::Command {
            name: "logout".into(),
            args: value,
        }],
        // Their keys are `crate::subagents_view`'s.
        PickerKind::Subagents | PickerKind::SubagentLog => Vec::new(),
    }
}

/// New rows for the open picker, when it is of `p`'s kind (the filter and
/// the selected row kept); dropped otherwise (closed, or another picker).
pub fn update(app: &mut App, mut p: Picker) {
    let Some(open) = app.picker.as_ref().filter(|o| o.kind == p.kind) else {
        return;
    };
    let value = open.selected_item().map(|i| i.value.clone());
    let open = open.clone();
    slots::redecorate(app, &open, &mut p);
    p.query = open.query.clone();
    let visible = p.visible();
    p.selected = value
        .and_then(|v| visible.iter().position(|i| p.items[*i].value == v))
        .unwrap_or(0);
    app.picker = Some(p);
}

/// A key while a picker is open.
pub(crate) fn key(app: &mut App, key: &crossterm::event::KeyEvent) -> Vec<Effect> {
    if let Some(effects) = sessions::key(app, key) {
        return effects;
    }
    if let Some(effects) = login::key(app, key) {
        return effects;
    }
    if let Some(effects) = crate::subagents_view::key(app, key) {
        return effects;
    }
    let Some(p) = app.picker.as_mut() else {
        return Vec::new();
    };
    let outcome = keys::handle(p, key);
    theme::preview(app, &outcome);
    let Some(p) = app.picker.as_mut() else {
        return Vec::new();
    };
    match outcome {
        Outcome::Stay => Vec::new(),
        Outcome::Close => {
            app.picker = None;
            Vec::new()
        }
        Outcome::Pick(value) => {
            let (kind, slot) = (p.kind, slots::slot_of(p));
            app.picker = None;
            match slot {
                Some(n) => slots::assign(app, n, &value),
                None => picked(app, kind, value),
            }
        }
    }
}

/// A paste while a picker is open goes into the filter.
pub(crate) fn paste(app: &mut App, text: &str) {
    if let Some(p) = app.picker.as_mut() {
        if sessions::paste(p, text) || login::paste(p, text) {
            return;
        }
        p.query.push_str(
            &crate::sanitize::clean_line(text)
                .chars()
                .take(200)
                .collect::<String>(),
        );
        p.selected = 0;
    }
    theme::preview(app, &Outcome::Stay);
}

pub use render::{plain, rows};

/// Ctrl+1..9: the model of that quick-model slot (`/model slot:N`, which
/// the conversation side resolves from config.json); not while a turn runs.
pub(crate) fn quick_model(app: &mut App, key: &crossterm::event::KeyEvent) -> Vec<Effect> {
    let Some(n) = crate::keymap::quick_model_slot(key) else {
        return Vec::new();
    };
    if app.busy {
        app.push_note("warn", "model shortcuts wait for the running turn");
        return Vec::new();
    }
    vec![Effect::Command {
        name: "model".into(),
        args: format!("slot:{n}"),
    }]
}
