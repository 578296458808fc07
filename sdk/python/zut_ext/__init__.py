"""zut_ext: write zut extensions in Python (protocol v2, standard library only).

    from zut_ext import Extension, Response

    ext = Extension("hello", "1.0.0")

    @ext.command("hello", "say hi")
    def hello(args: str) -> Response:
        return Response.prompt("Greet me in one short sentence.")

    ext.main()

See docs/sdk-python.md.
"""

from .errors import LineTooLong, NotConnected, SdkError
from .extension import CAPABILITIES, EVENT_NAMES, KEY_NAMES, Context, Extension
from .host_info import HostInfo
from .results import (AssistantMessageDecision, Response, ToolCallDecision, ToolResult, TurnStartDecision,
                      panel)

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs start-up time
if TYPE_CHECKING:
    from .frames import PROTOCOL_VERSION, Event, PanelContent, PanelKey, SessionInfo

_FRAME_NAMES = ("PROTOCOL_VERSION", "Event", "PanelContent", "PanelKey", "SessionInfo")


def __getattr__(name: str) -> object:
    """The generated frame types, imported on first use (they need ``typing``)."""
    if name in _FRAME_NAMES:
        from . import frames
        return getattr(frames, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "AssistantMessageDecision",
    "CAPABILITIES",
    "Context",
    "EVENT_NAMES",
    "Event",
    "Extension",
    "HostInfo",
    "KEY_NAMES",
    "LineTooLong",
    "NotConnected",
    "PROTOCOL_VERSION",
    "PanelContent",
    "PanelKey",
    "Response",
    "SdkError",
    "SessionInfo",
    "ToolCallDecision",
    "ToolResult",
    "TurnStartDecision",
    "panel",
]
__version__ = "0.1.0"
