"""Group O (SDK behaviour) and the bad-input list, over real pipes with a spawned extension."""

from __future__ import annotations

import json
import time
import unittest
from typing import Any, Dict

from .host import Ext

KITCHEN = r'''
import asyncio, sys, threading, time
from zut_ext import (Extension, Response, ToolResult, ToolCallDecision, TurnStartDecision,
                     AssistantMessageDecision, panel)

ext = Extension("kitchen", "1.2.3")
seen = []

@ext.on_hello
def late(ext, host):
    @ext.command("cwd", "project dir")
    def cwd(args, ctx):
        return Response.display(host.cwd + "|" + ctx.host.cwd)

@ext.command("hi", "say hi")
def hi(args):
    return Response.prompt("hi " + args)

@ext.command("boom", "raises")
def boom(args):
    raise ValueError("kaput")

@ext.command("slow", "blocks until released")
def slow(args):
    time.sleep(float(args or "30"))
    return Response.display("slow done")

@ext.tool("echo", "echo", {"type": "object"})
def echo(args):
    return ToolResult.text(str(args.get("x"))).with_details({"state": 1})

@ext.tool("aecho", "async echo", {"type": "object"})
async def aecho(args, ctx):
    await asyncio.sleep(0.01)
    return ToolResult.text("async " + ctx.request_id)

@ext.tool("fail", "raises", {"type": "object"})
async def fail(args):
    raise RuntimeError("nope")

@ext.tool("loader", "activates weather", {"type": "object"})
def loader(args):
    return ToolResult.text("Enabled weather").with_activate_tools(["weather"])

ext.deferred_tool("weather", "weather", {"type": "object"}, lambda args: "16C")

@ext.tool("block", "waits for a panel answer", {"type": "object"})
def block(args, ctx):
    answer = {}
    done = threading.Event()
    def key(k):
        if k["key"] == "rune":
            answer["ok"] = k.get("text") == "y"
            done.set()
    ext.on_panel_key("gate", key)
    ext.open_panel(panel("gate", "Approve?", ["y/n"], "y/n"))
    done.wait()
    return ToolResult.text("approved") if answer["ok"] else ToolResult.error("denied")

@ext.tool("helpers", "emits helper frames", {"type": "object"})
def helpers(args):
    ext.set_status("progress", "2/4")
    ext.set_widget("plan", "Plan", ["a", "b"])
    ext.clear_widget("plan")
    ext.alert("bell", "question_ready")
    return "ok"

keys = []
@ext.on_panel_key("p")
def on_key(k):
    keys.append(k.get("text", k["key"]))
    if k["key"] == "enter":
        ext.notify("info", "".join(keys))

@ext.on_event("session_opened")
def opened(ev):
    ext.notify("info", "opened " + ev["session"]["id"] + " " + repr(ev.get("state")))

@ext.on_event("tool_confirmation_requested")
def confirm(ev):
    ext.notify("info", ev["tool_id"] + "|" + ev["tool_name"] + "|" + ev["tool_preview"])

@ext.on_event("turn_end")
def bad_event(ev):
    raise KeyError("event handler fails")

@ext.intercept_tool_call
def guard(tool, args):
    if tool == "panic":
        raise ValueError("guard broke")
    if tool == "bash":
        return (False, "no bash")
    if tool == "rewrite":
        return ToolCallDecision.rewrite({"x": 2})
    return True

@ext.intercept_turn_start
async def turn(step):
    return TurnStartDecision.with_context(f"step {step}")

@ext.intercept_assistant_message
def msg(text):
    return text.replace("SECRET", "[redacted]")

ext.main()
'''


