"""panel: a keyboard-driven picker (/pick) and a tool that waits for the user's y/n in a panel."""

import os
import sys

try:
    import zut_ext  # noqa: F401
except ImportError:  # running from the zut repository: use the SDK two directories up
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import threading  # noqa: E402
from typing import Any, Dict, List  # noqa: E402

from zut_ext import Context, Extension, PanelKey, Response, ToolResult, panel  # noqa: E402

ext = Extension("panel-python", "1.0.0")
ITEMS = ["red", "green", "blue"]
cursor = {"at": 0}


def picker_lines() -> List[str]:
    return [("▸ " if i == cursor["at"] else "  ") + item for i, item in enumerate(ITEMS)]


@ext.command("pick", "pick a colour in a panel")
def pick(args: str) -> Response:
    return Response.open_panel(panel("picker", "Pick a colour", picker_lines(), "↑/↓ move · enter pick · esc close"))


@ext.on_panel_key("picker")
def picker_key(key: PanelKey) -> None:
    if key["key"] == "up":
        cursor["at"] = max(0, cursor["at"] - 1)
    elif key["key"] == "down":
        cursor["at"] = min(len(ITEMS) - 1, cursor["at"] + 1)
    elif key["key"] == "enter":
        ext.close_panel("picker")
        ext.notify("success", f"picked {ITEMS[cursor['at']]}")
        return
    ext.render_panel(panel("picker", "Pick a colour", picker_lines(), "↑/↓ move · enter pick · esc close"))


@ext.tool("confirm", "Ask the user to approve an action; returns approved or denied.",
          {"type": "object", "properties": {"action": {"type": "string"}}, "required": ["action"]})
def confirm(args: Dict[str, Any], ctx: Context) -> ToolResult:
    answer: Dict[str, bool] = {}
    done = threading.Event()

    def on_key(key: PanelKey) -> None:
        if key["key"] == "rune" and key.get("text") in ("y", "n"):
            answer["ok"] = key.get("text") == "y"
            done.set()

    def on_close() -> None:
        answer.setdefault("ok", False)
        done.set()

    panel_id = f"confirm-{ctx.request_id}"
    ext.on_panel_key(panel_id, on_key)
    ext.on_panel_close(panel_id, on_close)
    ext.open_panel(panel(panel_id, "Approve?", [f"  {args.get('action', '?')}", "", "  y  approve", "  n  deny"], "y/n"))
    done.wait()
    ext.close_panel(panel_id)
    return ToolResult.text("approved") if answer.get("ok") else ToolResult.error("denied")


if __name__ == "__main__":
    ext.main()
