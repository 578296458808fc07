//! Schemas and argument validation.

use serde_json::json;
use zut_tools::{
    builtin_tool, builtin_tools, validate_args, ArgValidator, ToolContent, ToolOutput,
    BUILTIN_NAMES,
};

use crate::common::*;

#[test]
fn builtin_schemas_are_listed_in_order_and_compile() {
    let tools = builtin_tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
    assert_eq!(names, BUILTIN_NAMES);
    for t in &tools {
        assert_eq!(t.schema["type"], "object", "{}", t.name);
        assert!(!t.description.is_empty());
        ArgValidator::new(&t.schema).unwrap();
    }
    assert!(builtin_tool("lsp_nonexistent").is_none());
}

#[test]
fn bash_schema_requires_a_positive_integer_timeout() {
    let schema = builtin_tool("bash").unwrap().schema;
    assert_eq!(schema["required"], json!(["command", "timeout"]));
    assert_eq!(schema["properties"]["timeout"]["type"], "integer");
    assert_eq!(schema["properties"]["timeout"]["minimum"], 1);
    validate_args(&schema, &json!({"command": "ls", "timeout": 30})).unwrap();
    let e = validate_args(&schema, &json!({"command": "ls", "timeout": 0})).unwrap_err();
    assert!(
        e.contains("/timeout") && e.contains("(rule: minimum)"),
        "{e}"
    );
    let e = validate_args(&schema, &json!({"command": "ls", "timeout": 2.5})).unwrap_err();
    assert!(e.contains("/timeout") && e.contains("(rule: type)"), "{e}");
    let e = validate_args(&schema, &json!({"command": "ls"})).unwrap_err();
    assert!(e.contains("(root)") && e.contains("timeout"), "{e}");
}

#[test]
fn invalid_schemas_are_errors_not_panics() {
    let e = ArgValidator::new(&json!({"type": 12})).unwrap_err();
    assert!(e.starts_with("invalid JSON Schema"), "{e}");
    let e = validate_args(&json!({"type": "nonsense"}), &json!({})).unwrap_err();
    assert!(e.starts_with("invalid JSON Schema"), "{e}");
}

#[test]
fn many_violations_are_summarised() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": false
    });
    let args: serde_json::Map<String, serde_json::Value> =
        (0..20).map(|i| (format!("k{i}"), json!(i))).collect();
    let e = validate_args(&schema, &serde_json::Value::Object(args)).unwrap_err();
    assert!(e.len() < 4000, "{}", e.len());
}

#[tokio::test]
async fn unknown_tools_and_non_object_arguments_are_error_results() {
    let dir = tempfile::tempdir().unwrap();
    let text = err_text(&call("web_click", json!({}), dir.path()).await);
    assert!(text.contains("Unknown built-in tool `web_click`"), "{text}");
    assert!(
        text.contains("read, write, edit, bash, grep, glob"),
        "{text}"
    );
    for name in BUILTIN_NAMES {
        let text = err_text(&call(name, json!("not an object"), dir.path()).await);
        assert!(
            text.starts_with(&format!("Invalid arguments for `{name}`")),
            "{text}"
        );
        assert!(text.contains("call it again"), "{text}");
    }
}

#[test]
fn outputs_serialize_like_the_protocol() {
    let out = ToolOutput {
        content: vec![
            ToolContent::Text("hi".into()),
            ToolContent::Image {
                mime_type: "image/png".into(),
                data: "AAAA".into(),
            },
        ],
        is_error: false,
    };
    let v = serde_json::to_value(&out).unwrap();
    assert_eq!(
        v,
        json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "mime_type": "image/png", "data": "AAAA"}
        ], "is_error": false})
    );
    let back: ToolOutput = serde_json::from_value(v).unwrap();
    assert_eq!(back, out);
    assert_eq!(ToolOutput::error("x").text_content(), "x");
}
