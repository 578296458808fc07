//! An MCP server asking the user for input (MCP elicitation, form mode):
//! the request as front ends see it, the fields of its flat schema, the
//! checks an answer passes before it goes back, and the answer.
//!
//! The schema is the restricted one of the MCP specification: an object of
//! primitive properties (string with `format`/`minLength`/`maxLength`,
//! `number` and `integer` with `minimum`/`maximum`, `boolean`, a single
//! choice as `enum` (with the legacy `enumNames`) or `oneOf` of
//! `{const, title}`, a multiple choice as an `array` whose `items` have
//! `enum` or `anyOf`/`oneOf` of `{const, title}`, with `minItems`/`maxItems`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What the user did with the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitationAction {
    /// Submitted it (with content).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

impl ElicitationAction {
    /// `accept`, `decline` or `cancel`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }

    /// Parses `accept`, `decline` or `cancel`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "accept" => Some(Self::Accept),
            "decline" => Some(Self::Decline),
            "cancel" => Some(Self::Cancel),
            _ => None,
        }
    }
}

/// The elicitation modes a front end can show: zut declares exactly these
/// to the MCP servers (form: fields to fill; URL: a page for the user to
/// open, shown with its host, opened only with the user's consent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ElicitationModes {
    /// Form mode.
    pub form: bool,
    /// URL mode.
    pub url: bool,
}

impl ElicitationModes {
    /// Nothing: no elicitation is declared, requests are declined.
    pub const NONE: Self = Self {
        form: false,
        url: false,
    };
    /// Forms and URLs (the TUI, an RPC client that opted in).
    pub const ALL: Self = Self {
        form: true,
        url: true,
    };

    /// Whether any mode is on.
    pub fn any(self) -> bool {
        self.form || self.url
    }

    /// As two bits (form 1, URL 2), for an atomic.
    pub fn bits(self) -> u8 {
        u8::from(self.form) | (u8::from(self.url) << 1)
    }

    /// From [`ElicitationModes::bits`].
    pub fn from_bits(bits: u8) -> Self {
        Self {
            form: bits & 1 != 0,
            url: bits & 2 != 0,
        }
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElicitationAnswer {
    /// Accept, decline or cancel.
    pub action: ElicitationAction,
    /// The values (with `accept` only).
    pub content: Option<Map<String, Value>>,
}

impl ElicitationAnswer {
    /// The form was submitted with `content`.
    pub fn accept(content: Map<String, Value>) -> Self {
        Self {
            action: ElicitationAction::Accept,
            content: Some(content),
        }
    }

    /// The user said no.
    pub fn decline() -> Self {
        Self {
            action: ElicitationAction::Decline,
            content: None,
        }
    }

    /// The form was dismissed (or nobody could answer any more).
    pub fn cancel() -> Self {
        Self {
            action: ElicitationAction::Cancel,
            content: None,
        }
    }
}

/// One request as front ends see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    /// Unique within the conversation: the key to answer with.
    pub id: u64,
    /// The asking server's name.
    pub server: String,
    /// What the server says it wants.
    pub message: String,
    /// The requested schema (`{"type":"object","properties":…}`).
    pub schema: Value,
    /// The property names in the order the server wrote them (a JSON
    /// object here may have lost it).
    pub order: Vec<String>,
    /// URL mode: the page the server wants the user to open (the schema is
    /// then an empty object and an accepted answer carries no content).
    /// `None`: form mode.
    pub url: Option<String>,
}

impl ElicitationRequest {
    /// The host of a URL-mode request's URL (what a front end shows the
    /// user before anything is opened), see [`url_host`].
    pub fn url_host(&self) -> Option<String> {
        self.url.as_deref().and_then(url_host)
    }

