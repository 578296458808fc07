// Group O (SDK behaviour) and the bad-input list, over real pipes with a spawned extension.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { Ext } from "./host.mjs";

describe("kitchen extension", () => {
  let ext;
  let frames;
  beforeEach(async () => {
    ext = Ext.fixture("kitchen.mjs");
    frames = await ext.handshake({ cwd: "/proj" });
  });
  afterEach(() => ext.kill());

  test("O2/O3 registration order, on_hello command sees the cwd", async () => {
    assert.deepEqual(frames.map((f) => f.type), [
      "hello", "register_command", "register_command", "register_command", "register_command",
      "register_tool", "register_tool", "register_tool", "register_tool", "register_tool", "register_tool",
      "register_tool", "subscribe", "ready",
    ]);
    assert.equal(frames[0].protocol_version, 2);
    assert.equal(frames[0].name, "kitchen");
    assert.equal(frames[0].version, "1.2.3");
    assert.ok(frames[0].capabilities.includes("panels"));
    assert.equal(frames[4].name, "cwd");
    const tools = Object.fromEntries(frames.filter((f) => f.type === "register_tool").map((f) => [f.name, f]));
    assert.equal(tools.weather.deferred, true);
    assert.equal(tools.echo.deferred, undefined);
    const sub = frames.at(-2);
    assert.deepEqual(sub.intercept, ["tool_call", "turn_start", "assistant_message"]);
    assert.deepEqual([...sub.events].sort(), ["session_opened", "tool_confirmation_requested", "turn_end"]);
    assert.deepEqual(await ext.call({ type: "command_invoked", id: "c1", name: "cwd" }),
      { type: "command_response", id: "c1", action: "display", display: "/proj|/proj" });
  });

  test("commands, O10 unknown and throwing handlers", async () => {
    assert.deepEqual(await ext.call({ type: "command_invoked", id: "1", name: "hi", args: "bob" }),
      { type: "command_response", id: "1", action: "prompt", prompt: "hi bob" });
    assert.deepEqual(await ext.call({ type: "command_invoked", id: "2", name: "nope" }),
      { type: "command_response", id: "2", action: "noop", error: "no handler for /nope" });
    const reply = await ext.call({ type: "command_invoked", id: "3", name: "boom" });
    assert.equal(reply.action, "noop");
    assert.equal(reply.error, "panic: kaput");
    assert.equal((await ext.call({ type: "command_invoked", id: "4", name: "hi" })).prompt, "hi ");
  });

  test("tools: O5 details, async, rejection, unknown, O8 activation", async () => {
    assert.deepEqual(await ext.call({ type: "tool_call", id: "t1", name: "echo", args: { x: 5 } }),
      { type: "tool_result", id: "t1", content: [{ type: "text", text: "5" }], details: { state: 1 } });
    assert.deepEqual((await ext.call({ type: "tool_call", id: "t2", name: "aecho", args: {} })).content,
      [{ type: "text", text: "async t2" }]);
    assert.deepEqual(await ext.call({ type: "tool_call", id: "t3", name: "fail", args: {} }),
      { type: "tool_result", id: "t3", is_error: true, content: [{ type: "text", text: "panic: nope" }] });
    assert.deepEqual(await ext.call({ type: "tool_call", id: "t4", name: "zzz", args: {} }),
      { type: "tool_result", id: "t4", is_error: true, content: [{ type: "text", text: 'no handler for tool "zzz"' }] });
    assert.deepEqual((await ext.call({ type: "tool_call", id: "t5", name: "loader" })).activate_tools, ["weather"]);
    assert.equal((await ext.call({ type: "tool_call", id: "t6", name: "weather" })).content[0].text, "16C");
  });

  test("O4 helper frames", async () => {
    ext.send({ type: "tool_call", id: "h", name: "helpers", args: {} });
    const got = await ext.recvUntil("tool_result");
    assert.deepEqual(got.slice(0, 4), [
      { type: "status", key: "progress", text: "2/4" },
      { type: "widget", id: "plan", position: "above_input", title: "Plan", lines: ["a", "b"] },
      { type: "widget_clear", id: "plan" },
      { type: "alert", kind: "bell", reason: "question_ready" },
    ]);
  });

  test("O6 events arrive unchanged; a throwing event handler is logged", async () => {
    const session = { id: "s1", parent_id: "p0", path: "/x.jsonl", cwd: "/proj", fork_point: 4 };
    ext.send({ type: "event", event: "session_opened", session, state: { n: 1 } });
    assert.equal((await ext.recv()).message, 'opened s1 {"n":1}');
    ext.send({ type: "event", event: "tool_confirmation_requested", tool_id: "c9", tool_name: "bash", tool_preview: "ls" });
    assert.equal((await ext.recv()).message, "c9|bash|ls");
    ext.send({ type: "event", event: "turn_end", stop: "end_turn" });
    assert.equal((await ext.call({ type: "command_invoked", id: "x", name: "hi" })).id, "x");
  });

  test("O7 interceptors", async () => {
    assert.deepEqual(await ext.call({ type: "event_intercept", id: "i1", event: "turn_start", step: 3 }),
      { type: "event_intercept_response", id: "i1", context: "step 3" });
    assert.deepEqual(await ext.call({ type: "event_intercept", id: "i2", event: "tool_call", tool_name: "bash", tool_args: {} }),
      { type: "event_intercept_response", id: "i2", block: true, reason: "no bash" });
    assert.deepEqual(await ext.call({ type: "event_intercept", id: "i3", event: "tool_call", tool_name: "read", tool_args: {} }),
      { type: "event_intercept_response", id: "i3" });
    assert.deepEqual((await ext.call({ type: "event_intercept", id: "i4", event: "tool_call", tool_name: "rewrite", tool_args: { x: 1 } })).modified_args,
      { x: 2 });
    assert.deepEqual(await ext.call({ type: "event_intercept", id: "i5", event: "tool_call", tool_name: "panic" }),
      { type: "event_intercept_response", id: "i5", block: true, reason: "intercept panic: guard broke" });
    assert.equal((await ext.call({ type: "event_intercept", id: "i6", event: "assistant_message", text: "a SECRET" })).replace_text,
      "a [redacted]");
  });

  test("O9 a tool waiting for a panel answer does not stop the reader", async () => {
    ext.send({ type: "tool_call", id: "b1", name: "block", args: {} });
    assert.deepEqual(await ext.recv(),
      { type: "open_panel", panel: { id: "gate", title: "Approve?", lines: ["y/n"], footer: "y/n" } });
    assert.equal((await ext.call({ type: "command_invoked", id: "c", name: "hi", args: "x" })).id, "c");
    assert.equal((await ext.call({ type: "tool_call", id: "e", name: "echo", args: { x: 1 } })).id, "e");
    ext.send({ type: "panel_key", panel_id: "gate", key: "rune", text: "y" });
    assert.deepEqual((await ext.recv()).content, [{ type: "text", text: "approved" }]);
    ext.send({ type: "tool_call", id: "b2", name: "block", args: {} });
    await ext.recv();
    ext.send({ type: "panel_key", panel_id: "gate", key: "rune", text: "n" });
    const reply = await ext.recv();
    assert.equal(reply.is_error, true);
    assert.equal(reply.content[0].text, "denied");
  });

  test("panel keys are handled in order, even by async callbacks", async () => {
    const letters = "abcdefghijklmnopqrstuvwxyz".repeat(4);
    for (const ch of letters) ext.send({ type: "panel_key", panel_id: "p", key: "rune", text: ch });
    ext.send({ type: "panel_key", panel_id: "p", key: "enter" });
    assert.equal((await ext.recv()).message, letters + "enter");
  });

  test("many concurrent requests are all answered once", async () => {
    const n = 300;
    const want = [];
    for (let i = 0; i < n; i++) {
      ext.send({ type: "tool_call", id: `t${i}`, name: "aecho", args: {} });
      ext.send({ type: "event_intercept", id: `i${i}`, event: "turn_start", step: i + 1 });
      want.push(`t${i}`, `i${i}`);
    }
    const ids = [];
    for (let i = 0; i < 2 * n; i++) ids.push((await ext.recv()).id);
    assert.deepEqual(ids.sort(), want.sort());
  });

  test("O11 shutdown with a handler still running: ack and exit 0", async () => {
    ext.send({ type: "command_invoked", id: "s", name: "slow" });
    ext.send({ type: "shutdown" });
    assert.deepEqual(await ext.recv(), { type: "shutdown_ack" });
    assert.equal(await ext.exit, 0);
  });

  test("bad host lines are skipped; CRLF accepted; stdin EOF exits 0", async () => {
    ext.sendRaw("this is not json\n");
    ext.sendRaw("[1,2]\n\n");
    ext.send({ type: "frame_from_the_future", x: 1 });
    ext.send({ type: "panel_resize", panel_id: "p", width: 3, height: 4 });
    ext.sendRaw('{"type":"command_invoked","id":"crlf","name":"hi"}\r\n');
    assert.equal((await ext.recv()).id, "crlf");
    ext.closeStdin();
    assert.equal(await ext.exit, 0);
    assert.match(ext.stderr, /malformed host frame skipped/);
  });

  test("a host line over 4 MiB fails with a clear error", async () => {
    ext.sendRaw(JSON.stringify({ type: "event", event: "x", text: "a".repeat(4 * 1024 * 1024) }) + "\n");
    assert.equal(await ext.exit, 1);
    assert.match(ext.stderr, /4 MiB/);
  });
});

