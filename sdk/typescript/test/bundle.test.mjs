// bundle/zut-ext.js (the single-file build, scripts/bundle.mjs) against
// dist/index.js: the same exports, and the same frames from a real
// extension process. scripts/test-sdks checks that it is fresh.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { Ext, SDK_DIR } from "./host.mjs";

const DIST = path.join(SDK_DIR, "dist", "index.js");
const BUNDLE = path.join(SDK_DIR, "bundle", "zut-ext.js");

describe("bundle", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "zut-ext-bundle-"));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  test("exports what dist/index.js exports", async () => {
    const dist = await import(pathToFileURL(DIST).href);
    const bundle = await import(pathToFileURL(BUNDLE).href);
    const shape = (m) => Object.keys(m).sort().map((k) => `${k}: ${typeof m[k]}`);
    assert.deepEqual(shape(bundle), shape(dist));
    assert.ok(Object.keys(bundle).includes("Extension"));
    assert.deepEqual(bundle.CAPABILITIES, dist.CAPABILITIES);
    assert.equal(bundle.PROTOCOL_VERSION, dist.PROTOCOL_VERSION);
  });

  test("imports nothing: one file", () => {
    const text = readFileSync(BUNDLE, "utf8");
    assert.doesNotMatch(text, /^\s*import\s/m);
    assert.doesNotMatch(text, /\bimport\(/);
  });

  test("the kitchen fixture gives the same frames through the bundle", async () => {
    const source = readFileSync(path.join(SDK_DIR, "test", "fixtures", "kitchen.mjs"), "utf8");
    assert.ok(source.includes('"../../dist/index.js"'));
    const copy = path.join(tmp, "kitchen.mjs");
    writeFileSync(copy, source.replaceAll('"../../dist/index.js"', JSON.stringify(pathToFileURL(BUNDLE).href)));
    const run = async (argv) => {
      const ext = new Ext(argv);
      try {
        const frames = await ext.handshake();
        for (const [id, name] of [["t1", "echo"], ["t2", "fail"], ["t3", "no-such-tool"]]) {
          frames.push(await ext.call({ type: "tool_call", id, name, args: { x: 5 } }));
        }
        ext.send({ type: "shutdown" });
        frames.push(await ext.recv());
        assert.equal(await ext.exit, 0);
        return frames;
      } finally {
        ext.kill();
      }
    };
    const viaDist = await run([process.execPath, path.join(SDK_DIR, "test", "fixtures", "kitchen.mjs")]);
    const viaBundle = await run([process.execPath, copy]);
    assert.deepEqual(viaBundle, viaDist);
    assert.equal(viaBundle.at(-1).type, "shutdown_ack");
  });
});
