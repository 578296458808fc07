"""What handlers return: command responses, tool results, interceptor decisions, panels."""

from __future__ import annotations

import binascii
TYPE_CHECKING = False  # typing is imported by type checkers only: it costs start-up time
if TYPE_CHECKING:
    from typing import Any, Dict, Iterable, List, Optional

    from .frames import ContentBlock, PanelContent

_UNSET: Any = object()


def panel(id: str, title: str = "", lines: Iterable[str] = (), footer: str = "") -> PanelContent:
    """Builds a panel. Lines starting (after spaces) with ``▸ `` render as selected."""
    content: PanelContent = {"id": id}
    if title:
        content["title"] = title
    content["lines"] = list(lines)
    if footer:
        content["footer"] = footer
    return content


class Response:
    """A command's answer (``command_response``)."""

    __slots__ = ("action", "text", "panel", "error_text")

    def __init__(self, action: str = "noop", text: str = "", panel: Optional[PanelContent] = None,
                 error_text: str = "") -> None:
        self.action = action
        self.text = text
        self.panel = panel
        self.error_text = error_text

    @classmethod
    def prompt(cls, text: str) -> "Response":
        """Submits ``text`` as a user message (a turn runs)."""
        return cls("prompt", text)

    @classmethod
    def insert(cls, text: str) -> "Response":
        """Inserts ``text`` in the editor without submitting it."""
        return cls("insert", text)

    @classmethod
    def display(cls, text: str) -> "Response":
        """Shows a one-shot note; no model call."""
        return cls("display", text)

    @classmethod
    def open_panel(cls, content: PanelContent) -> "Response":
        """Opens an interactive panel owned by this extension."""
        return cls("open_panel", panel=content)

    @classmethod
    def noop(cls) -> "Response":
        """Nothing visible."""
        return cls("noop")

    @classmethod
    def error(cls, text: str) -> "Response":
        """A red status line; nothing else happens."""
        return cls("noop", error_text=text)

    def to_frame(self, id: str) -> Dict[str, Any]:
        """The wire frame answering the request ``id``."""
        frame: Dict[str, Any] = {"type": "command_response", "id": id, "action": self.action or "noop"}
        if self.action in ("prompt", "insert", "display") and self.text:
            frame[self.action] = self.text
        if self.action == "open_panel" and self.panel is not None:
            frame["open_panel"] = dict(self.panel)
        if self.error_text:
            frame["error"] = self.error_text
        return frame


class ToolResult:
    """A tool's answer (``tool_result``): content blocks, error flag, activations, state."""

    __slots__ = ("content", "is_error", "activate_tools", "details")

    def __init__(self, content: Optional[List[ContentBlock]] = None, is_error: bool = False) -> None:
        self.content: List[ContentBlock] = list(content or [])
        self.is_error = is_error
        self.activate_tools: List[str] = []
        self.details: Any = _UNSET

    @classmethod
    def text(cls, text: str) -> "ToolResult":
        """One text block."""
        return cls([{"type": "text", "text": text}])

    @classmethod
    def error(cls, text: str) -> "ToolResult":
        """One text block, ``is_error: true``."""
        return cls([{"type": "text", "text": text}], is_error=True)

    @classmethod
    def image(cls, mime_type: str, data: bytes) -> "ToolResult":
        """One image block; ``data`` is base64-encoded for you."""
        return cls().with_image(mime_type, data)

    def with_text(self, text: str) -> "ToolResult":
        """Appends a text block."""
        self.content.append({"type": "text", "text": text})
        return self

    def with_image(self, mime_type: str, data: bytes) -> "ToolResult":
        """Appends an image block from raw bytes."""
        return self.with_image_base64(mime_type, binascii.b2a_base64(data, newline=False).decode("ascii"))

    def with_image_base64(self, mime_type: str, data: str) -> "ToolResult":
        """Appends an image block from standard base64 (with padding)."""
        self.content.append({"type": "image", "mime_type": mime_type, "data": data})
        return self

    def with_details(self, details: Any) -> "ToolResult":
        """Attaches extension state persisted with the session (``None`` clears it; keep it under 256 KiB)."""
        self.details = details
        return self

    def with_activate_tools(self, names: Iterable[str]) -> "ToolResult":
        """Activates deferred tools by name."""
        self.activate_tools.extend(names)
        return self

    def to_frame(self, id: str) -> Dict[str, Any]:
        """The wire frame answering the request ``id``."""
        frame: Dict[str, Any] = {"type": "tool_result", "id": id, "content": [dict(b) for b in self.content]}
        if self.is_error:
            frame["is_error"] = True
        if self.activate_tools:
            frame["activate_tools"] = list(self.activate_tools)
        if self.details is not _UNSET:
            frame["details"] = self.details
        return frame