describe("handshake", () => {
  const withAck = async (line) => {
    const ext = Ext.fixture("simple.mjs");
    try {
      assert.equal((await ext.recv()).type, "hello");
      ext.sendRaw(line);
      assert.equal(await ext.exit, 1);
      return ext.stderr;
    } finally {
      ext.kill();
    }
  };
  test("O1 hello_ack with protocol 1", async () => {
    assert.match(await withAck('{"type":"hello_ack","protocol_version":1}\n'), /unsupported host protocol version 1 \(want 2\)/);
  });
  test("O1 first host line is not hello_ack", async () => {
    assert.match(await withAck('{"type":"tool_call","id":"1","name":"x"}\n'), /unsupported host protocol version/);
  });
  test("first host line is not JSON", async () => {
    assert.match(await withAck("hello?\n"), /parse hello_ack/);
  });
  test("nothing registered: no subscribe; shutdown acked", async () => {
    const ext = Ext.fixture("simple.mjs");
    try {
      assert.deepEqual((await ext.handshake()).map((f) => f.type), ["hello", "ready"]);
      ext.send({ type: "shutdown" });
      assert.deepEqual(await ext.recv(), { type: "shutdown_ack" });
      assert.equal(await ext.exit, 0);
    } finally {
      ext.kill();
    }
  });
});
