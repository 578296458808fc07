//! Mapping a tool's JSON Schema onto the OpenAPI subset Gemini's
//! `functionDeclarations[].parameters` accepts.
//!
//! Kept: `type` (a list with `"null"` becomes `nullable`; several other
//! types become `anyOf`), `description`, `title`, `enum` (strings),
//! `const` (a string: a one-value `enum`), `properties`, `required`,
//! `items`, `anyOf` (and `oneOf` as `anyOf`), `minItems`, `maxItems`,
//! `minimum`, `maximum`, `minLength`, `maxLength`, `pattern`,
//! `nullable`, the `format`s Gemini knows. Local `$ref`s into `$defs` /
//! `definitions` are inlined; an `allOf` of one schema is merged.
//! Dropped (annotations and constraints Gemini has no field for):
//! `$schema`, `$id`, `$comment`, `additionalProperties`, `default`,
//! `examples`, `deprecated`, `readOnly`, `writeOnly`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `multipleOf`, `uniqueItems`, other `format`s.
//! Refused with an error naming the tool and the place: recursive or
//! remote `$ref`s, `allOf` of several schemas, `not`, `if`/`then`/`else`,
//! `patternProperties`, `prefixItems` or a list of `items`,
//! `dependentSchemas`/`dependentRequired`, non-string `enum`/`const`, and
//! schemas of more than 20,000 nodes once their `$ref`s are inlined.

use serde_json::{Map, Value};

/// Formats Gemini accepts (others are dropped).
const FORMATS: &[&str] = &["enum", "date-time", "int32", "int64", "float", "double"];

/// Keywords that are dropped without a word.
const DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$defs",
    "definitions",
    "additionalProperties",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "contentEncoding",
    "contentMediaType",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords with no Gemini equivalent whose meaning would be lost.
const REFUSED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "prefixItems",
    "dependentSchemas",
    "dependentRequired",
    "contains",
    "minContains",
    "maxContains",
    "$dynamicRef",
];

/// Map `schema` (the tool's `input_schema`); the error says where and why.
pub(crate) fn to_gemini(schema: &Value) -> Result<Value, String> {
    let defs = Defs {
        root: schema,
        nodes: std::cell::Cell::new(0),
    };
    let mut stack = Vec::new();
    convert(schema, "#", &defs, &mut stack)
}

/// Whether a mapped parameters schema declares no properties (Gemini
/// refuses an `OBJECT` with empty `properties` at the top: the
/// declaration is then sent without `parameters`).
pub(crate) fn is_empty_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty)
}

/// Most schema nodes a mapped schema may have (`$ref`s shared by many
/// properties are inlined, so a small schema can expand exponentially).
const MAX_NODES: usize = 20_000;

struct Defs<'a> {
    root: &'a Value,
    /// Nodes produced so far.
    nodes: std::cell::Cell<usize>,
}

impl<'a> Defs<'a> {
    /// Resolve a local reference (`#/$defs/x`, `#/definitions/x`, `#`).
    fn get(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(self.root);
        }
        self.root.pointer(pointer)
    }
}

