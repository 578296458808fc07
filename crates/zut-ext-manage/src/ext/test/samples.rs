//! A sample argument object that satisfies a tool's JSON Schema, for the
//! `tool_call` check when the author gives none (`--args name=JSON`).

use serde_json::{json, Map, Value};

/// Builds a value valid for `schema` as far as a simple walk can tell:
/// `default`, `const`, `examples` or the first `enum` value when present,
/// otherwise a value of the declared type with every required property.
pub fn sample(schema: &Value) -> Value {
    sample_at(schema, 0)
}

fn sample_at(schema: &Value, depth: usize) -> Value {
    let Some(obj) = schema.as_object() else {
        return json!({});
    };
    if depth > 8 {
        return Value::Null;
    }
    for key in ["default", "const"] {
        if let Some(v) = obj.get(key) {
            return v.clone();
        }
    }
    if let Some(v) = obj
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return v.clone();
    }
    if let Some(v) = obj
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return v.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = obj
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return sample_at(first, depth + 1);
        }
    }
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if obj.contains_key("properties") => "object",
        _ => "object",
    };
    match ty {
        "string" => {
            let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            Value::String("test".repeat(min / 4 + 1))
        }
        "integer" => json!(obj
            .get("minimum")
            .and_then(Value::as_i64)
            .unwrap_or(1)
            .max(1)),
        "number" => json!(obj
            .get("minimum")
            .and_then(Value::as_f64)
            .unwrap_or(1.0)
            .max(1.0)),
        "boolean" => json!(true),
        "null" => Value::Null,
        "array" => {
            let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let item = obj
                .get("items")
                .map_or(json!("test"), |s| sample_at(s, depth + 1));
            Value::Array(vec![item; min])
        }
        _ => {
            let mut out = Map::new();
            let props = obj.get("properties").and_then(Value::as_object);
            let required = obj.get("required").and_then(Value::as_array);
            if let (Some(props), Some(required)) = (props, required) {
                for name in required.iter().filter_map(Value::as_str) {
                    let sub = props
                        .get(name)
                        .cloned()
                        .unwrap_or(json!({"type": "string"}));
                    out.insert(name.to_string(), sample_at(&sub, depth + 1));
                }
            }
            Value::Object(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_properties_get_typed_values() {
        let schema = json!({"type":"object","properties":{
            "city":{"type":"string"},"days":{"type":"integer","minimum":3},
            "unit":{"enum":["c","f"]},"tags":{"type":"array","items":{"type":"string"},"minItems":1},
            "optional":{"type":"string"}},
            "required":["city","days","unit","tags"]});
        assert_eq!(
            sample(&schema),
            json!({"city":"test","days":3,"unit":"c","tags":["test"]})
        );
    }

    #[test]
    fn defaults_and_odd_schemas() {
        assert_eq!(
            sample(
                &json!({"type":"object","properties":{"a":{"type":"string","default":"x"}},"required":["a"]})
            ),
            json!({"a":"x"})
        );
        assert_eq!(sample(&json!(null)), json!({}));
        assert_eq!(sample(&json!({})), json!({}));
        assert_eq!(sample(&json!({"type":["null","boolean"]})), json!(true));
    }
}