    /// The form's fields in the server's order (see [`fields`]).
    pub fn fields(&self) -> Result<Vec<Field>, String> {
        let mut f = fields(&self.schema)?;
        let pos = |name: &str| {
            self.order
                .iter()
                .position(|n| n == name)
                .unwrap_or(usize::MAX)
        };
        f.sort_by_key(|f| pos(&f.name));
        Ok(f)
    }
}

/// The host (with a port that is not the scheme's default) of an
/// `http`/`https` URL, lowercased; `None` for anything else (another scheme,
/// credentials in the URL, no host), which front ends refuse to open.
pub fn url_host(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("https") && !scheme.eq_ignore_ascii_case("http") {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    if authority
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        return None;
    }
    let lower = authority.to_ascii_lowercase();
    let default = if scheme.eq_ignore_ascii_case("https") {
        ":443"
    } else {
        ":80"
    };
    Some(lower.strip_suffix(default).unwrap_or(&lower).to_string())
}

/// What a field holds.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// Free text; `format` is `email`, `uri`, `date`, `date-time` or none.
    Text {
        /// The string format.
        format: Option<String>,
        /// `minLength`.
        min_len: Option<u64>,
        /// `maxLength`.
        max_len: Option<u64>,
    },
    /// A whole number.
    Integer {
        /// `minimum`.
        min: Option<f64>,
        /// `maximum`.
        max: Option<f64>,
    },
    /// A number.
    Number {
        /// `minimum`.
        min: Option<f64>,
        /// `maximum`.
        max: Option<f64>,
    },
    /// Yes or no.
    Boolean,
    /// One of `options` (value, title).
    Choice {
        /// The options: the value sent and the title shown.
        options: Vec<(String, String)>,
    },
    /// Several of `options` (value, title).
    MultiChoice {
        /// The options: the value sent and the title shown.
        options: Vec<(String, String)>,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
    },
}

/// One property of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name (the key of the answer).
    pub name: String,
    /// Its `title`, else its name.
    pub title: String,
    /// Its `description`.
    pub description: Option<String>,
    /// Listed in `required`.
    pub required: bool,
    /// What it holds.
    pub kind: FieldKind,
    /// Its `default`, when it fits.
    pub default: Option<Value>,
}

/// The fields of `schema`, in its property order; an error names the
/// first property a form cannot show.
pub fn fields(schema: &Value) -> Result<Vec<Field>, String> {
    let props = match schema.get("properties") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(p)) => p,
        Some(_) => return Err("`properties` is not an object".into()),
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::with_capacity(props.len());
    for (name, p) in props {
        let kind = kind(p).map_err(|e| format!("property `{name}`: {e}"))?;
        let mut field = Field {
            name: name.clone(),
            title: text(p, "title").unwrap_or_else(|| name.clone()),
            description: text(p, "description"),
            required: required.contains(&name.as_str()),
            kind,
            default: None,
        };
        field.default = p
            .get("default")
            .filter(|d| check(&field, d).is_ok())
            .cloned();
        out.push(field);
    }
    Ok(out)
}

fn text(p: &Value, key: &str) -> Option<String> {
    p.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

fn num(p: &Value, key: &str) -> Option<f64> {
    p.get(key).and_then(Value::as_f64)
}

fn count(p: &Value, key: &str) -> Option<u64> {
    p.get(key).and_then(Value::as_u64)
}

/// `enum` (+ `enumNames`) or `oneOf`/`anyOf` of `{const, title}`.
fn options(p: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        let names = p.get("enumNames").and_then(Value::as_array);
        let mut out = Vec::new();
        for (i, v) in values.iter().enumerate() {
            let v = v.as_str()?.to_string();
            let title = names
                .and_then(|n| n.get(i))
                .and_then(Value::as_str)
                .map_or_else(|| v.clone(), str::to_string);
            out.push((v, title));
        }
        return Some(out);
    }
    let list = p
        .get("oneOf")
        .or_else(|| p.get("anyOf"))
        .and_then(Value::as_array)?;
    list.iter()
        .map(|o| {
            let v = o.get("const")?.as_str()?.to_string();
            let title = text(o, "title").unwrap_or_else(|| v.clone());
            Some((v, title))
        })
        .collect()
}

fn kind(p: &Value) -> Result<FieldKind, String> {
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    Ok(match ty {
        "string" => match options(p) {
            Some(options) if !options.is_empty() => FieldKind::Choice { options },
            Some(_) => return Err("a choice with no options".into()),
            None => FieldKind::Text {
                format: text(p, "format"),
                min_len: count(p, "minLength"),
                max_len: count(p, "maxLength"),
            },
        },
        "integer" => FieldKind::Integer {
            min: num(p, "minimum"),
            max: num(p, "maximum"),
        },
        "number" => FieldKind::Number {
            min: num(p, "minimum"),
            max: num(p, "maximum"),
        },
        "boolean" => FieldKind::Boolean,
        "array" => {
            let options = p
                .get("items")
                .and_then(options)
                .filter(|o| !o.is_empty())
                .ok_or("an array whose items are not a list of choices")?;
            FieldKind::MultiChoice {
                options,
                min_items: count(p, "minItems"),
                max_items: count(p, "maxItems"),
            }
        }
        "" => return Err("no `type`".into()),
        other => return Err(format!("type `{other}` is not a form field")),
    })
}