class ToolCallDecision:
    """A ``tool_call`` interceptor's answer."""

    __slots__ = ("block", "reason", "modified_args")

    def __init__(self, block: bool = False, reason: str = "", modified_args: Any = _UNSET) -> None:
        self.block = block
        self.reason = reason
        self.modified_args = modified_args

    @classmethod
    def allow(cls) -> "ToolCallDecision":
        """Let the call run unchanged."""
        return cls()

    @classmethod
    def deny(cls, reason: str) -> "ToolCallDecision":
        """Refuse the call; the model gets ``reason`` as an error result."""
        return cls(True, reason)

    @classmethod
    def rewrite(cls, args: Dict[str, Any]) -> "ToolCallDecision":
        """Run the call with ``args`` (a complete replacement object) instead."""
        return cls(modified_args=args)

    def fields(self) -> Dict[str, Any]:
        """The reply fields besides ``type`` and ``id``."""
        if self.block:
            return {"block": True, "reason": self.reason} if self.reason else {"block": True}
        if self.modified_args is not _UNSET:
            return {"modified_args": self.modified_args}
        return {}


class TurnStartDecision:
    """A ``turn_start`` interceptor's answer."""

    __slots__ = ("block", "reason", "context")

    def __init__(self, block: bool = False, reason: str = "", context: str = "") -> None:
        self.block = block
        self.reason = reason
        self.context = context

    @classmethod
    def allow(cls) -> "TurnStartDecision":
        """Let the model call happen."""
        return cls()

    @classmethod
    def deny(cls, reason: str) -> "TurnStartDecision":
        """No model call; the turn ends with ``reason``."""
        return cls(True, reason)

    @classmethod
    def with_context(cls, context: str) -> "TurnStartDecision":
        """Adds hidden context to the upcoming request only."""
        return cls(context=context)

    def fields(self) -> Dict[str, Any]:
        """The reply fields besides ``type`` and ``id``."""
        if self.block:
            return {"block": True, "reason": self.reason} if self.reason else {"block": True}
        return {"context": self.context} if self.context else {}


class AssistantMessageDecision:
    """An ``assistant_message`` interceptor's answer."""

    __slots__ = ("block", "reason", "replace_text")

    def __init__(self, block: bool = False, reason: str = "", replace_text: str = "") -> None:
        self.block = block
        self.reason = reason
        self.replace_text = replace_text

    @classmethod
    def allow(cls) -> "AssistantMessageDecision":
        """Show the message unchanged."""
        return cls()

    @classmethod
    def deny(cls, reason: str = "") -> "AssistantMessageDecision":
        """Hide the message from the user (the transcript keeps it)."""
        return cls(True, reason)

    @classmethod
    def replace(cls, text: str) -> "AssistantMessageDecision":
        """Show ``text`` instead."""
        return cls(replace_text=text)

    def fields(self) -> Dict[str, Any]:
        """The reply fields besides ``type`` and ``id``."""
        if self.block:
            return {"block": True, "reason": self.reason} if self.reason else {"block": True}
        return {"replace_text": self.replace_text} if self.replace_text else {}
