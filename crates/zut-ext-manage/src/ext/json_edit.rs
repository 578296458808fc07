//! Minimal, formatting-preserving edit of a JSON object: set one top-level
//! key to a boolean. Everything outside the edited value stays byte for
//! byte as it was (key order, indentation, number spelling, comments-free
//! JSON only).

use std::ops::Range;

/// One `"key": value` member of the root object, as byte ranges.
#[derive(Debug)]
struct Member {
    key: Range<usize>,
    value: Range<usize>,
}

/// The root object's layout.
#[derive(Debug)]
struct Layout {
    open: usize,
    close: usize,
    members: Vec<Member>,
}

/// Sets top-level `key` to `value` in the JSON object `text`. Existing
/// occurrences have their value replaced; otherwise the key is appended as
/// the last member, in the style (indentation, `": "` spacing) of the
/// current last member. The result ends with a newline. Errors carry the
/// JSON parser's message.
pub fn set_top_level_bool(text: &str, key: &str, value: bool) -> Result<String, String> {
    let parsed: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if !parsed.is_object() {
        return Err("manifest is not a JSON object".to_string());
    }
    let layout = scan(text)?;
    let literal = if value { "true" } else { "false" };
    let mut out = text.to_string();
    let matching: Vec<&Member> = layout
        .members
        .iter()
        .filter(|m| serde_json::from_str::<String>(&text[m.key.clone()]).is_ok_and(|k| k == key))
        .collect();
    if !matching.is_empty() {
        // Replace from the end so earlier ranges stay valid.
        for m in matching.iter().rev() {
            out.replace_range(m.value.clone(), literal);
        }
    } else if let (Some(first), Some(last)) = (layout.members.first(), layout.members.last()) {
        let sep = &text[last.key.end..last.value.start];
        let multiline = text[layout.open + 1..first.key.start].contains('\n');
        let insert = if multiline {
            let line_start = text[..last.key.start].rfind('\n').map_or(0, |i| i + 1);
            let indent = &text[line_start..last.key.start];
            let indent = if indent.chars().all(char::is_whitespace) {
                indent
            } else {
                "  "
            };
            format!(",\n{indent}{}{sep}{literal}", quote(key))
        } else {
            format!(", {}{sep}{literal}", quote(key))
        };
        out.insert_str(last.value.end, &insert);
    } else {
        out.replace_range(
            layout.open..=layout.close,
            &format!("{{\n  {}: {literal}\n}}", quote(key)),
        );
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // Belt and braces: the edit must yield the intended document.
    let check: serde_json::Value =
        serde_json::from_str(&out).map_err(|e| format!("internal edit error: {e}"))?;
    if check.get(key) != Some(&serde_json::Value::Bool(value)) {
        return Err("internal edit error: key not set".to_string());
    }
    Ok(out)
}

fn quote(key: &str) -> String {
    serde_json::Value::String(key.to_string()).to_string()
}

/// Finds the root object's members. `text` is known to be valid JSON.
fn scan(text: &str) -> Result<Layout, String> {
    let mut s = Scanner {
        b: text.as_bytes(),
        i: 0,
    };
    s.ws();
    let open = s.i;
    s.expect(b'{')?;
    let mut members = Vec::new();
    s.ws();
    if s.peek() == Some(b'}') {
        return Ok(Layout {
            open,
            close: s.i,
            members,
        });
    }
    loop {
        s.ws();
        let k0 = s.i;
        s.string()?;
        let key = k0..s.i;
        s.ws();
        s.expect(b':')?;
        s.ws();
        let v0 = s.i;
        s.value()?;
        members.push(Member {
            key,
            value: v0..s.i,
        });
        s.ws();
        match s.peek() {
            Some(b',') => s.i += 1,
            Some(b'}') => {
                return Ok(Layout {
                    open,
                    close: s.i,
                    members,
                })
            }
            _ => return Err(format!("unexpected input at byte {}", s.i)),
        }
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", c as char, self.i))
        }
    }

    fn string(&mut self) -> Result<(), String> {
        self.expect(b'"')?;
        loop {
            match self.peek() {
                None => return Err("unterminated string".to_string()),
                Some(b'\\') => self.i += 2,
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(_) => self.i += 1,
            }
        }
    }

    fn value(&mut self) -> Result<(), String> {
        match self.peek() {
            Some(b'"') => self.string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    match self.peek() {
                        None => return Err("unterminated value".to_string()),
                        Some(b'"') => {
                            self.string()?;
                            continue;
                        }
                        Some(b'{' | b'[') => depth += 1,
                        Some(b'}' | b']') => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Ok(());
                            }
                        }
                        Some(_) => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
                ) {
                    self.i += 1;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_existing_value_in_place() {
        let t = "{\n    \"zeta\": 1.50,\n    \"enabled\": false,\n    \"name\": \"x\"\n}\n";
        assert_eq!(
            set_top_level_bool(t, "enabled", true).unwrap(),
            "{\n    \"zeta\": 1.50,\n    \"enabled\": true,\n    \"name\": \"x\"\n}\n"
        );
    }

    #[test]
    fn appends_in_the_file_style() {
        let t = "{\n\t\"name\": \"x\",\n\t\"args\": [\"a\", {\"enabled\": 1}]\n}";
        assert_eq!(
            set_top_level_bool(t, "enabled", false).unwrap(),
            "{\n\t\"name\": \"x\",\n\t\"args\": [\"a\", {\"enabled\": 1}],\n\t\"enabled\": false\n}\n"
        );
        assert_eq!(
            set_top_level_bool("{\"name\":\"x\"}\n", "enabled", true).unwrap(),
            "{\"name\":\"x\", \"enabled\":true}\n"
        );
        assert_eq!(
            set_top_level_bool(" { } ", "enabled", true).unwrap(),
            " {\n  \"enabled\": true\n} \n"
        );
    }

    #[test]
    fn strings_with_braces_and_escapes() {
        let t = "{\"d\": \"a \\\"}\\\" {\", \"enabled\": true}";
        assert_eq!(
            set_top_level_bool(t, "enabled", false).unwrap(),
            "{\"d\": \"a \\\"}\\\" {\", \"enabled\": false}\n"
        );
    }

    #[test]
    fn invalid_json_and_non_objects() {
        assert!(set_top_level_bool("{oops", "enabled", true).is_err());
        assert_eq!(
            set_top_level_bool("[1]", "enabled", true).unwrap_err(),
            "manifest is not a JSON object"
        );
    }
}
