// zut-ext: the zut extension SDK for TypeScript/JavaScript, bundled from dist/ by esbuild (npm run bundle). Do not edit; types: ../dist/index.d.ts.

// dist/errors.js
var SdkError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "SdkError";
  }
};
var LineTooLong = class extends SdkError {
  constructor(message) {
    super(message);
    this.name = "LineTooLong";
  }
};
var NotConnected = class extends SdkError {
  constructor(message) {
    super(message);
    this.name = "NotConnected";
  }
};

// dist/frames.js
var PROTOCOL_VERSION = 2;
var EXT_FRAME_TYPES = ["hello", "register_command", "register_tool", "subscribe", "ready", "command_response", "tool_result", "event_intercept_response", "notify", "status", "widget", "widget_clear", "alert", "clear_notes", "submit", "submit_slash", "open_panel", "panel_render", "panel_close", "shutdown_ack"];
var HOST_FRAME_TYPES = ["hello_ack", "command_invoked", "tool_call", "event", "event_intercept", "panel_key", "panel_close", "panel_resize", "shutdown"];

// dist/lines.js
var MAX_LINE = 4 * 1024 * 1024;
var LineSplitter = class {
  parts = [];
  pending = 0;
  decoder = new TextDecoder();
  /** Feeds one chunk; returns the complete lines it finished. */
  push(chunk) {
    const bytes = typeof chunk === "string" ? encodeUtf8(chunk) : chunk;
    const lines = [];
    let start = 0;
    for (; ; ) {
      const nl = bytes.indexOf(10, start);
      if (nl < 0)
        break;
      const piece = bytes.subarray(start, nl);
      if (this.pending + piece.length + 1 > MAX_LINE)
        throw tooLong();
      lines.push(this.take(piece));
      start = nl + 1;
    }
    if (start < bytes.length) {
      const rest = bytes.subarray(start);
      if (this.pending + rest.length >= MAX_LINE)
        throw tooLong();
      this.parts.push(rest.slice());
      this.pending += rest.length;
    }
    return lines;
  }
  /** The unterminated last line at EOF, if any. */
  finish() {
    if (this.pending === 0)
      return void 0;
    return this.take(new Uint8Array(0));
  }
  take(last) {
    let bytes = last;
    if (this.parts.length > 0) {
      bytes = new Uint8Array(this.pending + last.length);
      let at = 0;
      for (const p of this.parts) {
        bytes.set(p, at);
        at += p.length;
      }
      bytes.set(last, at);
      this.parts = [];
      this.pending = 0;
    }
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13)
      bytes = bytes.subarray(0, bytes.length - 1);
    return this.decoder.decode(bytes);
  }
};
function tooLong() {
  return new LineTooLong(`host line exceeds ${MAX_LINE} bytes (4 MiB)`);
}
function encodeUtf8(text) {
  return new TextEncoder().encode(text);
}

