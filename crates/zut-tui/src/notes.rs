//! Transient notes under the transcript (command results, extension
//! notifications, status confirmations that expire) and the rows they and
//! the queued prompts take.

use std::time::Instant;

use ratatui::text::{Line, Span};

use crate::app::{App, STATUS_TTL};

/// A transient line under the transcript.
#[derive(Debug, Clone)]
pub struct Note {
    /// Text (one line).
    pub text: String,
    /// `info`, `warn`, `error`, `ok`.
    pub level: &'static str,
    /// When it disappears by itself (status confirmations).
    pub expires: Option<Instant>,
    /// The extension that owns it (removed with `clear_notes` and when
    /// the extension exits).
    pub owner: Option<String>,
}

impl App {
    pub(crate) fn note(&mut self, level: &'static str, text: impl Into<String>) {
        self.notes.push(Note {
            text: text.into(),
            level,
            expires: None,
            owner: None,
        });
        if self.notes.len() > 20 {
            self.notes.remove(0);
        }
    }

    /// `[ext] line` notes, one per line of `text` (empty text: none).
    pub(crate) fn owned_note(&mut self, ext: &str, level: &str, text: &str) {
        let level = match level {
            "error" => "error",
            "warn" | "warning" => "warn",
            "success" => "ok",
            _ => "info",
        };
        for line in crate::sanitize::clean(text).lines() {
            self.notes.push(Note {
                text: line.to_string(),
                level,
                expires: None,
                owner: Some(ext.to_string()),
            });
        }
        if self.notes.len() > 50 {
            let extra = self.notes.len() - 50;
            self.notes.drain(..extra);
        }
    }

    /// A note from outside (command results, shell errors...).
    pub fn push_note(&mut self, level: &'static str, text: impl Into<String>) {
        self.note(level, text);
    }

    /// A confirmation that disappears after [`STATUS_TTL`].
    pub fn push_status(&mut self, level: &'static str, text: impl Into<String>, now: Instant) {
        self.notes.push(Note {
            text: text.into(),
            level,
            expires: Some(now + STATUS_TTL),
            owner: None,
        });
    }

    /// Drops expired notes; returns when the next one expires.
    pub fn expire_notes(&mut self, now: Instant) -> Option<Instant> {
        self.notes.retain(|n| n.expires.is_none_or(|t| t > now));
        self.notes.iter().filter_map(|n| n.expires).min()
    }

    /// Notes and queued prompts as rows.
    pub fn note_rows(&self) -> Vec<Line<'static>> {
        let mut rows = Vec::new();
        for n in &self.notes {
            let style = match n.level {
                "error" => self.theme.error,
                "warn" => self.theme.warn,
                "ok" => self.theme.success,
                _ => self.theme.dim,
            };
            let mut spans = vec![Span::raw("  ")];
            if let Some(owner) = &n.owner {
                spans.push(Span::styled(format!("[{owner}] "), self.theme.accent));
            }
            spans.push(Span::styled(n.text.clone(), style));
            rows.push(Line::from(spans));
        }
        for q in &self.queue {
            let first = crate::sanitize::clean_line(q.lines().next().unwrap_or(""));
            rows.push(Line::from(vec![
                Span::styled("  ↳ queued: ", self.theme.dim),
                Span::raw(first),
            ]));
        }
        if !self.queue.is_empty() {
            rows.push(Line::from(Span::styled(
                "    (↑ on an empty input pulls the last one back)",
                self.theme.dim,
            )));
        }
        if self.quit_armed.is_some() {
            rows.push(Line::from(Span::styled(
                "  press Ctrl+C again to quit",
                self.theme.warn,
            )));
        }
        rows
    }
}
