"""{{name}}: a zut extension (Python SDK, vendored in ./zut_ext)."""

from typing import Any, Dict

from zut_ext import Extension, Response, ToolResult

ext = Extension("{{name}}", "0.1.0")
calls = {"count": 0}


@ext.command("{{name}}", "say hello from {{name}}")
def hello(args: str) -> Response:
    return Response.prompt(f"Say hello to {args or 'me'} in one short sentence.")


@ext.tool(
    "{{tool}}",
    "Echo a text back (an example tool of {{name}}).",
    {"type": "object", "properties": {"text": {"type": "string", "description": "what to echo"}}, "required": ["text"]},
)
def echo(args: Dict[str, Any]) -> ToolResult:
    text = args.get("text")
    if not isinstance(text, str):
        return ToolResult.error("text must be a string")
    calls["count"] += 1
    return ToolResult.text(text).with_details({"calls": calls["count"]})


if __name__ == "__main__":
    ext.main()