// dist/results.js
function panel(id, title = "", lines = [], footer = "") {
  const content = { id };
  if (title)
    content.title = title;
  content.lines = [...lines];
  if (footer)
    content.footer = footer;
  return content;
}
var Response = class _Response {
  action;
  text;
  panelContent;
  errorText;
  constructor(action, text = "", panelContent, errorText = "") {
    this.action = action;
    this.text = text;
    this.panelContent = panelContent;
    this.errorText = errorText;
  }
  /** Submits `text` as a user message (a turn runs). */
  static prompt(text) {
    return new _Response("prompt", text);
  }
  /** Inserts `text` in the editor without submitting it. */
  static insert(text) {
    return new _Response("insert", text);
  }
  /** Shows a one-shot note; no model call. */
  static display(text) {
    return new _Response("display", text);
  }
  /** Opens an interactive panel owned by this extension. */
  static openPanel(content) {
    return new _Response("open_panel", "", content);
  }
  /** Nothing visible. */
  static noop() {
    return new _Response("noop");
  }
  /** A red status line; nothing else happens. */
  static error(text) {
    return new _Response("noop", "", void 0, text);
  }
  /** The wire frame answering the request `id`. */
  toFrame(id) {
    const frame = { type: "command_response", id, action: this.action || "noop" };
    if (this.text && (this.action === "prompt" || this.action === "insert" || this.action === "display")) {
      frame[this.action] = this.text;
    }
    if (this.action === "open_panel" && this.panelContent)
      frame.open_panel = { ...this.panelContent };
    if (this.errorText)
      frame.error = this.errorText;
    return frame;
  }
};
var UNSET = /* @__PURE__ */ Symbol("unset");
var ToolResult = class _ToolResult {
  content;
  isError;
  activateTools = [];
  details = UNSET;
  constructor(content = [], isError = false) {
    this.content = [...content];
    this.isError = isError;
  }
  /** One text block. */
  static text(text) {
    return new _ToolResult([{ type: "text", text }]);
  }
  /** One text block, `is_error: true`. */
  static error(text) {
    return new _ToolResult([{ type: "text", text }], true);
  }
  /** One image block from raw bytes (base64-encoded for you). */
  static image(mimeType, data) {
    return new _ToolResult().withImage(mimeType, data);
  }
  /** Appends a text block. */
  withText(text) {
    this.content.push({ type: "text", text });
    return this;
  }
  /** Appends an image block from raw bytes. */
  withImage(mimeType, data) {
    let binary = "";
    for (let i = 0; i < data.length; i += 32768) {
      binary += String.fromCharCode(...data.subarray(i, i + 32768));
    }
    return this.withImageBase64(mimeType, btoa(binary));
  }
  /** Appends an image block from standard base64 (with padding). */
  withImageBase64(mimeType, data) {
    this.content.push({ type: "image", mime_type: mimeType, data });
    return this;
  }
  /** Attaches state persisted with the session (`null` clears it; keep it under 256 KiB). */
  withDetails(details) {
    this.details = details;
    return this;
  }
  /** Activates deferred tools by name. */
  withActivateTools(names) {
    this.activateTools.push(...names);
    return this;
  }
  /** The wire frame answering the request `id`. */
  toFrame(id) {
    const frame = { type: "tool_result", id, content: this.content.map((b) => ({ ...b })) };
    if (this.isError)
      frame.is_error = true;
    if (this.activateTools.length > 0)
      frame.activate_tools = [...this.activateTools];
    if (this.details !== UNSET)
      frame.details = this.details;
    return frame;
  }
};
function blocked(reason) {
  return reason ? { block: true, reason } : { block: true };
}
var ToolCallDecision = class _ToolCallDecision {
  fields;
  constructor(fields) {
    this.fields = fields;
  }
  /** Let the call run unchanged. */
  static allow() {
    return new _ToolCallDecision({});
  }
  /** Refuse the call; the model gets `reason` as an error result. */
  static deny(reason) {
    return new _ToolCallDecision(blocked(reason));
  }
  /** Run the call with `args` (a complete replacement object) instead. */
  static rewrite(args) {
    return new _ToolCallDecision({ modified_args: args });
  }
};
var TurnStartDecision = class _TurnStartDecision {
  fields;
  constructor(fields) {
    this.fields = fields;
  }
  /** Let the model call happen. */
  static allow() {
    return new _TurnStartDecision({});
  }
  /** No model call; the turn ends with `reason`. */
  static deny(reason) {
    return new _TurnStartDecision(blocked(reason));
  }
  /** Adds hidden context to the upcoming request only. */
  static withContext(context) {
    return new _TurnStartDecision(context ? { context } : {});
  }
};
var AssistantMessageDecision = class _AssistantMessageDecision {
  fields;
  constructor(fields) {
    this.fields = fields;
  }
  /** Show the message unchanged. */
  static allow() {
    return new _AssistantMessageDecision({});
  }
  /** Hide the message from the user (the transcript keeps it). */
  static deny(reason = "") {
    return new _AssistantMessageDecision(blocked(reason));
  }
  /** Show `text` instead. */
  static replace(text) {
    return new _AssistantMessageDecision(text ? { replace_text: text } : {});
  }
};

