//! The MCP elicitation dialog: a server asks the user for input with a
//! small form (text, numbers, yes/no, one or several choices). The fields
//! come first, then **accept** and **decline**; Esc cancels.
//!
//! URL mode: the server asks the user to open a page. The dialog shows
//! its message, the page's host on a line of its own and the whole URL,
//! then **open in browser** (accept, and only then the browser is started:
//! `$BROWSER`, else `xdg-open`/`open`), **accept without opening** (the
//! user opens it elsewhere) and **decline**.
//!
//! Keys: Tab/↓ next row, Shift+Tab/↑ previous; typing edits a text or
//! number field; Space toggles yes/no and steps through a choice (←/→
//! too); digits 1–9 toggle the options of a multiple choice; Enter moves
//! on from a field, or presses the button it is on. An answer that does
//! not fit the form is not sent: the field is named with the reason.

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::text::{Line, Span};
use serde_json::{Map, Value};
use zut_types::elicitation::{parse_typed, validate, Field, FieldKind};
use zut_types::{AgentEvent, ElicitationAnswer, ElicitationRequest};

use crate::app::{App, Effect};
use crate::theme::Theme;
use crate::wrap;

/// Longest text kept in one field.
const MAX_TEXT: usize = 2000;

/// What a field holds while the form is open.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Typed text (text and number fields).
    Text(String),
    /// Yes or no.
    Bool(bool),
    /// The chosen option, if any.
    Choice(Option<usize>),
    /// Which options are chosen.
    Multi(Vec<bool>),
}

/// One open form.
#[derive(Debug, Clone)]
pub struct Form {
    /// The controller's request id.
    pub request_id: u64,
    /// The asking server.
    pub server: String,
    /// What it asks.
    pub message: String,
    /// The schema (to check the answer).
    pub schema: Value,
    /// The fields, in the server's order.
    pub fields: Vec<Field>,
    /// Their values.
    pub inputs: Vec<Input>,
    /// The focused row: a field, then accept, then decline.
    pub focus: usize,
    /// Why the last accept was refused.
    pub error: Option<String>,
    /// URL mode: the page to open.
    pub url: Option<String>,
    /// URL mode: its host, shown on its own line.
    pub host: Option<String>,
}

/// What a button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Button {
    /// Accept (URL mode: the user opens the page elsewhere).
    Accept,
    /// URL mode: accept and open the page in the browser.
    Open,
    /// Decline.
    Decline,
}

const FORM_BUTTONS: &[(&str, Button)] = &[("accept", Button::Accept), ("decline", Button::Decline)];
const URL_BUTTONS: &[(&str, Button)] = &[
    ("open in browser", Button::Open),
    ("accept without opening", Button::Accept),
    ("decline", Button::Decline),
];

impl Form {
    /// A form for `req`; `None` when its schema cannot be shown (zut-mcp
    /// declines those before they get here).
    pub fn new(req: &ElicitationRequest) -> Option<Self> {
        let host = match &req.url {
            Some(_) => Some(req.url_host()?),
            None => None,
        };
        let fields = if req.url.is_some() {
            Vec::new()
        } else {
            req.fields().ok()?
        };
        let inputs = fields.iter().map(initial).collect();
        Some(Self {
            request_id: req.id,
            server: req.server.clone(),
            message: req.message.clone(),
            schema: req.schema.clone(),
            fields,
            inputs,
            focus: 0,
            error: None,
            url: req.url.clone(),
            host,
        })
    }