class KitchenTest(unittest.TestCase):
    """One extension using every feature, driven like zut drives it."""

    def setUp(self) -> None:
        self.ext = Ext.script(KITCHEN)
        self.frames = self.ext.handshake(cwd="/proj")

    def tearDown(self) -> None:
        self.ext.kill()

    def call(self, frame: Dict[str, Any]) -> Dict[str, Any]:
        self.ext.send(frame)
        return self.ext.recv()

    def test_o2_o3_registration_order(self) -> None:
        types = [f["type"] for f in self.frames]
        self.assertEqual(types, ["hello", "register_command", "register_command", "register_command",
                                 "register_command", "register_tool", "register_tool", "register_tool",
                                 "register_tool", "register_tool", "register_tool", "register_tool",
                                 "subscribe", "ready"])
        hello = self.frames[0]
        self.assertEqual(hello["protocol_version"], 2)
        self.assertEqual(hello["name"], "kitchen")
        self.assertEqual(hello["version"], "1.2.3")
        self.assertIn("panels", hello["capabilities"])
        # O2: the on_hello command (registered last) is announced before ready and sees the host cwd.
        self.assertEqual(self.frames[4]["name"], "cwd")
        tools = {f["name"]: f for f in self.frames if f["type"] == "register_tool"}
        self.assertTrue(tools["weather"]["deferred"])
        self.assertNotIn("deferred", tools["echo"])
        sub = self.frames[-2]
        self.assertEqual(sub["intercept"], ["tool_call", "turn_start", "assistant_message"])
        self.assertEqual(sorted(sub["events"]), ["session_opened", "tool_confirmation_requested", "turn_end"])
        reply = self.call({"type": "command_invoked", "id": "c1", "name": "cwd"})
        self.assertEqual(reply, {"type": "command_response", "id": "c1", "action": "display",
                                 "display": "/proj|/proj"})

    def test_commands(self) -> None:
        self.assertEqual(self.call({"type": "command_invoked", "id": "1", "name": "hi", "args": "bob"}),
                         {"type": "command_response", "id": "1", "action": "prompt", "prompt": "hi bob"})
        # O10: unknown command and a raising handler; the extension keeps running.
        self.assertEqual(self.call({"type": "command_invoked", "id": "2", "name": "nope"}),
                         {"type": "command_response", "id": "2", "action": "noop",
                          "error": "no handler for /nope"})
        reply = self.call({"type": "command_invoked", "id": "3", "name": "boom"})
        self.assertEqual(reply["action"], "noop")
        self.assertTrue(reply["error"].startswith("panic:"), reply)
        self.assertIn("kaput", reply["error"])
        self.assertEqual(self.call({"type": "command_invoked", "id": "4", "name": "hi"})["prompt"], "hi ")

    def test_tools(self) -> None:
        # O5: details pass through unchanged.
        self.assertEqual(self.call({"type": "tool_call", "id": "t1", "name": "echo", "args": {"x": 5}}),
                         {"type": "tool_result", "id": "t1", "content": [{"type": "text", "text": "5"}],
                          "details": {"state": 1}})
        self.assertEqual(self.call({"type": "tool_call", "id": "t2", "name": "aecho", "args": {}})["content"],
                         [{"type": "text", "text": "async t2"}])
        reply = self.call({"type": "tool_call", "id": "t3", "name": "fail", "args": {}})
        self.assertTrue(reply["is_error"])
        self.assertTrue(reply["content"][0]["text"].startswith("panic: "), reply)
        self.assertEqual(self.call({"type": "tool_call", "id": "t4", "name": "zzz", "args": {}}),
                         {"type": "tool_result", "id": "t4", "is_error": True,
                          "content": [{"type": "text", "text": 'no handler for tool "zzz"'}]})
        # O8: activation.
        self.assertEqual(self.call({"type": "tool_call", "id": "t5", "name": "loader"})["activate_tools"],
                         ["weather"])
        self.assertEqual(self.call({"type": "tool_call", "id": "t6", "name": "weather"})["content"][0]["text"],
                         "16C")

    def test_o4_helper_frames(self) -> None:
        self.ext.send({"type": "tool_call", "id": "h", "name": "helpers", "args": {}})
        frames = self.ext.recv_until("tool_result")
        self.assertEqual(frames[:4], [
            {"type": "status", "key": "progress", "text": "2/4"},
            {"type": "widget", "id": "plan", "position": "above_input", "title": "Plan", "lines": ["a", "b"]},
            {"type": "widget_clear", "id": "plan"},
            {"type": "alert", "kind": "bell", "reason": "question_ready"},
        ])

    def test_o6_events(self) -> None:
        session = {"id": "s1", "parent_id": "p0", "path": "/x.jsonl", "cwd": "/proj", "fork_point": 4}
        self.ext.send({"type": "event", "event": "session_opened", "session": session, "state": {"n": 1}})
        self.assertEqual(self.ext.recv()["message"], "opened s1 {'n': 1}")
        self.ext.send({"type": "event", "event": "tool_confirmation_requested", "tool_id": "c9",
                       "tool_name": "bash", "tool_preview": "ls"})
        self.assertEqual(self.ext.recv()["message"], "c9|bash|ls")
        # A raising event handler is logged; the next request still works.
        self.ext.send({"type": "event", "event": "turn_end", "stop": "end_turn"})
        self.assertEqual(self.call({"type": "command_invoked", "id": "x", "name": "hi"})["id"], "x")

    def test_o7_interceptors(self) -> None:
        self.assertEqual(self.call({"type": "event_intercept", "id": "i1", "event": "turn_start", "step": 3}),
                         {"type": "event_intercept_response", "id": "i1", "context": "step 3"})
        self.assertEqual(self.call({"type": "event_intercept", "id": "i2", "event": "tool_call",
                                    "tool_name": "bash", "tool_args": {}}),
                         {"type": "event_intercept_response", "id": "i2", "block": True, "reason": "no bash"})
        self.assertEqual(self.call({"type": "event_intercept", "id": "i3", "event": "tool_call",
                                    "tool_name": "read", "tool_args": {}}),
                         {"type": "event_intercept_response", "id": "i3"})
        self.assertEqual(self.call({"type": "event_intercept", "id": "i4", "event": "tool_call",
                                    "tool_name": "rewrite", "tool_args": {"x": 1}})["modified_args"], {"x": 2})
        reply = self.call({"type": "event_intercept", "id": "i5", "event": "tool_call", "tool_name": "panic"})
        self.assertTrue(reply["block"])
        self.assertTrue(reply["reason"].startswith("intercept panic:"), reply)
        self.assertEqual(self.call({"type": "event_intercept", "id": "i6", "event": "assistant_message",
                                    "text": "a SECRET"})["replace_text"], "a [redacted]")

    def test_o9_blocked_tool_does_not_stop_the_reader(self) -> None:
        self.ext.send({"type": "tool_call", "id": "b1", "name": "block", "args": {}})
        opened = self.ext.recv()
        self.assertEqual(opened, {"type": "open_panel", "panel": {"id": "gate", "title": "Approve?",
                                                                  "lines": ["y/n"], "footer": "y/n"}})
        # While the handler blocks, other requests are answered.
        self.assertEqual(self.call({"type": "command_invoked", "id": "c", "name": "hi", "args": "x"})["id"], "c")
        self.assertEqual(self.call({"type": "tool_call", "id": "e", "name": "echo", "args": {"x": 1}})["id"], "e")
        self.ext.send({"type": "panel_key", "panel_id": "gate", "key": "rune", "text": "y"})
        self.assertEqual(self.ext.recv()["content"], [{"type": "text", "text": "approved"}])
        self.ext.send({"type": "tool_call", "id": "b2", "name": "block", "args": {}})
        self.ext.recv()
        self.ext.send({"type": "panel_key", "panel_id": "gate", "key": "rune", "text": "n"})
        reply = self.ext.recv()
        self.assertTrue(reply["is_error"])
        self.assertEqual(reply["content"][0]["text"], "denied")

    def test_panel_keys_in_order(self) -> None:
        letters = "abcdefghijklmnopqrstuvwxyz" * 4
        for ch in letters:
            self.ext.send({"type": "panel_key", "panel_id": "p", "key": "rune", "text": ch})
        self.ext.send({"type": "panel_key", "panel_id": "p", "key": "enter"})
        self.assertEqual(self.ext.recv()["message"], letters + "enter")

    def test_many_concurrent_requests(self) -> None:
        n = 300
        for i in range(n):
            self.ext.send({"type": "tool_call", "id": f"t{i}", "name": "echo", "args": {"x": i}})
            self.ext.send({"type": "event_intercept", "id": f"i{i}", "event": "turn_start", "step": i + 1})
        ids = [self.ext.recv()["id"] for _ in range(2 * n)]
        self.assertEqual(sorted(ids), sorted([f"t{i}" for i in range(n)] + [f"i{i}" for i in range(n)]))

    def test_o11_shutdown_with_a_blocked_handler(self) -> None:
        self.ext.send({"type": "command_invoked", "id": "s", "name": "slow", "args": "30"})
        start = time.monotonic()
        self.ext.send({"type": "shutdown"})
        self.assertEqual(self.ext.recv(), {"type": "shutdown_ack"})
        self.assertEqual(self.ext.wait(), 0)
        self.assertLess(time.monotonic() - start, 2.0)  # zut's grace; not a timing benchmark

    def test_bad_host_lines_are_skipped(self) -> None:
        self.ext.send_raw(b"this is not json\n")
        self.ext.send_raw(b"[1,2]\n\n")
        self.ext.send({"type": "frame_from_the_future", "x": 1})
        self.ext.send({"type": "panel_resize", "panel_id": "p", "width": 3, "height": 4})
        self.ext.send_raw(b'{"type":"command_invoked","id":"crlf","name":"hi"}\r\n')
        self.assertEqual(self.ext.recv()["id"], "crlf")
        self.ext.close_stdin()
        self.assertEqual(self.ext.wait(), 0)
        self.assertIn(b"malformed host frame skipped", self.ext.stderr)

    def test_stdin_closed_is_a_clean_exit(self) -> None:
        self.ext.close_stdin()
        self.assertEqual(self.ext.wait(), 0)

    def test_line_over_4_mib_fails(self) -> None:
        big = json.dumps({"type": "event", "event": "x", "text": "a" * (4 * 1024 * 1024)}).encode() + b"\n"
        try:
            self.ext.send_raw(big)
        except BrokenPipeError:
            pass
        self.assertEqual(self.ext.wait(), 1)
        self.assertIn(b"4 MiB", self.ext.stderr)