// dist/extension.js
var CAPABILITIES = ["commands", "tools", "events", "alerts", "panels", "session_state", "status", "widgets"];
var KEY_NAMES = [
  "up",
  "down",
  "left",
  "right",
  "enter",
  "tab",
  "backspace",
  "delete",
  "home",
  "end",
  "pageup",
  "pagedown",
  "rune",
  "esc",
  "unknown"
];
var EVENT_NAMES = [
  "session_start",
  "session_opened",
  "session_switched",
  "session_forked",
  "session_compacted",
  "turn_start",
  "tool_call",
  "tool_confirmation_requested",
  "assistant_message",
  "turn_end"
];
function panicText(error) {
  if (error instanceof Error)
    return error.message || error.name;
  return String(error);
}
function hostInfo(ack) {
  const text = (v) => typeof v === "string" ? v : "";
  return {
    protocolVersion: typeof ack.protocol_version === "number" ? ack.protocol_version : 0,
    zutVersion: text(ack.zut_version),
    provider: text(ack.provider),
    model: text(ack.model),
    cwd: text(ack.cwd),
    extensionDir: text(ack.extension_dir),
    dataDir: text(ack.data_dir),
    session: ack.session && typeof ack.session === "object" ? ack.session : void 0
  };
}
var Extension = class {
  name;
  version;
  commands = [];
  tools = [];
  events = /* @__PURE__ */ new Map();
  allEvents;
  toolGuard;
  turnGuard;
  messageGuard;
  helloCallbacks = [];
  panelKeys = /* @__PURE__ */ new Map();
  panelCloses = /* @__PURE__ */ new Map();
  panelChains = /* @__PURE__ */ new Map();
  output;
  hostInfo = hostInfo({ type: "hello_ack" });
  constructor(name, version = "") {
    this.name = name;
    this.version = version;
  }
  // ---------------------------------------------------------------- registration
  /** Registers `/name`; the handler returns a Response (or nothing for noop). */
  command(name, description, handler) {
    this.commands.push({ name, description, handler });
    return this;
  }
  /** Registers a tool; the handler returns a ToolResult or a string (one text block). */
  tool(name, description, schema, handler, options = {}) {
    this.tools.push({
      name,
      description,
      handler,
      schema: schema ?? { type: "object", properties: {} },
      deferred: options.deferred ?? false
    });
    return this;
  }
  /** Registers a tool that the model sees only after a result's `activate_tools` names it. */
  deferredTool(name, description, schema, handler) {
    return this.tool(name, description, schema, handler, { deferred: true });
  }
  /** Observes a lifecycle event (one handler per name). */
  onEvent(name, handler) {
    this.events.set(name, handler);
    return this;
  }
  /** Receives every event without a handler of its own (subscribes to all of them). */
  onAllEvents(handler) {
    this.allEvents = handler;
    return this;
  }
  /** Consulted before every tool call. */
  interceptToolCall(handler) {
    this.toolGuard = handler;
    return this;
  }
  /** Consulted before each model call; a string return is hidden context. */
  interceptTurnStart(handler) {
    this.turnGuard = handler;
    return this;
  }
  /** Consulted before the user sees an assistant message; a string return replaces it. */
  interceptAssistantMessage(handler) {
    this.messageGuard = handler;
    return this;
  }
  /** Runs after `hello_ack`, before registrations are announced (may register more). */
  onHello(handler) {
    this.helloCallbacks.push(handler);
    return this;
  }
  /** Key callback of a panel; callbacks of one panel run one at a time, in order. */
  onPanelKey(panelId, handler) {
    this.panelKeys.set(panelId, handler);
    return this;
  }
  /** Called when the user closes the panel (Esc / Ctrl+C). */
  onPanelClose(panelId, handler) {
    this.panelCloses.set(panelId, handler);
    return this;
  }
  // ---------------------------------------------------------------- one-way frames
  /** What zut said in `hello_ack` (empty before `run` connects). */
  get host() {
    return this.hostInfo;
  }
  /** Writes one raw frame; throws NotConnected before `run` or after it returned. */
  send(frame) {
    const out = this.output;
    if (!out)
      throw new NotConnected("not connected to zut (call inside run())");
    out.write(JSON.stringify(frame) + "\n");
  }
  /** One-shot note; level `info`, `success`, `warn` or `error`. */
  notify(level, message) {
    this.send({ type: "notify", level, message });
  }
  /** Removes this extension's notes. */
  clearNotes() {
    this.send({ type: "clear_notes" });
  }
  /** Persistent status row keyed by `key` (no level, as the Go SDK). */
  setStatus(key, text) {
    this.send({ type: "status", key, text });
  }
  /** Removes a status row. */
  clearStatus(key) {
    this.send({ type: "status", key, text: "" });
  }
  /** Persistent widget above the editor. */
  setWidget(id, title, lines, position = "above_input") {
    this.send({ type: "widget", id, position, title, lines: [...lines] });
  }
  /** Removes a widget. */
  clearWidget(id) {
    this.send({ type: "widget_clear", id });
  }
  /** Host-owned alert (terminal bell). */
  alert(kind = "bell", reason = "") {
    this.send(reason ? { type: "alert", kind, reason } : { type: "alert", kind });
  }
  /** Submits a prompt (interactive zut only). */
  submit(text) {
    this.send({ type: "submit", text });
  }
  /** Runs a slash command as if typed (interactive zut only). */
  submitSlash(text) {
    this.send({ type: "submit_slash", text });
  }
  /** Opens a panel at any time (e.g. from inside a tool call). */
  openPanel(content) {
    this.send({ type: "open_panel", panel: { ...content } });
  }
  /** Redraws this extension's open panel `content.id`. */
  renderPanel(content) {
    const frame = { type: "panel_render", panel_id: content.id ?? "" };
    if (content.title !== void 0)
      frame.title = content.title;
    if (content.lines !== void 0)
      frame.lines = content.lines;
    if (content.footer !== void 0)
      frame.footer = content.footer;
    this.send(frame);
  }
  /** Closes this extension's panel. */
  closePanel(panelId) {
    this.send({ type: "panel_close", panel_id: panelId });
  }
  /** Writes a line to stderr, i.e. the extension log (`zut ext logs <name>`). */
  log(message) {
    try {
      process.stderr.write(`[${this.name}] ${message}
`);
    } catch {
    }
  }
  // ---------------------------------------------------------------- running
  /** Runs on stdin/stdout, then exits the process: 0 after `shutdown` or EOF, 1 on error. */
  main() {
    this.run().then(() => process.stdout.write("", () => process.exit(0)), (error) => {
      this.log(`error: ${error instanceof Error ? error.message : String(error)}`);
      process.stdout.write("", () => process.exit(1));
    });
  }
  /**
   * Speaks the protocol until `shutdown` or EOF; rejects with SdkError on failure.
   * Resolves at once on `shutdown`, even if handlers are still running.
   */
  run(options = {}) {
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    this.output = output;
    return new Promise((resolve, reject) => {
      const splitter = new LineSplitter();
      let handshaken = false;
      let finished = false;
      const finish = (error) => {
        if (finished)
          return;
        finished = true;
        this.output = void 0;
        input.removeListener?.("data", onData);
        input.removeListener?.("end", onEnd);
        input.removeListener?.("error", onError);
        input.pause?.();
        if (error === void 0)
          resolve();
        else
          reject(error instanceof SdkError ? error : new SdkError(String(error)));
      };
      const handle = (line) => {
        if (!handshaken) {
          this.handshake(line);
          handshaken = true;
          return false;
        }
        return this.dispatch(line);
      };
      const onData = (chunk) => {
        if (finished)
          return;
        try {
          for (const line of splitter.push(chunk)) {
            if (handle(line))
              return finish();
          }
        } catch (error) {
          finish(error);
        }
      };
      const onEnd = () => {
        if (finished)
          return;
        try {
          const last = splitter.finish();
          if (last !== void 0 && handle(last))
            return finish();
          if (!handshaken)
            return finish(new SdkError("stdin closed before hello_ack"));
          finish();
        } catch (error) {
          finish(error);
        }
      };
      const onError = (error) => finish(new SdkError(`read stdin: ${String(error)}`));
      try {
        const hello = { type: "hello", protocol_version: PROTOCOL_VERSION, name: this.name };
        if (this.version)
          hello.version = this.version;
        hello.capabilities = CAPABILITIES;
        this.send(hello);
      } catch (error) {
        finish(error);
        return;
      }
      input.on("data", onData);
      input.on("end", onEnd);
      input.on("error", onError);
    });
  }
  handshake(line) {
    let ack;
    try {
      ack = JSON.parse(line);
    } catch (error) {
      throw new SdkError(`parse hello_ack: ${panicText(error)}`);
    }
    if (typeof ack !== "object" || ack === null || ack.type !== "hello_ack") {
      const got = typeof ack === "object" && ack !== null ? ack.type : typeof ack;
      throw new SdkError(`unsupported host protocol version: first host frame must be hello_ack (got ${JSON.stringify(got)})`);
    }
    const version = ack.protocol_version;
    if (version !== PROTOCOL_VERSION) {
      throw new SdkError(`unsupported host protocol version ${String(version)} (want ${PROTOCOL_VERSION})`);
    }
    this.hostInfo = hostInfo(ack);
    for (const callback of this.helloCallbacks)
      callback(this, this.hostInfo);
    for (const c of this.commands) {
      this.send(c.description ? { type: "register_command", name: c.name, description: c.description } : { type: "register_command", name: c.name });
    }
    for (const t of this.tools) {
      const frame = { type: "register_tool", name: t.name };
      if (t.description)
        frame.description = t.description;
      frame.schema = t.schema;
      if (t.deferred)
        frame.deferred = true;
      this.send(frame);
    }
    const events = this.allEvents ? [...EVENT_NAMES] : [];
    for (const name of this.events.keys())
      if (!events.includes(name))
        events.push(name);
    const intercept = [];
    if (this.toolGuard)
      intercept.push("tool_call");
    if (this.turnGuard)
      intercept.push("turn_start");
    if (this.messageGuard)
      intercept.push("assistant_message");
    if (events.length > 0 || intercept.length > 0) {
      const sub = { type: "subscribe" };
      if (events.length > 0)
        sub.events = events;
      if (intercept.length > 0)
        sub.intercept = intercept;
      this.send(sub);
    }
    this.send({ type: "ready" });
  }
  /** Handles one host line; returns true on `shutdown`. */
  dispatch(line) {
    let frame;
    try {
      frame = JSON.parse(line);
    } catch (error) {
      this.log(`malformed host frame skipped: ${panicText(error)}`);
      return false;
    }
    if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
      this.log("malformed host frame skipped: not a JSON object");
      return false;
    }
    const f = frame;
    switch (f.type) {
      case "tool_call":
        this.onToolCall(f);
        break;
      case "command_invoked":
        this.onCommand(f);
        break;
      case "event_intercept":
        this.onIntercept(f);
        break;
      case "event":
        this.onEventFrame(f);
        break;
      case "panel_key":
      case "panel_close":
        this.onPanel(f);
        break;
      case "shutdown":
        try {
          this.send({ type: "shutdown_ack" });
        } catch {
        }
        return true;
      default:
        break;
    }
    return false;
  }
  reply(frame) {
    try {
      this.send(frame);
    } catch {
    }
  }
  /** Calls a handler without ever blocking the reader; `done` gets the value or the error. */
  call(fn, done) {
    let result;
    try {
      result = fn();
    } catch (error) {
      done(void 0, error ?? new Error("undefined thrown"));
      return;
    }
    if (!isThenable(result)) {
      done(result);
      return;
    }
    Promise.resolve(result).then((value) => done(value), (error) => done(void 0, error ?? new Error("promise rejected")));
  }
  context(id) {
    return { ext: this, host: this.hostInfo, requestId: id };
  }
  onCommand(f) {
    const id = String(f.id ?? "");
    const name = String(f.name ?? "");
    const args = typeof f.args === "string" ? f.args : "";
    const reg = this.commands.find((c) => c.name === name);
    if (!reg) {
      this.reply(Response.error(`no handler for /${name}`).toFrame(id));
      return;
    }
    this.call(() => reg.handler(args, this.context(id)), (value, error) => {
      let response;
      if (error !== void 0) {
        this.log(`command /${name} failed: ${error instanceof Error ? error.stack : String(error)}`);
        response = Response.error(`panic: ${panicText(error)}`);
      } else if (value instanceof Response) {
        response = value;
      } else if (value === void 0 || value === null) {
        response = Response.noop();
      } else {
        response = Response.error("command handler did not return a Response");
      }
      this.reply(response.toFrame(id));
    });
  }
  onToolCall(f) {
    const id = String(f.id ?? "");
    const name = String(f.name ?? "");
    const args = f.args && typeof f.args === "object" ? f.args : {};
    const reg = this.tools.find((t) => t.name === name);
    if (!reg) {
      this.reply(ToolResult.error(`no handler for tool "${name}"`).toFrame(id));
      return;
    }
    this.call(() => reg.handler(args, this.context(id)), (value, error) => {
      let result;
      if (error !== void 0) {
        this.log(`tool ${name} failed: ${error instanceof Error ? error.stack : String(error)}`);
        result = ToolResult.error(`panic: ${panicText(error)}`);
      } else if (value instanceof ToolResult) {
        result = value;
      } else if (typeof value === "string") {
        result = ToolResult.text(value);
      } else if (value === void 0 || value === null) {
        result = new ToolResult();
      } else {
        result = ToolResult.error("tool handler did not return a ToolResult");
      }
      this.reply(result.toFrame(id));
    });
  }
  onIntercept(f) {
    const id = String(f.id ?? "");
    const event = String(f.event ?? "");
    let run;
    if (event === "tool_call" && this.toolGuard) {
      const guard = this.toolGuard;
      run = () => guard(String(f.tool_name ?? ""), f.tool_args);
    } else if (event === "turn_start" && this.turnGuard) {
      const guard = this.turnGuard;
      run = () => guard(typeof f.step === "number" ? f.step : 0);
    } else if (event === "assistant_message" && this.messageGuard) {
      const guard = this.messageGuard;
      run = () => guard(String(f.text ?? ""));
    }
    if (!run) {
      this.reply({ type: "event_intercept_response", id });
      return;
    }
    this.call(run, (value, error) => {
      if (error !== void 0) {
        this.log(`${event} interceptor failed: ${error instanceof Error ? error.stack : String(error)}`);
        this.reply({ type: "event_intercept_response", id, block: true, reason: `intercept panic: ${panicText(error)}` });
        return;
      }
      this.reply({ type: "event_intercept_response", id, ...decisionFields(event, value) });
    });
  }
  onEventFrame(frame) {
    const name = frame.event;
    const handler = this.events.get(name) ?? this.allEvents;
    if (!handler)
      return;
    this.call(() => handler(frame), (_value, error) => {
      if (error !== void 0)
        this.log(`event ${name} handler failed: ${String(error)}`);
    });
  }
  onPanel(f) {
    const panelId = String(f.panel_id ?? "");
    const isKey = f.type === "panel_key";
    const handler = isKey ? this.panelKeys.get(panelId) : this.panelCloses.get(panelId);
    if (!handler)
      return;
    const previous = this.panelChains.get(panelId) ?? Promise.resolve();
    const next = previous.then(() => isKey ? handler(f) : handler()).catch((error) => this.log(`panel ${panelId} callback failed: ${String(error)}`));
    this.panelChains.set(panelId, next);
    void next.then(() => {
      if (this.panelChains.get(panelId) === next)
        this.panelChains.delete(panelId);
    });
  }
};
function isThenable(value) {
  return typeof value === "object" && value !== null && typeof value.then === "function";
}
function decisionFields(event, value) {
  if (value === void 0 || value === null || value === true)
    return {};
  if (value instanceof ToolCallDecision || value instanceof TurnStartDecision || value instanceof AssistantMessageDecision) {
    return value.fields;
  }
  if (value === false)
    return { block: true };
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === "boolean") {
    return value[0] ? {} : ToolCallDecision.deny(String(value[1] ?? "")).fields;
  }
  if (typeof value === "string") {
    if (event === "turn_start")
      return TurnStartDecision.withContext(value).fields;
    if (event === "assistant_message")
      return AssistantMessageDecision.replace(value).fields;
  }
  return {};
}
export {
  AssistantMessageDecision,
  CAPABILITIES,
  EVENT_NAMES,
  EXT_FRAME_TYPES,
  Extension,
  HOST_FRAME_TYPES,
  KEY_NAMES,
  LineTooLong,
  MAX_LINE,
  NotConnected,
  PROTOCOL_VERSION,
  Response,
  SdkError,
  ToolCallDecision,
  ToolResult,
  TurnStartDecision,
  panel
};
