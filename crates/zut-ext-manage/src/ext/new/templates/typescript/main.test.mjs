// Drives main.mjs over pipes like zut does: node --test
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { test } from "node:test";

test("command, tool and shutdown", async () => {
  const proc = spawn(process.execPath, ["main.mjs"], { cwd: import.meta.dirname ?? new URL(".", import.meta.url).pathname });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value);
  const send = (f) => proc.stdin.write(JSON.stringify(f) + "\n");
  const hello = await next();
  assert.equal(hello.name, "{{name}}");
  send({ type: "hello_ack", protocol_version: 2 });
  send({ type: "tool_call", id: "t1", name: "{{tool}}", args: { text: "hi" } });
  send({ type: "command_invoked", id: "c1", name: "{{name}}", args: "Ada" });
  const replies = {};
  while (Object.keys(replies).length < 2) {
    const f = await next();
    if (f.id) replies[f.id] = f;
  }
  assert.deepEqual(replies.t1.content, [{ type: "text", text: "hi" }]);
  assert.equal(replies.c1.action, "prompt");
  send({ type: "shutdown" });
  assert.deepEqual(await next(), { type: "shutdown_ack" });
  const code = await new Promise((resolve) => proc.on("close", resolve));
  assert.equal(code, 0);
});