class HandshakeTest(unittest.TestCase):
    SIMPLE = "from zut_ext import Extension\next = Extension('simple')\next.main()\n"

    def run_with_ack(self, line: bytes) -> Ext:
        ext = Ext.script(self.SIMPLE)
        self.addCleanup(ext.kill)
        self.assertEqual(ext.recv()["type"], "hello")
        ext.send_raw(line)
        self.assertEqual(ext.wait(), 1)
        return ext

    def test_o1_wrong_protocol_version(self) -> None:
        ext = self.run_with_ack(b'{"type":"hello_ack","protocol_version":1}\n')
        self.assertIn(b"unsupported host protocol version 1 (want 2)", ext.stderr)

    def test_o1_first_line_not_hello_ack(self) -> None:
        ext = self.run_with_ack(b'{"type":"tool_call","id":"1","name":"x"}\n')
        self.assertIn(b"unsupported host protocol version", ext.stderr)

    def test_first_line_not_json(self) -> None:
        ext = self.run_with_ack(b"hello?\n")
        self.assertIn(b"parse hello_ack", ext.stderr)

    def test_nothing_registered_sends_no_subscribe(self) -> None:
        ext = Ext.script(self.SIMPLE)
        self.addCleanup(ext.kill)
        frames = ext.handshake()
        self.assertEqual([f["type"] for f in frames], ["hello", "ready"])
        ext.send({"type": "shutdown"})
        self.assertEqual(ext.recv(), {"type": "shutdown_ack"})
        self.assertEqual(ext.wait(), 0)


if __name__ == "__main__":
    unittest.main()