fn range(v: f64, min: Option<f64>, max: Option<f64>) -> Result<(), String> {
    if let Some(min) = min.filter(|m| v < *m) {
        return Err(format!("at least {min}"));
    }
    if let Some(max) = max.filter(|m| v > *m) {
        return Err(format!("at most {max}"));
    }
    Ok(())
}

/// Whether `value` fits `field` (the reason when not, e.g. `at most 100`).
pub fn check(field: &Field, value: &Value) -> Result<(), String> {
    match &field.kind {
        FieldKind::Text {
            format,
            min_len,
            max_len,
        } => {
            let s = value.as_str().ok_or("a text is expected")?;
            let n = s.chars().count() as u64;
            if let Some(m) = min_len.filter(|m| n < *m) {
                return Err(format!("at least {m} characters"));
            }
            if let Some(m) = max_len.filter(|m| n > *m) {
                return Err(format!("at most {m} characters"));
            }
            check_format(format.as_deref(), s)
        }
        FieldKind::Integer { min, max } => {
            let v = value
                .as_i64()
                .map(|v| v as f64)
                .or_else(|| value.as_u64().map(|v| v as f64))
                .ok_or("a whole number is expected")?;
            range(v, *min, *max)
        }
        FieldKind::Number { min, max } => {
            let v = value.as_f64().ok_or("a number is expected")?;
            range(v, *min, *max)
        }
        FieldKind::Boolean => value
            .is_boolean()
            .then_some(())
            .ok_or_else(|| "true or false is expected".into()),
        FieldKind::Choice { options } => {
            let s = value.as_str().unwrap_or_default();
            if options.iter().any(|(v, _)| v == s) {
                Ok(())
            } else {
                Err(format!("one of {}", list(options)))
            }
        }
        FieldKind::MultiChoice {
            options,
            min_items,
            max_items,
        } => {
            let items = value.as_array().ok_or("a list of choices is expected")?;
            for item in items {
                let s = item.as_str().unwrap_or_default();
                if !options.iter().any(|(v, _)| v == s) {
                    return Err(format!("each one of {}", list(options)));
                }
            }
            let n = items.len() as u64;
            if let Some(m) = min_items.filter(|m| n < *m) {
                return Err(format!("choose at least {m}"));
            }
            if let Some(m) = max_items.filter(|m| n > *m) {
                return Err(format!("choose at most {m}"));
            }
            Ok(())
        }
    }
}