    fn buttons(&self) -> &'static [(&'static str, Button)] {
        if self.url.is_some() {
            URL_BUTTONS
        } else {
            FORM_BUTTONS
        }
    }

    fn rows(&self) -> usize {
        self.fields.len() + self.buttons().len()
    }

    /// The answer's content, or the field and why it does not fit.
    pub fn content(&self) -> Result<Map<String, Value>, (usize, String)> {
        let mut out = Map::new();
        for (i, (f, input)) in self.fields.iter().zip(&self.inputs).enumerate() {
            let value = match (input, &f.kind) {
                (Input::Text(t), _) => parse_typed(f, t).map_err(|e| (i, e))?,
                (Input::Bool(b), _) => Some(Value::Bool(*b)),
                (Input::Choice(c), FieldKind::Choice { options }) => c
                    .and_then(|c| options.get(c))
                    .map(|(v, _)| Value::String(v.clone())),
                (Input::Multi(on), FieldKind::MultiChoice { options, .. }) => {
                    let chosen: Vec<Value> = options
                        .iter()
                        .zip(on)
                        .filter(|(_, on)| **on)
                        .map(|((v, _), _)| Value::String(v.clone()))
                        .collect();
                    (!chosen.is_empty() || f.required).then_some(Value::Array(chosen))
                }
                _ => None,
            };
            match value {
                Some(v) => {
                    out.insert(f.name.clone(), v);
                }
                None if f.required => return Err((i, "required".into())),
                None => {}
            }
        }
        validate(&self.schema, &out).map_err(|e| {
            let i = self
                .fields
                .iter()
                .position(|f| e.starts_with(&format!("{}:", f.name)))
                .unwrap_or(0);
            (i, e.split_once(": ").map_or(e.clone(), |(_, r)| r.into()))
        })?;
        Ok(out)
    }
}

fn initial(f: &Field) -> Input {
    let d = f.default.as_ref();
    match &f.kind {
        FieldKind::Boolean => Input::Bool(d.and_then(Value::as_bool).unwrap_or(false)),
        FieldKind::Choice { options } => Input::Choice(
            d.and_then(Value::as_str)
                .and_then(|d| options.iter().position(|(v, _)| v == d)),
        ),
        FieldKind::MultiChoice { options, .. } => {
            let chosen: Vec<&str> = d
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            Input::Multi(
                options
                    .iter()
                    .map(|(v, _)| chosen.contains(&v.as_str()))
                    .collect(),
            )
        }
        _ => Input::Text(match d {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        }),
    }
}

/// The forms waiting for an answer (the first one is shown).
#[derive(Debug, Clone, Default)]
pub struct Elicits {
    /// Oldest first.
    pub queue: VecDeque<Form>,
}

/// Whether the dialog has the keys (no panel open).
pub fn focused(app: &App) -> bool {
    !app.elicits.queue.is_empty() && app.chrome.panel.is_none()
}

/// Follows the events: a request opens a form, a close drops it.
pub(crate) fn on_event(app: &mut App, ev: &AgentEvent) {
    match ev {
        AgentEvent::McpElicitation {
            request_id,
            server,
            message,
            schema,
            order,
            url,
        } => {
            let req = ElicitationRequest {
                id: *request_id,
                server: server.clone(),
                message: message.clone(),
                schema: schema.clone(),
                order: order.clone(),
                url: url.clone(),
            };
            if let Some(form) = Form::new(&req) {
                app.elicits.queue.push_back(form);
                app.status.activity = Some(format!("{server} asks for input"));
                app.bell_pending |= app.alerts_enabled;
            }
        }
        AgentEvent::McpElicitationComplete { request_id, server } => {
            // A dialog still open for it closes without the note of a
            // server that stopped waiting.
            app.elicits.queue.retain(|f| f.request_id != *request_id);
            app.push_note("info", format!("{server}: the page's flow finished"));
        }
        AgentEvent::McpElicitationClosed { request_id } => {
            let before = app.elicits.queue.len();
            app.elicits.queue.retain(|f| f.request_id != *request_id);
            if app.elicits.queue.len() < before {
                app.push_note("info", "the MCP server stopped waiting for the form");
            }
        }
        _ => {}
    }
}

fn answered(app: &mut App, answer: ElicitationAnswer) -> Vec<Effect> {
    let Some(form) = app.elicits.queue.pop_front() else {
        return Vec::new();
    };
    vec![Effect::AnswerElicitation {
        request_id: form.request_id,
        answer,
    }]
}

