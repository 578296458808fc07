//! Neutralising untrusted text (tool output, model text, extension text)
//! before it reaches the terminal: escape sequences are dropped, control
//! characters removed, tabs expanded. Nothing from outside is ever written
//! to the terminal raw.

use std::borrow::Cow;

/// Spaces a tab becomes.
const TAB: &str = "    ";

/// Whether `c` needs work in [`clean`].
fn special(c: char) -> bool {
    (c < ' ' && c != '\n') || c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c)
}

/// `s` with ANSI/OSC/other escape sequences removed, tabs expanded to four
/// spaces, `\r` and every other C0/C1 control character dropped. Newlines
/// are kept. Borrows when there is nothing to change.
pub fn clean(s: &str) -> Cow<'_, str> {
    if !s.chars().any(special) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' => skip_string(&mut chars),
            '\t' => out.push_str(TAB),
            c if special(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `clean` on a single line: newlines become spaces too.
pub fn clean_line(s: &str) -> String {
    clean(s).replace('\n', " ")
}

fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.peek() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']') | Some('P') | Some('_') | Some('^') | Some('X') => {
            chars.next();
            skip_string(chars);
        }
        Some(_) => {
            // Two-character sequences (ESC c, ESC 7, ESC ( B ...).
            if let Some(c) = chars.next() {
                if ('\u{20}'..='\u{2f}').contains(&c) {
                    chars.next();
                }
            }
        }
        None => {}
    }
}

/// CSI: parameters and intermediates up to a final byte in `@`..`~`.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            return;
        }
        if !('\u{20}'..='\u{3f}').contains(&c) {
            return;
        }
    }
}

/// OSC/DCS/APC/PM/SOS: up to BEL or ST (`ESC \`).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escapes_and_controls() {
        assert!(matches!(clean("plain\ntext"), Cow::Borrowed(_)));
        assert_eq!(clean("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(clean("a\u{1b}]0;title\u{7}b"), "ab");
        assert_eq!(clean("a\u{1b}]8;;http://x\u{1b}\\b"), "ab");
        assert_eq!(clean("bell\u{7} cr\r bs\u{8} del\u{7f}"), "bell cr bs del");
        assert_eq!(clean("\tx"), "    x");
        assert_eq!(clean("c1\u{9b}2Jx"), "c1x");
        assert_eq!(clean("esc at end\u{1b}"), "esc at end");
        assert_eq!(clean_line("a\nb"), "a b");
    }
}
