// clock: a zut extension in plain Node.js, no SDK, no dependencies.
//
//   /clock            show the local time (`/clock utc` for UTC)
//   /timer 5m [label] start a timer; when it fires: a note and a bell
//   /timers           list running timers
//
// Protocol v2: one JSON object per line on stdin/stdout. Stdout carries
// frames only; diagnostics go to stderr (zut's ext-clock.log).
"use strict";

const readline = require("node:readline");

function emit(frame) {
  process.stdout.write(JSON.stringify(frame) + "\n");
}

function log(message) {
  process.stderr.write(`[clock] ${message}\n`);
}

const pad = (n) => String(n).padStart(2, "0");

function localTime(date) {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  const zone = `UTC${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return `It is ${time} on ${day} (${zone}).`;
}

// "90", "90s", "5m", "1h" -> milliseconds, or null.
function parseDuration(text) {
  const match = /^(\d+)([smh]?)$/.exec(text || "");
  if (!match) return null;
  const unit = { "": 1000, s: 1000, m: 60000, h: 3600000 }[match[2]];
  return Number(match[1]) * unit;
}

function human(ms) {
  const s = Math.ceil(ms / 1000);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  return `${s}s`;
}

const timers = new Map(); // id -> {label, due, handle}
let nextTimer = 1;

function startTimer(args) {
  const [amount, ...rest] = args.split(/\s+/).filter(Boolean);
  const ms = parseDuration(amount);
  if (ms === null) {
    return { action: "noop", error: "usage: /timer <seconds|Ns|Nm|Nh> [label]" };
  }
  const id = nextTimer++;
  const label = rest.join(" ") || `timer #${id}`;
  const handle = setTimeout(() => {
    timers.delete(id);
    emit({ type: "notify", level: "success", message: `⏰ ${label} is done` });
    emit({ type: "alert", kind: "bell", reason: "timer_done" });
  }, ms);
  timers.set(id, { label, due: Date.now() + ms, handle });
  return { action: "display", display: `⏱ ${label}: ${human(ms)}` };
}

function listTimers() {
  if (timers.size === 0) return { action: "display", display: "No timers running." };
  const now = Date.now();
  const lines = [...timers.values()].map((t) => `⏱ ${t.label}: ${human(t.due - now)} left`);
  return { action: "display", display: lines.join("\n") };
}

function runCommand(name, args) {
  switch (name) {
    case "clock":
      return args.trim() === "utc"
        ? { action: "display", display: `It is ${new Date().toISOString()} (UTC).` }
        : { action: "display", display: localTime(new Date()) };
    case "timer":
      return startTimer(args);
    case "timers":
      return listTimers();
    default:
      return { action: "noop", error: `no handler for /${name}` };
  }
}

function shutdown() {
  for (const t of timers.values()) clearTimeout(t.handle);
  timers.clear();
  // Exit once the acknowledgement has been handed to the OS.
  process.stdout.write(JSON.stringify({ type: "shutdown_ack" }) + "\n", () => process.exit(0));
}

emit({ type: "hello", protocol_version: 2, name: "clock", version: "1.0.0", capabilities: ["commands", "alerts"] });

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    log(`ignoring malformed frame: ${err.message}`);
    return;
  }
  switch (msg.type) {
    case "hello_ack":
      if (msg.protocol_version !== 2) {
        log(`unsupported host protocol version ${msg.protocol_version}`);
        process.exit(1);
      }
      emit({ type: "register_command", name: "clock", description: "show the current time (/clock utc for UTC)" });
      emit({ type: "register_command", name: "timer", description: "start a timer: /timer 5m [label]" });
      emit({ type: "register_command", name: "timers", description: "list running timers" });
      emit({ type: "ready" });
      break;
    case "command_invoked":
      emit({ type: "command_response", id: msg.id, ...runCommand(msg.name, msg.args || "") });
      break;
    case "shutdown":
      shutdown();
      break;
    default:
      break; // events and future frames are ignored
  }
});
// The host closed stdin: it is gone, so are we.
input.on("close", () => process.exit(0));