/// A key while the dialog has focus.
pub(crate) fn key(app: &mut App, key: &KeyEvent) -> Vec<Effect> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let Some(form) = app.elicits.queue.front_mut() else {
        return Vec::new();
    };
    let rows = form.rows();
    let n = form.fields.len();
    match key.code {
        KeyCode::Esc => return answered(app, ElicitationAnswer::cancel()),
        KeyCode::Char('c') if ctrl => return answered(app, ElicitationAnswer::cancel()),
        KeyCode::Tab | KeyCode::Down => form.focus = (form.focus + 1) % rows,
        KeyCode::BackTab | KeyCode::Up => form.focus = (form.focus + rows - 1) % rows,
        KeyCode::Enter if form.focus >= n => {
            let button = form.buttons().get(form.focus - n).map(|b| b.1);
            match button {
                Some(Button::Decline) => return answered(app, ElicitationAnswer::decline()),
                Some(Button::Open) => {
                    let url = form.url.clone().unwrap_or_default();
                    let mut effects = answered(app, ElicitationAnswer::accept(Map::new()));
                    effects.push(Effect::OpenUrl(url));
                    return effects;
                }
                Some(Button::Accept) | None => match form.content() {
                    Ok(content) => return answered(app, ElicitationAnswer::accept(content)),
                    Err((i, why)) => {
                        form.error = Some(format!("{}: {why}", form.fields[i].title));
                        form.focus = i;
                    }
                },
            }
        }
        KeyCode::Enter => form.focus += 1,
        code => {
            if let (Some(f), Some(input)) =
                (form.fields.get(form.focus), form.inputs.get_mut(form.focus))
            {
                edit(f, input, code, ctrl);
            }
        }
    }
    Vec::new()
}

fn edit(f: &Field, input: &mut Input, code: KeyCode, ctrl: bool) {
    match (input, code) {
        (Input::Text(t), KeyCode::Backspace) => {
            t.pop();
        }
        (Input::Text(t), KeyCode::Char(c))
            if !ctrl && !c.is_control() && t.chars().count() < MAX_TEXT =>
        {
            t.push(c);
        }
        (Input::Bool(b), KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right) => *b = !*b,
        (Input::Bool(b), KeyCode::Char('y')) => *b = true,
        (Input::Bool(b), KeyCode::Char('n')) => *b = false,
        (Input::Choice(c), KeyCode::Char(' ') | KeyCode::Right | KeyCode::Left) => {
            let FieldKind::Choice { options } = &f.kind else {
                return;
            };
            // Optional choices can be left unset (one more step).
            let steps = options.len() + usize::from(!f.required);
            let pos = c.map_or(options.len(), |i| i);
            let next = if code == KeyCode::Left {
                (pos + steps - 1) % steps
            } else {
                (pos + 1) % steps
            };
            *c = (next < options.len()).then_some(next);
        }
        (Input::Multi(on), KeyCode::Char(d @ '1'..='9')) => {
            let i = usize::from(d as u8 - b'1');
            if let Some(o) = on.get_mut(i) {
                *o = !*o;
            }
        }
        _ => {}
    }
}

/// Starts the browser on `url` (`$BROWSER`, else `open` on macOS and
/// `xdg-open` elsewhere) without waiting for it; only an `http`/`https`
/// URL with a plain host is opened.
pub(crate) fn open_in_browser(url: &str) -> Result<(), String> {
    if zut_types::elicitation::url_host(url).is_none() {
        return Err("not an http(s) URL".into());
    }
    let program = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            }
        });
    std::process::Command::new(&program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|mut child| {
            // Reaped on a thread of its own (no zombie, no wait here).
            std::thread::spawn(move || child.wait());
        })
        .map_err(|e| format!("{program}: {e}"))
}

/// A paste while the dialog has focus goes into a text field.
pub(crate) fn paste(app: &mut App, text: &str) {
    let Some(form) = app.elicits.queue.front_mut() else {
        return;
    };
    if let Some(Input::Text(t)) = form.inputs.get_mut(form.focus) {
        let room = MAX_TEXT.saturating_sub(t.chars().count());
        t.extend(crate::sanitize::clean_line(text).chars().take(room));
    }
}

