"""guard: refuses dangerous bash commands before they run, and counts what it saw."""

import os
import sys

try:
    import zut_ext  # noqa: F401
except ImportError:  # running from the zut repository: use the SDK two directories up
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import threading  # noqa: E402
from typing import Any  # noqa: E402

from zut_ext import Extension, ToolCallDecision  # noqa: E402

ext = Extension("guard-python", "1.0.0")
DANGER = ("rm -rf", "mkfs", ":(){")
seen = {"allowed": 0, "blocked": 0}
lock = threading.Lock()


@ext.intercept_tool_call
def guard(tool: str, args: Any) -> ToolCallDecision:
    command = args.get("command", "") if isinstance(args, dict) else ""
    hit = next((d for d in DANGER if tool == "bash" and isinstance(command, str) and d in command), None)
    with lock:
        seen["blocked" if hit else "allowed"] += 1
        status = f"guard: {seen['allowed']} allowed, {seen['blocked']} blocked"
    ext.set_status("guard", status)
    if hit:
        return ToolCallDecision.deny(f'refused: matches danger pattern "{hit}"')
    return ToolCallDecision.allow()


if __name__ == "__main__":
    ext.main()
