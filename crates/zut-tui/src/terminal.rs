//! Terminal setup and restore: raw mode, bracketed paste, the keyboard
//! enhancement protocol where supported (Shift+Enter), and a restore that
//! runs on exit, on a panic (hook) and after signals. Ctrl+Z suspends
//! with the terminal restored and re-enters on resume.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal;
use crossterm::{cursor, execute};

/// Whether the terminal is in our mode (so restore runs once).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Whether keyboard enhancement flags were pushed.
static ENHANCED: AtomicBool = AtomicBool::new(false);

/// Enters raw mode with bracketed paste; returns the cursor row where the
/// live area starts.
pub fn enter() -> io::Result<u16> {
    enter_modes()?;
    let row = cursor::position().map(|(_, y)| y).unwrap_or(0);
    Ok(row)
}

/// Raw mode, bracketed paste and keyboard enhancement (no cursor query:
/// safe while the input thread reads).
fn enter_modes() -> io::Result<()> {
    terminal::enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = io::stdout();
    execute!(out, EnableBracketedPaste)?;
    if matches!(terminal::supports_keyboard_enhancement(), Ok(true)) {
        execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
        ENHANCED.store(true, Ordering::SeqCst);
    }
    Ok(())
}

/// Restores the terminal (idempotent; safe from a panic hook).
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if ENHANCED.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(
        out,
        DisableBracketedPaste,
        crossterm::style::ResetColor,
        cursor::Show
    );
    let _ = terminal::disable_raw_mode();
    let _ = out.flush();
}

/// Installs a panic hook that restores the terminal before the message.
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// Ctrl+Z: restores the terminal, stops the process, re-enters raw mode on
/// resume.
pub fn suspend() -> io::Result<()> {
    restore();
    #[cfg(unix)]
    // SAFETY: raising a signal on our own process group has no memory
    // effects; SIGTSTP stops us until SIGCONT.
    unsafe {
        libc::kill(0, libc::SIGTSTP);
    }
    enter_modes()
}
