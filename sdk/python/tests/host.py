"""Test helpers: play zut's side of the protocol over real pipes with a spawned extension."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

SDK_DIR = Path(__file__).resolve().parent.parent
REPO = SDK_DIR.parent.parent
TIMEOUT = 10.0


def zut_bin() -> Path:
    """The zut binary under test: $ZUT_BIN, else target/debug/zut (built by ./scripts/test)."""
    path = Path(os.environ.get("ZUT_BIN") or REPO / "target" / "debug" / "zut")
    if not path.exists():
        raise RuntimeError(f"zut binary not found at {path}: run cargo build --bins or set ZUT_BIN")
    return path


def llm_server_bin() -> Path:
    """The scripted local LLM server binary."""
    return zut_bin().parent / "zut-llm-server"


def env() -> Dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(SDK_DIR) + os.pathsep + e.get("PYTHONPATH", "")
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    return e


class Ext:
    """A spawned extension; this object is the host."""

    def __init__(self, argv: List[str], cwd: Optional[str] = None) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=env())
        self.lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self.stderr = b""
        self.script_path: Optional[str] = None
        threading.Thread(target=self._pump, daemon=True).start()
        self._err_thread = threading.Thread(target=self._pump_err, daemon=True)
        self._err_thread.start()

    @classmethod
    def script(cls, source: str) -> "Ext":
        """Spawns ``python3 -c``-like: the source is written to a temp file and run."""
        fd, path = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(textwrap.dedent(source))
        ext = cls([sys.executable, path])
        ext.script_path = path
        return ext

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, frame: Any) -> None:
        self.send_raw((json.dumps(frame) + "\n").encode())

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def recv(self, timeout: float = TIMEOUT) -> Dict[str, Any]:
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise EOFError(f"extension closed stdout; stderr: {self.stderr.decode(errors='replace')}")
        frame = json.loads(line)
        assert isinstance(frame, dict), line
        return frame

    def recv_until(self, kind: str, timeout: float = TIMEOUT) -> List[Dict[str, Any]]:
        """Frames up to and including the first of ``type == kind``."""
        out = []
        while True:
            frame = self.recv(timeout)
            out.append(frame)
            if frame.get("type") == kind:
                return out

    def handshake(self, **ack: Any) -> List[Dict[str, Any]]:
        """Reads hello, sends hello_ack, returns every frame up to ``ready`` (hello included)."""
        hello = self.recv()
        assert hello["type"] == "hello", hello
        self.send({"type": "hello_ack", "protocol_version": 2, "zut_version": "test", "cwd": "/proj", **ack})
        return [hello] + self.recv_until("ready")

    def wait(self, timeout: float = TIMEOUT) -> int:
        """Waits for the exit status; stderr is complete afterwards."""
        code = self.proc.wait(timeout)
        self._err_thread.join(timeout)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.script_path is not None and os.path.exists(self.script_path):
            os.unlink(self.script_path)