fn list(options: &[(String, String)]) -> String {
    options
        .iter()
        .map(|(v, _)| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A light check of the string formats (enough to catch a slip, not a
/// full RFC parser).
fn check_format(format: Option<&str>, s: &str) -> Result<(), String> {
    let ok = match format {
        Some("email") => s
            .split_once('@')
            .is_some_and(|(a, b)| !a.is_empty() && b.contains('.') && !s.contains(' ')),
        Some("uri") => {
            s.split_once(':')
                .is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty())
                && !s.contains(' ')
        }
        Some("date") => is_date(s),
        Some("date-time") => {
            s.len() > 11
                && s.get(..10).is_some_and(is_date)
                && matches!(s.get(10..11), Some("T" | "t"))
        }
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "not a valid {}",
            match format {
                Some("date") => "date (YYYY-MM-DD)",
                Some("date-time") => "date-time (YYYY-MM-DDTHH:MM:SSZ)",
                Some(f) => f,
                None => "text",
            }
        ))
    }
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Checks an accepted answer against `schema`: every required field is
/// there, every value fits its field, no unknown key. The error names the
/// field (`age: at most 100`).
pub fn validate(schema: &Value, content: &Map<String, Value>) -> Result<(), String> {
    let fields = fields(schema)?;
    for f in &fields {
        match content.get(&f.name) {
            Some(v) => check(f, v).map_err(|e| format!("{}: {e}", f.name))?,
            None if f.required => return Err(format!("{}: required", f.name)),
            None => {}
        }
    }
    if let Some(k) = content
        .keys()
        .find(|k| !fields.iter().any(|f| &f.name == *k))
    {
        return Err(format!("{k}: not a field of the form"));
    }
    Ok(())
}

/// The value typed for a text, integer or number field (`None`: left
/// empty), or why it does not fit.
pub fn parse_typed(field: &Field, typed: &str) -> Result<Option<Value>, String> {
    let t = typed.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let v = match &field.kind {
        FieldKind::Integer { .. } => Value::from(
            t.parse::<i64>()
                .map_err(|_| "a whole number is expected".to_string())?,
        ),
        FieldKind::Number { .. } => {
            let n = t
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .ok_or("a number is expected")?;
            serde_json::Number::from_f64(n)
                .map(Value::Number)
                .ok_or("a number is expected")?
        }
        _ => Value::String(typed.to_string()),
    };
    check(field, &v)?;
    Ok(Some(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 2},
            "age": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
            "ok": {"type": "boolean"},
            "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]},
            "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
            "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}, {"const": "f2"}]}, "maxItems": 1},
            "mail": {"type": "string", "format": "email"},
            "day": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"}
        }, "required": ["name"]})
    }

    #[test]
    fn fields_of_a_flat_schema() {
        let f = fields(&schema()).unwrap();
        assert_eq!(f.len(), 9);
        let age = f.iter().find(|f| f.name == "age").unwrap();
        assert_eq!(age.default, Some(json!(42)));
        let pet = f.iter().find(|f| f.name == "pet").unwrap();
        assert_eq!(
            pet.kind,
            FieldKind::Choice {
                options: vec![("p1".into(), "Cats".into()), ("p2".into(), "Dogs".into())]
            }
        );
        assert!(f.iter().find(|f| f.name == "name").unwrap().required);
        assert!(fields(&json!({"properties": {"x": {"type": "object"}}}))
            .unwrap_err()
            .contains("property `x`"));
    }

    #[test]
    fn answers_are_checked() {
        let s = schema();
        let ok =
            json!({"name": "Al", "age": 7, "fish": ["f2"], "mail": "a@b.c", "day": "2026-12-06"});
        validate(&s, ok.as_object().unwrap()).unwrap();
        for (bad, why) in [
            (json!({}), "name: required"),
            (json!({"name": "A"}), "name: at least 2 characters"),
            (json!({"name": "Al", "age": 101}), "age: at most 100"),
            (json!({"name": "Al", "age": 1.5}), "age: a whole number"),
            (json!({"name": "Al", "pet": "p9"}), "pet: one of p1, p2"),
            (
                json!({"name": "Al", "fish": ["f1", "f2"]}),
                "fish: choose at most 1",
            ),
            (
                json!({"name": "Al", "mail": "nope"}),
                "mail: not a valid email",
            ),
            (
                json!({"name": "Al", "day": "6/12/2026"}),
                "day: not a valid date",
            ),
            (
                json!({"name": "Al", "at": "2026-12-0éT10:00Z"}),
                "at: not a valid date-time",
            ),
            (json!({"name": "Al", "zzz": 1}), "zzz: not a field"),
        ] {
            let e = validate(&s, bad.as_object().unwrap()).unwrap_err();
            assert!(e.starts_with(why), "{bad}: {e}");
        }
        let f = fields(&s).unwrap();
        let age = f.iter().find(|f| f.name == "age").unwrap();
        assert_eq!(parse_typed(age, " 12 ").unwrap(), Some(json!(12)));
        assert_eq!(parse_typed(age, "").unwrap(), None);
        assert!(parse_typed(age, "x").is_err());
    }

    #[test]
    fn url_hosts_are_shown_plainly_or_refused() {
        assert_eq!(
            url_host("https://Example.com/pay?x=1").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            url_host("https://example.com:443/").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            url_host("http://127.0.0.1:8080").as_deref(),
            Some("127.0.0.1:8080")
        );
        assert_eq!(url_host("https://bank.com@evil.example/"), None);
        assert_eq!(url_host("javascript:alert(1)"), None);
        assert_eq!(url_host("file:///etc/passwd"), None);
        assert_eq!(url_host("https:///path"), None);
    }
}