fn value_text(f: &Field, input: &Input) -> String {
    match (input, &f.kind) {
        (Input::Text(t), _) => t.clone(),
        (Input::Bool(b), _) => if *b { "[x] yes" } else { "[ ] no" }.into(),
        (Input::Choice(c), FieldKind::Choice { options }) => match c.and_then(|c| options.get(c)) {
            Some((_, title)) => format!("‹ {title} ›"),
            None => "‹ (none) ›".into(),
        },
        (Input::Multi(on), FieldKind::MultiChoice { options, .. }) => options
            .iter()
            .zip(on)
            .enumerate()
            .map(|(i, ((_, t), on))| format!("{}[{}] {t}", i + 1, if *on { "x" } else { " " }))
            .collect::<Vec<_>>()
            .join("  "),
        _ => String::new(),
    }
}

/// The dialog's rows at `width`.
pub fn rows(e: &Elicits, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let Some(form) = e.queue.front() else {
        return Vec::new();
    };
    let frame_box = wrap::CentredBox::new(width, 100, theme.accent);
    let inner = frame_box.inner;
    let frame = |content: Line<'static>| frame_box.row(content);
    let what = if form.url.is_some() {
        "asks you to open a page"
    } else {
        "asks"
    };
    let server = crate::sanitize::clean_line(&form.server);
    let mut title = format!(" {server} {what} ");
    if e.queue.len() > 1 {
        title = format!(" {server} {what} (1 of {}) ", e.queue.len());
    }
    let mut out = vec![frame_box.top(title, theme.accent)];
    for line in form.message.lines().take(8) {
        let text = crate::sanitize::clean_line(line);
        let chars: Vec<char> = text.chars().collect();
        for chunk in chars.chunks(inner.saturating_sub(2).max(1)).take(4) {
            out.push(frame(Line::from(Span::styled(
                format!(" {}", chunk.iter().collect::<String>()),
                theme.text,
            ))));
        }
    }
    out.push(frame(Line::default()));
    if let (Some(url), Some(host)) = (&form.url, &form.host) {
        out.push(frame(Line::from(vec![
            Span::styled(" opens a page at ", theme.text),
            Span::styled(crate::sanitize::clean_line(host), theme.accent),
        ])));
        let url: Vec<char> = crate::sanitize::clean_line(url).chars().collect();
        for chunk in url.chunks(inner.saturating_sub(2).max(1)).take(6) {
            out.push(frame(Line::from(Span::styled(
                format!(" {}", chunk.iter().collect::<String>()),
                theme.dim,
            ))));
        }
        out.push(frame(Line::default()));
    }
    for (i, (f, input)) in form.fields.iter().zip(&form.inputs).enumerate() {
        let on = i == form.focus;
        let style = if on { theme.selected } else { theme.text };
        let mut spans = vec![
            Span::styled(if on { "› " } else { "  " }, theme.accent),
            Span::styled(
                format!(
                    "{}{}: ",
                    crate::sanitize::clean_line(&f.title),
                    if f.required { " *" } else { "" }
                ),
                style,
            ),
            Span::styled(
                crate::sanitize::clean_line(&value_text(f, input)),
                theme.text,
            ),
        ];
        if on && matches!(input, Input::Text(_)) {
            spans.push(Span::styled("▏", theme.accent));
        }
        out.push(frame(Line::from(spans)));
        if on {
            if let Some(d) = &f.description {
                out.push(frame(Line::from(Span::styled(
                    format!("    {}", crate::sanitize::clean_line(d)),
                    theme.dim,
                ))));
            }
        }
    }
    out.push(frame(Line::default()));
    for (j, (label, _)) in form.buttons().iter().enumerate() {
        let on = form.focus == form.fields.len() + j;
        out.push(frame(Line::from(vec![
            Span::styled(if on { "› " } else { "  " }, theme.accent),
            Span::styled(
                format!("[ {label} ]"),
                if on { theme.selected } else { theme.text },
            ),
        ])));
    }
    if let Some(err) = &form.error {
        out.push(frame(Line::from(Span::styled(
            format!(" {}", crate::sanitize::clean_line(err)),
            theme.warn,
        ))));
    }
    let help = if form.url.is_some() {
        " tab/↑↓ move · enter press · esc cancel"
    } else {
        " tab/↑↓ move · space/←→ choose · 1-9 toggle · enter next/press · esc cancel"
    };
    out.push(frame(Line::from(Span::styled(help, theme.dim))));
    out.push(frame_box.bottom());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> Form {
        Form::new(&ElicitationRequest {
            id: 7,
            server: "py".into(),
            message: "Book?".into(),
            schema: json!({"type": "object", "properties": {
                "name": {"type": "string"},
                "guests": {"type": "integer", "maximum": 10, "default": 2},
                "veg": {"type": "boolean"},
                "pet": {"type": "string", "enum": ["cat", "dog"]},
                "fish": {"type": "array", "items": {"enum": ["tuna", "trout"]}}
            }, "required": ["name"]}),
            order: vec![
                "name".into(),
                "guests".into(),
                "veg".into(),
                "pet".into(),
                "fish".into(),
            ],
            url: None,
        })
        .unwrap()
    }

    fn key(f: &mut Form, i: usize, code: KeyCode) {
        let field = f.fields[i].clone();
        edit(&field, &mut f.inputs[i], code, false);
    }

    #[test]
    fn the_form_builds_its_answer_and_names_what_does_not_fit() {
        let mut f = form();
        assert_eq!(f.inputs[1], Input::Text("2".into()));
        assert_eq!(f.content().unwrap_err(), (0, "required".into()));
        for c in "Ada".chars() {
            key(&mut f, 0, KeyCode::Char(c));
        }
        key(&mut f, 1, KeyCode::Char('0'));
        assert_eq!(f.content().unwrap_err(), (1, "at most 10".into()));
        key(&mut f, 1, KeyCode::Backspace);
        key(&mut f, 2, KeyCode::Char(' '));
        // An optional choice steps through its options, then unset.
        key(&mut f, 3, KeyCode::Right);
        key(&mut f, 3, KeyCode::Right);
        assert_eq!(f.inputs[3], Input::Choice(Some(1)));
        key(&mut f, 3, KeyCode::Right);
        assert_eq!(f.inputs[3], Input::Choice(None));
        key(&mut f, 3, KeyCode::Left);
        key(&mut f, 4, KeyCode::Char('2'));
        assert_eq!(
            Value::Object(f.content().unwrap()),
            json!({"name": "Ada", "guests": 2, "veg": true, "pet": "dog", "fish": ["trout"]})
        );
    }

    #[test]
    fn a_url_request_shows_its_host_and_opens_only_on_the_open_button() {
        let req = ElicitationRequest {
            id: 3,
            server: "pay".into(),
            message: "Confirm the payment".into(),
            schema: json!({"type": "object", "properties": {}}),
            order: Vec::new(),
            url: Some("https://Pay.Example.com/confirm?id=9".into()),
        };
        let form = Form::new(&req).unwrap();
        assert_eq!(form.host.as_deref(), Some("pay.example.com"));
        assert_eq!(form.rows(), 3);
        let text: Vec<String> = rows(
            &Elicits {
                queue: [form].into(),
            },
            80,
            &Theme::new(crate::theme::ColorDepth::None),
        )
        .iter()
        .map(|l| l.to_string())
        .collect();
        let all = text.join("\n");
        assert!(all.contains("pay asks you to open a page"), "{all}");
        assert!(all.contains("opens a page at pay.example.com"), "{all}");
        assert!(
            all.contains("https://Pay.Example.com/confirm?id=9"),
            "{all}"
        );
        assert!(
            all.contains("[ open in browser ]") && all.contains("[ decline ]"),
            "{all}"
        );
        // A URL zut would not show plainly is no dialog at all.
        let bad = ElicitationRequest {
            url: Some("https://bank.com@evil.example/".into()),
            ..req
        };
        assert!(Form::new(&bad).is_none());
    }
}
