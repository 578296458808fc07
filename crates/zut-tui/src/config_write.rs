//! Writing settings into `$ZUT_HOME/config.json` (`/settings`, `/theme`,
//! `/model`, `/reasoning`): the keys changed, every other key kept in its
//! place with its value's text verbatim (a number keeps its digits, an
//! array its line breaks), the file's indentation (two or four spaces, or
//! a tab) and final newline kept (comments do not exist in JSON). The write is atomic:
//! under an exclusive lock on `config.json.lock`, the file is re-read, a
//! temporary file with the same mode is written next to it and renamed
//! over it, so a crash never leaves half a file and two zut processes
//! saving at once lose no key. A file that is not a JSON object is never
//! overwritten: the error names it. A symbolic link is followed (its
//! target is replaced, the link kept).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Sets `changes` (a `null` value removes the key) in the config file at
/// `path` (created with its directory when missing).
pub fn set(path: &Path, changes: &[(&str, Value)]) -> Result<(), String> {
    update(path, |old| edit(old, changes))
}

/// Sets slot `n` (1 to 9) of `quick_model_shortcuts` to `provider`/`model`
/// (`None`: empties it), under the same lock as [`set`]: the slot's other
/// keys (the Go original's `reasoning`, `fast_mode`) are kept, the other
/// slots too; empty slots are `null`, trailing ones dropped (and the key
/// with them when none is left).
pub fn set_quick_slot(path: &Path, n: usize, target: Option<(&str, &str)>) -> Result<(), String> {
    if !(1..=9).contains(&n) {
        return Err(format!("no quick-model slot {n} (1 to 9)"));
    }
    update(path, |old| {
        let current: Value = old
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default();
        let mut slots: Vec<Value> = current
            .get("quick_model_shortcuts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if slots.len() < n {
            slots.resize(n, Value::Null);
        }
        slots[n - 1] = match target {
            Some((provider, model)) => {
                let mut slot = match slots[n - 1].take() {
                    Value::Object(o) => o,
                    _ => serde_json::Map::new(),
                };
                slot.insert("provider".into(), Value::String(provider.into()));
                slot.insert("model".into(), Value::String(model.into()));
                Value::Object(slot)
            }
            None => Value::Null,
        };
        while slots.last().is_some_and(Value::is_null) {
            slots.pop();
        }
        let value = if slots.is_empty() {
            Value::Null
        } else {
            Value::Array(slots)
        };
        edit(old, &[("quick_model_shortcuts", value)])
    })
}

/// `provider/model` of each of the 9 quick-model slots of the config file
/// at `path` (`None`: empty, malformed, or no file).
pub fn quick_slots(path: &Path) -> Vec<Option<String>> {
    let value: Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let slots = value.get("quick_model_shortcuts").and_then(Value::as_array);
    (0..9)
        .map(|i| {
            let slot = slots?.get(i)?;
            let field = |k: &str| {
                slot.get(k)
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
            };
            Some(format!("{}/{}", field("provider")?, field("model")?))
        })
        .collect()
}

/// Replaces the file at `path` with `new(old text)` (see [`set`]).
fn update(
    path: &Path,
    new: impl FnOnce(Option<&str>) -> Result<String, String>,
) -> Result<(), String> {
    let path = resolve_link(path);
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config.json".into());
    let lock_path = dir.join(format!("{name}.lock"));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    let old = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(at(&e)),
    };
    let text = new(old.as_deref()).map_err(|e| at(&e))?;
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        if let Ok(meta) = std::fs::metadata(&path) {
            f.set_permissions(meta.permissions())?;
        }
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(at(&e));
    }
    drop(lock);
    Ok(())
}

/// The new text of a config file whose text is `old` (`None`: missing)
/// with `changes` applied. Errors when `old` is not a JSON object.
///
/// The top-level keys keep their order and every value that does not
/// change keeps its text verbatim (its digits, spacing and line breaks):
/// the file is read as an ordered list of raw values, not re-serialised.
pub fn edit(old: Option<&str>, changes: &[(&str, Value)]) -> Result<String, String> {
    let (mut entries, indent, newline) = match old {
        None => (Vec::new(), "  ".to_string(), true),
        Some(text) if text.trim().is_empty() => (Vec::new(), "  ".to_string(), true),
        Some(text) => (parse(text)?, indentation(text), text.ends_with('\n')),
    };
    for (key, value) in changes {
        let at = entries.iter().position(|(k, _)| k == key);
        match (at, value.is_null()) {
            (Some(i), true) => {
                entries.remove(i);
            }
            (None, true) => {}
            (at, false) => {
                let text = pretty(value, &indent)?;
                match at {
                    Some(i) => entries[i].1 = text,
                    None => entries.push(((*key).to_string(), text)),
                }
            }
        }
    }
    let mut out = String::from("{");
    for (i, (key, value)) in entries.iter().enumerate() {
        let key = serde_json::to_string(key).map_err(|e| e.to_string())?;
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(&format!("{indent}{key}: {value}"));
    }
    out.push_str(if entries.is_empty() { "}" } else { "\n}" });
    if newline {
        out.push('\n');
    }
    Ok(out)
}

/// The top-level keys of `text` in order, each with its value's text.
fn parse(text: &str) -> Result<Vec<(String, String)>, String> {
    let fix = "fix or remove it (nothing was written)";
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return Err(format!("line {}: not valid JSON ({e}); {fix}", e.line()));
    }
    if !text.trim_start().starts_with('{') {
        return Err(format!("not a JSON object; {fix}"));
    }
    let Ordered(entries) =
        serde_json::from_str(text).map_err(|e| format!("line {}: {e}; {fix}", e.line()))?;
    Ok(entries)
}

