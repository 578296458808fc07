//! What the TUI's snapshot tests share: an `App` with a fixed status bar
//! and its live area rendered on ratatui's `TestBackend`.
#![allow(dead_code, clippy::unwrap_used)]

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use zut_tui::app::App;
use zut_tui::history::History;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::{view, Status};

/// A `w`x`h` app without colours, provider `anthropic`, model
/// `test-model`, cwd `~/project`.
pub fn app(w: u16, h: u16) -> App {
    let status = Status {
        provider: "anthropic".into(),
        model: "test-model".into(),
        cwd: "~/project".into(),
        ..Default::default()
    };
    App::new(
        Theme::new(ColorDepth::None),
        (w, h),
        status,
        History::default(),
    )
}

/// The live area as text (one frame).
pub fn live(app: &mut App) -> String {
    let (w, h) = app.size;
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| {
        let area = f.area();
        view::render(app, area, f.buffer_mut());
    })
    .unwrap();
    term.backend().to_string()
}
