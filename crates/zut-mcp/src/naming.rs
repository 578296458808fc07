//! Tool names as Claude Code writes them: `mcp__<server>__<tool>`, limited
//! to what every provider accepts (`[A-Za-z0-9_-]`, at most 64 bytes).

use sha2::{Digest, Sha256};

/// The prefix of every MCP tool name.
pub const PREFIX: &str = "mcp__";
/// Longest tool name providers accept.
pub const MAX_NAME: usize = 64;

/// `mcp__<server>__<tool>` with other characters replaced by `_`; a name
/// longer than 64 bytes is cut and ends with 8 hex digits of its hash.
pub fn tool_name(server: &str, tool: &str) -> String {
    let full = format!("{PREFIX}{}__{}", sanitize(server), sanitize(tool));
    if full.len() <= MAX_NAME {
        return full;
    }
    let digest = Sha256::digest(full.as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{}_{hash}", &full[..MAX_NAME - 9])
}

/// The server part of an `mcp__<server>__<tool>` name (sanitised form).
pub fn server_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(PREFIX)?;
    rest.split_once("__").map(|(s, _)| s)
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(tool_name("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(tool_name("my.srv", "a b"), "mcp__my_srv__a_b");
        let long = tool_name("server", &"x".repeat(100));
        assert_eq!(long.len(), 64);
        assert_ne!(long, tool_name("server", &"x".repeat(101)));
        assert_eq!(server_of("mcp__fs__read_file"), Some("fs"));
        assert_eq!(server_of("read"), None);
    }
}
