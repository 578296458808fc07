// Test helpers: play zut's side of the protocol over real pipes with a spawned extension.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const SDK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = path.resolve(SDK_DIR, "..", "..");
const TIMEOUT = 10_000;

/** The zut binary under test: $ZUT_BIN, else target/debug/zut (built by ./scripts/test). */
export function zutBin() {
  const bin = process.env.ZUT_BIN || path.join(REPO, "target", "debug", "zut");
  if (!existsSync(bin)) throw new Error(`zut binary not found at ${bin}: run cargo build --bins or set ZUT_BIN`);
  return bin;
}

/** A spawned extension; this object is the host. */
export class Ext {
  constructor(argv, options = {}) {
    this.proc = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], ...options });
    this.lines = [];
    this.waiters = [];
    this.closed = false;
    this.stderr = "";
    // "close" fires after the exit and the end of stdout/stderr, so stderr is complete.
    this.exit = new Promise((resolve) => this.proc.on("close", (code) => resolve(code)));
    let buf = "";
    this.proc.stdout.setEncoding("utf8");
    this.proc.stdout.on("data", (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        this.lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
      this.wake();
    });
    this.proc.stdout.on("end", () => {
      this.closed = true;
      this.wake();
    });
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (chunk) => (this.stderr += chunk));
    this.proc.stdin.on("error", () => {});
  }

  static fixture(name) {
    return new Ext([process.execPath, path.join(SDK_DIR, "test", "fixtures", name)]);
  }

  wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  send(frame) {
    this.sendRaw(JSON.stringify(frame) + "\n");
  }

  sendRaw(data) {
    this.proc.stdin.write(data);
  }

  closeStdin() {
    this.proc.stdin.end();
  }

  async recv(timeout = TIMEOUT) {
    const deadline = Date.now() + timeout;
    while (this.lines.length === 0) {
      if (this.closed) throw new Error(`extension closed stdout; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no frame within ${timeout} ms; stderr: ${this.stderr}`);
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return JSON.parse(this.lines.shift());
  }

  async recvUntil(kind) {
    const out = [];
    for (;;) {
      const frame = await this.recv();
      out.push(frame);
      if (frame.type === kind) return out;
    }
  }

  /** Reads hello, sends hello_ack, returns every frame up to ready (hello included). */
  async handshake(ack = {}) {
    const hello = await this.recv();
    if (hello.type !== "hello") throw new Error(`first frame ${JSON.stringify(hello)}`);
    this.send({ type: "hello_ack", protocol_version: 2, zut_version: "test", cwd: "/proj", ...ack });
    return [hello, ...(await this.recvUntil("ready"))];
  }

  async call(frame) {
    this.send(frame);
    return this.recv();
  }

  kill() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
  }
}