/// `value` pretty-printed with `indent`, its inner lines shifted one
/// level (it sits under a top-level key).
fn pretty(value: &Value, indent: &str) -> Result<String, String> {
    let mut buf = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
    serde::Serialize::serialize(value, &mut ser).map_err(|e| e.to_string())?;
    let text = String::from_utf8(buf).map_err(|e| e.to_string())?;
    Ok(text.replace('\n', &format!("\n{indent}")))
}

/// A JSON object read as its keys in order with their raw values (a
/// repeated key keeps its first place and its last value, as
/// `serde_json` keeps the last).
struct Ordered(Vec<(String, String)>);

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut out: Vec<(String, String)> = Vec::new();
                while let Some((k, v)) =
                    map.next_entry::<String, Box<serde_json::value::RawValue>>()?
                {
                    let v = v.get().to_string();
                    match out.iter_mut().find(|(key, _)| *key == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// The indentation of the first indented line (two spaces by default).
fn indentation(text: &str) -> String {
    text.lines()
        .skip(1)
        .find_map(|l| {
            let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
            (!ws.is_empty() && ws.len() <= 8).then_some(ws)
        })
        .unwrap_or_else(|| "  ".into())
}

/// `path`, or the file a symbolic link at `path` points to.
fn resolve_link(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(path) {
            Ok(target) if target.is_absolute() => target,
            Ok(target) => path.parent().map_or(target.clone(), |d| d.join(target)),
            Err(_) => path.to_path_buf(),
        },
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_other_keys_their_order_and_the_indentation() {
        let old = "{\n    \"zeta\": 1,\n    \"model\": \"a\",\n    \"alpha\": {\"x\": [1, 2]},\n    \"price\": 0.10\n}\n";
        let new = edit(
            Some(old),
            &[
                ("model", json!("b")),
                ("terminal_alerts_enabled", json!(false)),
            ],
        )
        .unwrap();
        assert_eq!(
            new,
            "{\n    \"zeta\": 1,\n    \"model\": \"b\",\n    \"alpha\": {\"x\": [1, 2]},\n    \"price\": 0.10,\n    \"terminal_alerts_enabled\": false\n}\n"
        );
        // A new structured value is indented under its key.
        let new = edit(Some("{\n\t\"a\": 1\n}"), &[("s", json!([{"p": "x"}]))]).unwrap();
        assert_eq!(
            new,
            "{\n\t\"a\": 1,\n\t\"s\": [\n\t\t{\n\t\t\t\"p\": \"x\"\n\t\t}\n\t]\n}"
        );
        // A repeated key: first place, last value.
        let new = edit(Some("{\"a\": 1, \"b\": 2, \"a\": 3}"), &[]).unwrap();
        assert_eq!(new, "{\n  \"a\": 3,\n  \"b\": 2\n}");
        assert_eq!(edit(Some("{}"), &[]).unwrap(), "{}");
        let new = edit(Some("{\"a\":1,\"b\":2}"), &[("a", Value::Null)]).unwrap();
        assert_eq!(new, "{\n  \"b\": 2\n}");
        assert_eq!(
            edit(None, &[("theme", json!("dark"))]).unwrap(),
            "{\n  \"theme\": \"dark\"\n}\n"
        );
    }

    #[test]
    fn quick_slots_are_set_cleared_and_keep_their_other_keys() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.json");
        std::fs::write(
            &p,
            "{\"quick_model_shortcuts\": [{\"provider\": \"openai\", \"model\": \"a\", \"reasoning\": \"high\"}]}",
        )
        .unwrap();
        set_quick_slot(&p, 3, Some(("anthropic", "b"))).unwrap();
        set_quick_slot(&p, 1, Some(("groq", "c"))).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(
            v["quick_model_shortcuts"],
            json!([{"provider": "groq", "model": "c", "reasoning": "high"}, null,
                   {"provider": "anthropic", "model": "b"}])
        );
        let slots = quick_slots(&p);
        assert_eq!(slots.len(), 9);
        assert_eq!(slots[0].as_deref(), Some("groq/c"));
        assert_eq!(slots[1], None);
        assert_eq!(slots[2].as_deref(), Some("anthropic/b"));
        set_quick_slot(&p, 3, None).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["quick_model_shortcuts"].as_array().unwrap().len(), 1);
        set_quick_slot(&p, 1, None).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{}");
        assert!(set_quick_slot(&p, 10, None).is_err());
        std::fs::write(&p, "{\"model\": ").unwrap();
        let e = set_quick_slot(&p, 1, Some(("a", "b"))).unwrap_err();
        assert!(e.contains("not valid JSON"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"model\": ");
        assert_eq!(quick_slots(&p), vec![None; 9]);
    }

    #[test]
    fn a_broken_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.json");
        std::fs::write(&p, "{\"model\": ").unwrap();
        let e = set(&p, &[("model", json!("x"))]).unwrap_err();
        assert!(e.contains("config.json: line 1: not valid JSON"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"model\": ");
        std::fs::write(&p, "[1]").unwrap();
        let e = set(&p, &[("model", json!("x"))]).unwrap_err();
        assert!(e.contains("not a JSON object"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "[1]");
    }

    #[cfg(unix)]
    #[test]
    fn mode_and_symlink_are_kept_and_concurrent_writers_lose_nothing() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "{\"keep\": true}\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("config.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let link = link.clone();
                std::thread::spawn(move || {
                    let key = format!("k{i}");
                    set(&link, &[(key.as_str(), json!(i))]).unwrap()
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
        assert_eq!(v["keep"], json!(true));
        for i in 0..8 {
            assert_eq!(v[format!("k{i}")], json!(i), "{v}");
        }
    }
}
