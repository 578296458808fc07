"""What zut said about itself in ``hello_ack``."""

from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional

from .frames import SessionInfo


class HostInfo(NamedTuple):
    """Host metadata from ``hello_ack``; ``cwd`` is the user's project, ``data_dir`` is yours to write."""

    protocol_version: int = 0
    zut_version: str = ""
    provider: str = ""
    model: str = ""
    cwd: str = ""
    extension_dir: str = ""
    data_dir: str = ""
    session: Optional[SessionInfo] = None

    @classmethod
    def from_frame(cls, frame: Dict[str, Any]) -> "HostInfo":
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
