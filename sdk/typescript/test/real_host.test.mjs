// The examples under the real zut host: `zut ext doctor` and `--json` turns against zut-llm-server.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { SDK_DIR, zutBin } from "./host.mjs";

const EXAMPLES = path.join(SDK_DIR, "examples");
let home;
let env;

before(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "zut-ts-sdk-"));
  env = { ...process.env, ZUT_HOME: home };
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
});
after(() => rmSync(home, { recursive: true, force: true }));

function zut(args) {
  return spawnSync(zutBin(), args, { env, cwd: home, encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"] });
}

const toolCall = (id, name, args) => ({
  body: { kind: "reply", format: "anthropic", blocks: [{ type: "tool_call", id, name, args: JSON.stringify(args) }] },
});
const text = (t) => ({ body: { kind: "reply", format: "anthropic", blocks: [{ type: "text", text: t }] } });

/** Runs one `zut --json` prompt with the example loaded; returns the JSON events. */
async function turn(example, script, flags = []) {
  const file = path.join(home, `script-${example}.json`);
  writeFileSync(file, JSON.stringify(script));
  const server = spawn(path.join(path.dirname(zutBin()), "zut-llm-server"), ["--quiet", file], { stdio: ["ignore", "pipe", "ignore"] });
  try {
    const url = await new Promise((resolve, reject) => {
      let buf = "";
      server.stdout.setEncoding("utf8");
      server.stdout.on("data", (c) => {
        buf += c;
        if (buf.includes("\n")) resolve(buf.split("\n")[0].trim());
      });
      server.on("exit", () => reject(new Error("zut-llm-server exited")));
    });
    const run = spawnSync(zutBin(), ["--json", "--provider", "anthropic", "--base-url", url, "--api-key", "x",
      "--model", "m", "--no-ext", "-e", path.join(EXAMPLES, example), ...flags, "go"],
    { env, cwd: home, encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"] });
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /extension load/);
    return run.stdout.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  } finally {
    server.kill("SIGKILL");
  }
}

describe("examples under the real zut", () => {
  test("zut ext doctor loads every example", () => {
    const expected = { hello: ["/hello", "/where"], notes: ["note_add", "note_list", "/notes"], guard: [], panel: ["/pick", "confirm"] };
    for (const [example, names] of Object.entries(expected)) {
      const run = zut(["ext", "doctor", "--no-ext", "--ext", path.join(EXAMPLES, example)]);
      assert.equal(run.status, 0, run.stdout + run.stderr);
      assert.match(run.stdout, new RegExp(`${example}-typescript \\[cli\\] ok`));
      for (const name of names) assert.ok(run.stdout.includes(`${name} (active)`), `${name} in ${run.stdout}`);
    }
  });

  test("a tool with state inside a turn", async () => {
    const events = await turn("notes", [toolCall("c1", "note_add", { text: "buy milk" }), toolCall("c2", "note_list", {}), text("done")]);
    const results = events.filter((e) => e.type === "tool_result");
    assert.equal(results.length, 2);
    assert.deepEqual(results[0].content, [{ type: "text", text: "noted (1 notes)" }]);
    assert.deepEqual(results[1].content, [{ type: "text", text: "buy milk" }]);
  });

  test("tool details persist through the session file", async () => {
    // Turn 1 keeps a note; its `details` go into the session file.
    const session = path.join(home, "notes-session.jsonl");
    await turn("notes", [toolCall("c1", "note_add", { text: "buy milk" }), text("done")], ["--session", session]);
    const rows = readFileSync(session, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
    assert.deepEqual(rows.filter((r) => r.type === "extension_state"),
      [{ type: "extension_state", extension: "notes-typescript", state: { notes: ["buy milk"] } }]);
    // Turn 2, a new zut process on the same file: the extension gets its notes back
    // (session_opened carries the last details) before the model lists them.
    const events = await turn("notes", [toolCall("c2", "note_list", {}), text("done")], ["--session", session]);
    const results = events.filter((e) => e.type === "tool_result");
    assert.equal(results.length, 1);
    assert.deepEqual(results[0].content, [{ type: "text", text: "buy milk" }]);
  });

  test("the guard refuses a dangerous command", async () => {
    const events = await turn("guard", [toolCall("c1", "bash", { command: "rm -rf /tmp/zut-never", timeout: 5 }), text("done")]);
    const results = events.filter((e) => e.type === "tool_result");
    assert.equal(results.length, 1);
    assert.equal(results[0].is_error, true);
    assert.deepEqual(results[0].content, [{ type: "text", text: 'refused: matches danger pattern "rm -rf"' }]);
  });
});