fn convert<'a>(
    schema: &'a Value,
    at: &str,
    defs: &Defs<'a>,
    stack: &mut Vec<String>,
) -> Result<Value, String> {
    defs.nodes.set(defs.nodes.get() + 1);
    if defs.nodes.get() > MAX_NODES {
        return Err(format!(
            "{at}: more than {MAX_NODES} schema nodes once its $refs are inlined"
        ));
    }
    let obj = match schema {
        Value::Object(obj) => obj,
        // `true` (anything) has no Gemini form but an unconstrained
        // string is the closest; `false` cannot be expressed.
        Value::Bool(true) => return Ok(serde_json::json!({"type": "string"})),
        _ => return Err(format!("{at}: {schema} is not a schema object")),
    };
    if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
        if stack.iter().any(|r| r == reference) {
            return Err(format!(
                "{at}: recursive $ref {reference:?} (Gemini schemas cannot refer to themselves)"
            ));
        }
        let target = defs
            .get(reference)
            .ok_or_else(|| format!("{at}: $ref {reference:?} is not a local definition"))?;
        stack.push(reference.to_string());
        let mut out = convert(target, at, defs, stack)?;
        stack.pop();
        if let (Some(desc), Some(o)) = (obj.get("description"), out.as_object_mut()) {
            o.insert("description".into(), desc.clone());
        }
        return Ok(out);
    }
    for key in REFUSED {
        if obj.contains_key(*key) {
            return Err(format!("{at}: `{key}` has no equivalent in Gemini schemas"));
        }
    }
    let mut out = Map::new();
    if let Some(all) = obj.get("allOf") {
        match all.as_array().map(Vec::as_slice) {
            Some([one]) => {
                if let Value::Object(merged) = convert(one, &format!("{at}/allOf/0"), defs, stack)?
                {
                    out.extend(merged);
                }
            }
            _ => {
                return Err(format!(
                    "{at}: `allOf` of several schemas has no equivalent in Gemini schemas"
                ))
            }
        }
    }
    for (key, value) in obj {
        let here = format!("{at}/{key}");
        match key.as_str() {
            "allOf" | "$ref" => {}
            "type" => type_field(value, &here, &mut out)?,
            "description" | "title" | "pattern" | "nullable" | "minItems" | "maxItems"
            | "minLength" | "maxLength" | "minimum" | "maximum" | "required" => {
                out.insert(key.clone(), value.clone());
            }
            "format" if value.as_str().is_some_and(|f| FORMATS.contains(&f)) => {
                out.insert(key.clone(), value.clone());
            }
            "enum" => {
                let all_strings = value
                    .as_array()
                    .is_some_and(|v| v.iter().all(|x| x.is_string() || x.is_null()));
                if !all_strings {
                    return Err(format!(
                        "{here}: Gemini enums hold strings only, got {value}"
                    ));
                }
                let values: Vec<Value> = value
                    .as_array()
                    .map(|v| v.iter().filter(|x| x.is_string()).cloned().collect())
                    .unwrap_or_default();
                if value
                    .as_array()
                    .is_some_and(|v| v.iter().any(Value::is_null))
                {
                    out.insert("nullable".into(), Value::Bool(true));
                }
                out.insert("enum".into(), Value::Array(values));
                out.entry("type").or_insert_with(|| "string".into());
            }
            "const" => match value {
                Value::String(_) => {
                    out.insert("enum".into(), Value::Array(vec![value.clone()]));
                    out.entry("type").or_insert_with(|| "string".into());
                }
                _ => {
                    return Err(format!(
                        "{here}: Gemini can only pin a string value, got {value}"
                    ))
                }
            },
            "properties" => {
                let props = value
                    .as_object()
                    .ok_or_else(|| format!("{here}: `properties` is not an object"))?;
                let mut mapped = Map::new();
                for (name, prop) in props {
                    mapped.insert(
                        name.clone(),
                        convert(prop, &format!("{here}/{name}"), defs, stack)?,
                    );
                }
                out.insert("properties".into(), Value::Object(mapped));
            }
            "items" => match value {
                Value::Array(_) => {
                    return Err(format!(
                        "{here}: a list of `items` (a tuple) has no equivalent in Gemini schemas"
                    ))
                }
                _ => {
                    out.insert("items".into(), convert(value, &here, defs, stack)?);
                }
            },
            "anyOf" | "oneOf" => {
                let list = value
                    .as_array()
                    .ok_or_else(|| format!("{here}: `{key}` is not a list"))?;
                let mut mapped = Vec::new();
                for (i, s) in list.iter().enumerate() {
                    // `{"type": "null"}` alternatives become `nullable`.
                    if s.get("type").and_then(Value::as_str) == Some("null") {
                        out.insert("nullable".into(), Value::Bool(true));
                        continue;
                    }
                    mapped.push(convert(s, &format!("{here}/{i}"), defs, stack)?);
                }
                if mapped.len() == 1 {
                    if let Some(Value::Object(only)) = mapped.pop() {
                        for (k, v) in only {
                            out.entry(k).or_insert(v);
                        }
                    }
                } else {
                    out.insert("anyOf".into(), Value::Array(mapped));
                }
            }
            k if DROPPED.contains(&k) => {}
            // Unknown keywords (vendor extensions, annotations) are dropped.
            _ => {}
        }
    }
    Ok(Value::Object(out))
}

/// `"type"`: a name, or a list (with `"null"` → `nullable`).
fn type_field(value: &Value, at: &str, out: &mut Map<String, Value>) -> Result<(), String> {
    match value {
        Value::String(name) if name == "null" => {
            out.insert("nullable".into(), Value::Bool(true));
            Ok(())
        }
        Value::String(_) => {
            out.insert("type".into(), value.clone());
            Ok(())
        }
        Value::Array(types) => {
            let mut names: Vec<&str> = Vec::new();
            for t in types {
                match t.as_str() {
                    Some("null") => {
                        out.insert("nullable".into(), Value::Bool(true));
                    }
                    Some(name) => names.push(name),
                    None => return Err(format!("{at}: type {t} is not a name")),
                }
            }
            match names.as_slice() {
                [] => {}
                [one] => {
                    out.insert("type".into(), Value::String((*one).to_string()));
                }
                many => {
                    let any: Vec<Value> = many
                        .iter()
                        .map(|n| serde_json::json!({ "type": n }))
                        .collect();
                    out.insert("anyOf".into(), Value::Array(any));
                }
            }
            Ok(())
        }
        _ => Err(format!("{at}: type {value} is not a name")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_common_json_schema() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "path": {"type": "string", "description": "file"},
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 1},
                "mode": {"oneOf": [{"const": "a"}, {"type": "null"}]},
                "item": {"$ref": "#/$defs/Item"}
            },
            "required": ["path"],
            "$defs": {"Item": {"type": "object", "properties": {"k": {"type": "string"}}}}
        });
        let out = to_gemini(&schema).unwrap();
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "file"},
                    "limit": {"type": "integer", "nullable": true, "minimum": 1},
                    "mode": {"nullable": true, "enum": ["a"], "type": "string"},
                    "item": {"type": "object", "properties": {"k": {"type": "string"}}}
                },
                "required": ["path"]
            })
        );
    }

    #[test]
    fn refuses_what_gemini_cannot_express() {
        let recursive = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}});
        let err = to_gemini(&recursive).unwrap_err();
        assert!(err.contains("recursive $ref"), "{err}");
        let not = json!({"type": "object", "properties": {"x": {"not": {"type": "string"}}}});
        assert_eq!(
            to_gemini(&not).unwrap_err(),
            "#/properties/x: `not` has no equivalent in Gemini schemas"
        );
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(
                format!("d{i}"),
                json!({"type": "object", "properties": {"a": next, "b": next}}),
            );
        }
        defs.insert("d40".into(), json!({"type": "string"}));
        let exponential = json!({"$ref": "#/$defs/d0", "$defs": defs});
        assert!(to_gemini(&exponential)
            .unwrap_err()
            .contains("more than 20000 schema nodes"));
        let numbers = json!({"type": "integer", "enum": [1, 2]});
        assert!(to_gemini(&numbers).unwrap_err().contains("strings only"));
    }
}
