"""Drives main.py over pipes like zut does: python3 -m unittest test_main"""

import json
import subprocess
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


class ProtocolTest(unittest.TestCase):
    def test_command_tool_and_shutdown(self) -> None:
        frames = [
            {"type": "hello_ack", "protocol_version": 2, "cwd": str(HERE)},
            {"type": "tool_call", "id": "t1", "name": "{{tool}}", "args": {"text": "hi"}},
            {"type": "command_invoked", "id": "c1", "name": "{{name}}", "args": "Ada"},
        ]
        proc = subprocess.Popen([sys.executable, "main.py"], cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        hello = json.loads(proc.stdout.readline())
        self.assertEqual((hello["type"], hello["name"]), ("hello", "{{name}}"))
        for frame in frames:
            proc.stdin.write((json.dumps(frame) + "\n").encode())
        proc.stdin.flush()
        replies = {}
        while len(replies) < 2:
            frame = json.loads(proc.stdout.readline())
            if "id" in frame:
                replies[frame["id"]] = frame
        self.assertEqual(replies["t1"]["content"], [{"type": "text", "text": "hi"}])
        self.assertEqual(replies["c1"]["action"], "prompt")
        proc.stdin.write(b'{"type":"shutdown"}\n')
        proc.stdin.close()
        self.assertEqual(json.loads(proc.stdout.readline()), {"type": "shutdown_ack"})
        self.assertEqual(proc.wait(10), 0)
        proc.stdout.close()


if __name__ == "__main__":
    unittest.main()
