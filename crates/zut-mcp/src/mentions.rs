//! `@server:uri` mentions in a prompt (Claude Code's syntax): each names a
//! resource of an MCP server; its contents are read and attached to the
//! prompt, bounded ([`MAX_MENTION_BYTES`] per resource, [`MAX_TOTAL_BYTES`]
//! in all). A mention of an unknown server, a server that is not ready or
//! a resource the server refuses becomes a line saying so, and the prompt
//! still goes out.
//!
//! A mention starts with `@` at the start of the text or after white
//! space, then a server name, `:`, and the URI up to the next white space
//! (trailing `.`, `,`, `;`, `!`, `?`, `)` are left out). `@name:…` whose
//! name is no configured server is left alone unless the rest looks like a
//! URI (`scheme://…`), so `@alice: hi` is plain text.

use crate::content::McpContent;

/// Bytes of one resource attached at most.
pub const MAX_MENTION_BYTES: usize = 64 * 1024;
/// Bytes attached by one prompt at most.
pub const MAX_TOTAL_BYTES: usize = 256 * 1024;
/// Mentions read per prompt at most.
pub const MAX_MENTIONS: usize = 16;

/// One `@server:uri` in a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The server's name.
    pub server: String,
    /// The resource URI.
    pub uri: String,
}

impl Mention {
    /// `@server:uri`.
    pub fn shown(&self) -> String {
        format!("@{}:{}", self.server, self.uri)
    }
}

/// The mentions in `text`, in order, without repeats. `servers` are the
/// configured server names.
pub fn find(text: &str, servers: &[String]) -> Vec<Mention> {
    let mut out: Vec<Mention> = Vec::new();
    let mut prev_space = true;
    for (i, c) in text.char_indices() {
        if c == '@' && prev_space {
            if let Some(m) = parse_at(&text[i + 1..], servers) {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
        prev_space = c.is_whitespace();
    }
    out
}

fn parse_at(rest: &str, servers: &[String]) -> Option<Mention> {
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    let (name, after) = rest.split_at(name_len);
    let after = after.strip_prefix(':')?;
    let end = after.find(char::is_whitespace).unwrap_or(after.len());
    let uri = after[..end].trim_end_matches(['.', ',', ';', '!', '?', ')']);
    if name.is_empty() || uri.is_empty() {
        return None;
    }
    let known = servers.iter().any(|s| s == name);
    if !known && !looks_like_uri(uri) {
        return None;
    }
    Some(Mention {
        server: name.to_string(),
        uri: uri.to_string(),
    })
}

fn looks_like_uri(s: &str) -> bool {
    match s.split_once("://") {
        Some((scheme, _)) => {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// A mention's contents for the prompt: the text blocks wrapped in a
/// header naming the resource, cut at the bounds; images kept as they are.
/// `budget` is what is left of [`MAX_TOTAL_BYTES`] and is reduced.
pub fn attach(m: &Mention, contents: Vec<McpContent>, budget: &mut usize) -> Vec<McpContent> {
    let mut text = String::new();
    let mut images = Vec::new();
    for c in contents {
        match c {
            McpContent::Text(t) => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&t);
            }
            image @ McpContent::Image { .. } => images.push(image),
        }
    }
    let limit = MAX_MENTION_BYTES.min(*budget);
    let total = text.len();
    let mut note = String::new();
    if total > limit {
        let mut cut = limit;
        while cut > 0 && !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        note = format!("\n[… cut: {cut} of {total} bytes attached]");
    }
    *budget = budget.saturating_sub(text.len());
    let mut out = vec![McpContent::Text(format!(
        "<mcp-resource server=\"{}\" uri=\"{}\">\n{text}{note}\n</mcp-resource>",
        m.server, m.uri
    ))];
    out.extend(images);
    out
}

/// The line attached for a mention that could not be read.
pub fn failure(m: &Mention, why: &str) -> McpContent {
    McpContent::Text(format!("[{} was not attached: {why}]", m.shown()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servers() -> Vec<String> {
        vec!["fs".into(), "py-fast".into()]
    }

    #[test]
    fn finds_mentions() {
        let t = "look at @fs:file:///tmp/a.txt and @py-fast:config://app. \
                 mail me@fs:x, ask @alice: hi, @nope:res://x @fs:file:///tmp/a.txt";
        let m = find(t, &servers());
        assert_eq!(
            m,
            vec![
                Mention {
                    server: "fs".into(),
                    uri: "file:///tmp/a.txt".into()
                },
                Mention {
                    server: "py-fast".into(),
                    uri: "config://app".into()
                },
                Mention {
                    server: "nope".into(),
                    uri: "res://x".into()
                },
            ]
        );
        assert!(find("@fs:", &servers()).is_empty());
        assert!(find("no mentions @ all", &servers()).is_empty());
        assert_eq!(find("@fs:notes", &servers())[0].uri, "notes");
    }

    #[test]
    fn attachments_are_bounded() {
        let m = Mention {
            server: "fs".into(),
            uri: "file:///big".into(),
        };
        let mut budget = MAX_TOTAL_BYTES;
        let big = "é".repeat(MAX_MENTION_BYTES);
        let out = attach(&m, vec![McpContent::Text(big)], &mut budget);
        let McpContent::Text(t) = &out[0] else {
            panic!("text expected")
        };
        assert!(t.len() < MAX_MENTION_BYTES + 200, "{}", t.len());
        assert!(t.contains(&format!(
            "[… cut: {MAX_MENTION_BYTES} of {} bytes attached]",
            MAX_MENTION_BYTES * 2
        )));
        assert_eq!(budget, MAX_TOTAL_BYTES - MAX_MENTION_BYTES);
        let mut small = 10;
        let out = attach(&m, vec![McpContent::Text("x".repeat(100))], &mut small);
        let McpContent::Text(t) = &out[0] else {
            panic!("text expected")
        };
        assert!(t.contains("cut: 10 of 100"));
        assert_eq!(small, 0);
    }
}
