"""What zut said about itself in ``hello_ack``."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is imported only by type checkers (start-up time)
if TYPE_CHECKING:
    from typing import Any, Dict, Optional

    from .frames import SessionInfo

_FIELDS = ("protocol_version", "zut_version", "provider", "model", "cwd", "extension_dir", "data_dir", "session")


class HostInfo:
    """Host metadata from ``hello_ack``; ``cwd`` is the user's project, ``data_dir`` is yours to write.

    Read-only; compares equal field by field.
    """

    __slots__ = _FIELDS

    protocol_version: int
    zut_version: str
    provider: str
    model: str
    cwd: str
    extension_dir: str
    data_dir: str
    session: Optional[SessionInfo]

    def __init__(self, protocol_version: int = 0, zut_version: str = "", provider: str = "", model: str = "",
                 cwd: str = "", extension_dir: str = "", data_dir: str = "",
                 session: Optional[SessionInfo] = None) -> None:
        values = (protocol_version, zut_version, provider, model, cwd, extension_dir, data_dir, session)
        for name, value in zip(_FIELDS, values):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"HostInfo is read-only (cannot set {name})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HostInfo):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    def __hash__(self) -> int:
        return hash(tuple(repr(getattr(self, f)) for f in _FIELDS))

    def __repr__(self) -> str:
        return "HostInfo(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in _FIELDS) + ")"

    @classmethod
    def from_frame(cls, frame: Dict[str, Any]) -> HostInfo:
        """Reads the fields of a ``hello_ack`` frame, ignoring unknown ones and wrong types."""

        def text(key: str) -> str:
            value = frame.get(key)
            return value if isinstance(value, str) else ""

        version = frame.get("protocol_version")
        session = frame.get("session")
        return cls(
            protocol_version=version if isinstance(version, int) else 0,
            zut_version=text("zut_version"),
            provider=text("provider"),
            model=text("model"),
            cwd=text("cwd"),
            extension_dir=text("extension_dir"),
            data_dir=text("data_dir"),
            session=session if isinstance(session, dict) else None,  # type: ignore[arg-type]
        )
