"""The examples under the real zut host: `zut ext doctor` and `-p --json` turns against zut-llm-server."""

from __future__ import annotations

import json
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List

from .host import SDK_DIR, env, llm_server_bin, zut_bin

EXAMPLES = SDK_DIR / "examples"


def tool_call_script(name: str, args: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The model calls ``name`` once, then answers "done"."""
    return [
        {"body": {"kind": "reply", "format": "anthropic",
                  "blocks": [{"type": "tool_call", "id": "call_1", "name": name, "args": json.dumps(args)}]}},
        {"body": {"kind": "reply", "format": "anthropic", "blocks": [{"type": "text", "text": "done"}]}},
    ]


class RealHostTest(unittest.TestCase):
    def setUp(self) -> None:
        self.home = tempfile.TemporaryDirectory()
        self.addCleanup(self.home.cleanup)
        self.env = env()
        self.env["ZUT_HOME"] = self.home.name
        for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            self.env.pop(key, None)

    def zut(self, *args: str, timeout: float = 60) -> "subprocess.CompletedProcess[str]":
        return subprocess.run([str(zut_bin()), *args], env=self.env, cwd=self.home.name, capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)

    def turn(self, example: str, script: List[Dict[str, Any]], *flags: str) -> List[Dict[str, Any]]:
        """Runs one `zut --json` prompt with the example loaded; returns the JSON events."""
        script_file = Path(self.home.name) / "script.json"
        script_file.write_text(json.dumps(script))
        server = subprocess.Popen([str(llm_server_bin()), "--quiet", str(script_file)], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            self.assertTrue(url.startswith("http://127.0.0.1:"), url)
            run = self.zut("--json", "--provider", "anthropic", "--base-url", url, "--api-key", "x", "--model",
                           "m", "--no-ext", "-e", str(EXAMPLES / example), *flags, "go")
        finally:
            server.kill()
            server.wait()
            if server.stdout is not None:
                server.stdout.close()
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertNotIn("extension load", run.stderr)
        return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]

    def test_doctor_loads_every_example(self) -> None:
        expected = {"hello": ["/hello", "/where"], "notes": ["note_add", "note_list", "/notes"],
                    "guard": [], "panel": ["/pick", "confirm"]}
        for example, names in expected.items():
            with self.subTest(example=example):
                run = self.zut("ext", "doctor", "--no-ext", "--ext", str(EXAMPLES / example))
                self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
                self.assertIn(f"{example}-python [cli] ok", run.stdout)
                for name in names:
                    self.assertIn(f"{name} (active)", run.stdout)

    def test_tool_with_state_in_a_turn(self) -> None:
        script = tool_call_script("note_add", {"text": "buy milk"})
        script.insert(1, {"body": {"kind": "reply", "format": "anthropic", "blocks": [
            {"type": "tool_call", "id": "call_2", "name": "note_list", "args": "{}"}]}})
        events = self.turn("notes", script)
        results = [e for e in events if e["type"] == "tool_result"]
        self.assertEqual(len(results), 2, events)
        self.assertFalse(results[0]["is_error"])
        self.assertEqual(results[0]["content"], [{"type": "text", "text": "noted (1 notes)"}])
        self.assertEqual(results[1]["content"], [{"type": "text", "text": "buy milk"}])

    def test_details_persist_through_the_session_file(self) -> None:
        # Turn 1 keeps a note; its `details` go into the session file.
        session = Path(self.home.name) / "notes-session.jsonl"
        self.turn("notes", tool_call_script("note_add", {"text": "buy milk"}), "--session", str(session))
        rows = [json.loads(line) for line in session.read_text().splitlines() if line.strip()]
        states = [r for r in rows if r.get("type") == "extension_state"]
        self.assertEqual(states, [{"type": "extension_state", "extension": "notes-python",
                                   "state": {"notes": ["buy milk"]}}], rows)
        # Turn 2, a new zut process on the same file: the extension gets its notes back
        # (session_opened carries the last details) before the model lists them.
        events = self.turn("notes", tool_call_script("note_list", {}), "--session", str(session))
        results = [e for e in events if e["type"] == "tool_result"]
        self.assertEqual(len(results), 1, events)
        self.assertEqual(results[0]["content"], [{"type": "text", "text": "buy milk"}])

    def test_guard_refuses_a_dangerous_command(self) -> None:
        events = self.turn("guard", tool_call_script("bash", {"command": "rm -rf /tmp/zut-never", "timeout": 5}))
        results = [e for e in events if e["type"] == "tool_result"]
        self.assertEqual(len(results), 1, events)
        self.assertTrue(results[0]["is_error"])
        self.assertEqual(results[0]["content"], [{"type": "text", "text": 'refused: matches danger pattern "rm -rf"'}])


if __name__ == "__main__":
    unittest.main()
