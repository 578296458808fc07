"""notes: a tool with state. Notes travel in tool_result.details, so they follow the session branch."""

import os
import sys

try:
    import zut_ext  # noqa: F401
except ImportError:  # running from the zut repository: use the SDK two directories up
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import threading  # noqa: E402
from typing import Any, Dict, List  # noqa: E402

from zut_ext import Event, Extension, Response, ToolResult  # noqa: E402

ext = Extension("notes-python", "1.0.0")
notes: List[str] = []
lock = threading.Lock()

SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "the note to keep"}},
    "required": ["text"],
}


@ext.tool("note_add", "Keep a short note for later in this session.", SCHEMA)
def note_add(args: Dict[str, Any]) -> ToolResult:
    text = args.get("text")
    if not isinstance(text, str) or not text.strip():
        return ToolResult.error("text is required")
    with lock:
        notes.append(text.strip())
        state = {"notes": list(notes)}
    return ToolResult.text(f"noted ({len(state['notes'])} notes)").with_details(state)


@ext.tool("note_list", "List the notes kept in this session.")
def note_list(args: Dict[str, Any]) -> ToolResult:
    with lock:
        return ToolResult.text("\n".join(notes) if notes else "(no notes)")


@ext.command("notes", "show the notes of this session")
def show(args: str) -> Response:
    with lock:
        return Response.display("\n".join(notes) if notes else "(no notes)")


def restore(event: Event) -> None:
    """Session events hand back the last details this extension returned on this branch."""
    state = event.get("state")
    with lock:
        notes.clear()
        if isinstance(state, dict) and isinstance(state.get("notes"), list):
            notes.extend(str(n) for n in state["notes"])


for name in ("session_start", "session_opened", "session_switched", "session_forked", "session_compacted"):
    ext.on_event(name, restore)

if __name__ == "__main__":
    ext.main()
