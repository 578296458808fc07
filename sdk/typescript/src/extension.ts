// The Extension builder and its run loop (protocol v2, same wire behaviour as the Go SDK).

import { NotConnected, SdkError } from "./errors.js";
import {
  PROTOCOL_VERSION,
  type Event,
  type ExtFrame,
  type HelloAck,
  type PanelContent,
  type PanelKey,
  type SessionInfo,
} from "./frames.js";
import { LineSplitter } from "./lines.js";
import {
  AssistantMessageDecision,
  type DecisionFields,
  Response,
  ToolCallDecision,
  ToolResult,
  TurnStartDecision,
} from "./results.js";

/** Capabilities announced in `hello` (the Go SDK's list; zut ignores them). */
export const CAPABILITIES = ["commands", "tools", "events", "alerts", "panels", "session_state", "status", "widgets"];

/** Names `panel_key.key` can take (protocol §7.2); `rune` carries the character in `text`. */
export const KEY_NAMES = [
  "up", "down", "left", "right", "enter", "tab", "backspace", "delete", "home", "end",
  "pageup", "pagedown", "rune", "esc", "unknown",
] as const;

/** Lifecycle events zut emits. */
export const EVENT_NAMES = [
  "session_start", "session_opened", "session_switched", "session_forked", "session_compacted",
  "turn_start", "tool_call", "tool_confirmation_requested", "assistant_message", "turn_end",
] as const;

/** What zut said about itself in `hello_ack`. */
export interface HostInfo {
  protocolVersion: number;
  zutVersion: string;
  provider: string;
  model: string;
  /** The user's project directory. */
  cwd: string;
  extensionDir: string;
  /** Where to persist files (the extension directory). */
  dataDir: string;
  session?: SessionInfo;
}

/** Passed to command and tool handlers. */
export interface Context {
  ext: Extension;
  host: HostInfo;
  requestId: string;
}

/** A byte stream the SDK reads host frames from (process.stdin in Node, Bun and Deno). */
export interface InputStream {
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
  removeListener?(event: string, listener: (...args: never[]) => void): unknown;
  pause?(): unknown;
}

/** Where frames are written (process.stdout). */
export interface OutputStream {
  write(chunk: string): unknown;
}

type Awaitable<T> = T | Promise<T>;
export type CommandHandler = (args: string, ctx: Context) => Awaitable<Response | void>;
export type ToolHandler = (args: Record<string, unknown>, ctx: Context) => Awaitable<ToolResult | string | void>;
export type EventHandler = (event: Event) => Awaitable<void>;
export type ToolCallGuard = (
  tool: string,
  args: unknown,
) => Awaitable<ToolCallDecision | [boolean, string] | boolean | void>;
export type TurnStartGuard = (step: number) => Awaitable<TurnStartDecision | string | void>;
export type AssistantMessageGuard = (text: string) => Awaitable<AssistantMessageDecision | string | void>;
export type PanelKeyHandler = (key: PanelKey) => Awaitable<void>;
export type PanelCloseHandler = () => Awaitable<void>;

interface ProcessLike {
  stdin: InputStream;
  stdout: OutputStream & { write(chunk: string, callback: () => void): unknown };
  stderr: OutputStream;
  exit(code: number): never;
}
declare const process: ProcessLike;

interface Registration<H> {
  name: string;
  description: string;
  handler: H;
  schema?: unknown;
  deferred?: boolean;
}

function panicText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function hostInfo(ack: HelloAck): HostInfo {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return {
    protocolVersion: typeof ack.protocol_version === "number" ? ack.protocol_version : 0,
    zutVersion: text(ack.zut_version),
    provider: text(ack.provider),
    model: text(ack.model),
    cwd: text(ack.cwd),
    extensionDir: text(ack.extension_dir),
    dataDir: text(ack.data_dir),
    session: ack.session && typeof ack.session === "object" ? ack.session : undefined,
  };
}

/**
 * A zut extension: register handlers, then `await ext.run()` (or `ext.main()`).
 *
 * Handlers may return values or promises; the reader never waits for them,
 * so a tool waiting on the user does not stop other requests.
 */
export class Extension {
  readonly name: string;
  readonly version: string;
  private readonly commands: Registration<CommandHandler>[] = [];
  private readonly tools: Registration<ToolHandler>[] = [];
  private readonly events = new Map<string, EventHandler>();
  private allEvents?: EventHandler;
  private toolGuard?: ToolCallGuard;
  private turnGuard?: TurnStartGuard;
  private messageGuard?: AssistantMessageGuard;
  private readonly helloCallbacks: ((ext: Extension, host: HostInfo) => void)[] = [];
  private readonly panelKeys = new Map<string, PanelKeyHandler>();
  private readonly panelCloses = new Map<string, PanelCloseHandler>();
  private readonly panelChains = new Map<string, Promise<void>>();
  private output?: OutputStream;
  private hostInfo: HostInfo = hostInfo({ type: "hello_ack" });

  constructor(name: string, version = "") {
    this.name = name;
    this.version = version;
  }

  // ---------------------------------------------------------------- registration

  /** Registers `/name`; the handler returns a Response (or nothing for noop). */
  command(name: string, description: string, handler: CommandHandler): this {
    this.commands.push({ name, description, handler });
    return this;
  }

  /** Registers a tool; the handler returns a ToolResult or a string (one text block). */
  tool(
    name: string,
    description: string,
    schema: Record<string, unknown> | undefined,
    handler: ToolHandler,
    options: { deferred?: boolean } = {},
  ): this {
    this.tools.push({
      name,
      description,
      handler,
      schema: schema ?? { type: "object", properties: {} },
      deferred: options.deferred ?? false,
    });
    return this;
  }

  /** Registers a tool that the model sees only after a result's `activate_tools` names it. */
  deferredTool(name: string, description: string, schema: Record<string, unknown> | undefined, handler: ToolHandler): this {
    return this.tool(name, description, schema, handler, { deferred: true });
  }

  /** Observes a lifecycle event (one handler per name). */
  onEvent(name: string, handler: EventHandler): this {
    this.events.set(name, handler);
    return this;
  }

  /** Receives every event without a handler of its own (subscribes to all of them). */
  onAllEvents(handler: EventHandler): this {
    this.allEvents = handler;
    return this;
  }

  /** Consulted before every tool call. */
  interceptToolCall(handler: ToolCallGuard): this {
    this.toolGuard = handler;
    return this;
  }

  /** Consulted before each model call; a string return is hidden context. */
  interceptTurnStart(handler: TurnStartGuard): this {
    this.turnGuard = handler;
    return this;
  }

  /** Consulted before the user sees an assistant message; a string return replaces it. */
  interceptAssistantMessage(handler: AssistantMessageGuard): this {
    this.messageGuard = handler;
    return this;
  }

  /** Runs after `hello_ack`, before registrations are announced (may register more). */
  onHello(handler: (ext: Extension, host: HostInfo) => void): this {
    this.helloCallbacks.push(handler);
    return this;
  }

  /** Key callback of a panel; callbacks of one panel run one at a time, in order. */
  onPanelKey(panelId: string, handler: PanelKeyHandler): this {
    this.panelKeys.set(panelId, handler);
    return this;
  }

  /** Called when the user closes the panel (Esc / Ctrl+C). */
  onPanelClose(panelId: string, handler: PanelCloseHandler): this {
    this.panelCloses.set(panelId, handler);
    return this;
  }

  // ---------------------------------------------------------------- one-way frames

  /** What zut said in `hello_ack` (empty before `run` connects). */
  get host(): HostInfo {
    return this.hostInfo;
  }

  /** Writes one raw frame; throws NotConnected before `run` or after it returned. */
  send(frame: ExtFrame | Record<string, unknown>): void {
    const out = this.output;
    if (!out) throw new NotConnected("not connected to zut (call inside run())");
    out.write(JSON.stringify(frame) + "\n");
  }

  /** One-shot note; level `info`, `success`, `warn` or `error`. */
  notify(level: string, message: string): void {
    this.send({ type: "notify", level, message });
  }
  /** Removes this extension's notes. */
  clearNotes(): void {
    this.send({ type: "clear_notes" });
  }
  /** Persistent status row keyed by `key` (no level, as the Go SDK). */
  setStatus(key: string, text: string): void {
    this.send({ type: "status", key, text });
  }
  /** Removes a status row. */
  clearStatus(key: string): void {
    this.send({ type: "status", key, text: "" });
  }
  /** Persistent widget above the editor. */
  setWidget(id: string, title: string, lines: Iterable<string>, position = "above_input"): void {
    this.send({ type: "widget", id, position, title, lines: [...lines] });
  }
  /** Removes a widget. */
  clearWidget(id: string): void {
    this.send({ type: "widget_clear", id });
  }
  /** Host-owned alert (terminal bell). */
  alert(kind = "bell", reason = ""): void {
    this.send(reason ? { type: "alert", kind, reason } : { type: "alert", kind });
  }
  /** Submits a prompt (interactive zut only). */
  submit(text: string): void {
    this.send({ type: "submit", text });
  }
  /** Runs a slash command as if typed (interactive zut only). */
  submitSlash(text: string): void {
    this.send({ type: "submit_slash", text });
  }
  /** Opens a panel at any time (e.g. from inside a tool call). */
  openPanel(content: PanelContent): void {
    this.send({ type: "open_panel", panel: { ...content } });
  }
  /** Redraws this extension's open panel `content.id`. */
  renderPanel(content: PanelContent): void {
    const frame: Record<string, unknown> = { type: "panel_render", panel_id: content.id ?? "" };
    if (content.title !== undefined) frame.title = content.title;
    if (content.lines !== undefined) frame.lines = content.lines;
    if (content.footer !== undefined) frame.footer = content.footer;
    this.send(frame);
  }
  /** Closes this extension's panel. */
  closePanel(panelId: string): void {
    this.send({ type: "panel_close", panel_id: panelId });
  }
  /** Writes a line to stderr, i.e. the extension log (`zut ext logs <name>`). */
  log(message: string): void {
    try {
      process.stderr.write(`[${this.name}] ${message}\n`);
    } catch {
      // stderr gone: nothing to do
    }
  }

  // ---------------------------------------------------------------- running

  /** Runs on stdin/stdout, then exits the process: 0 after `shutdown` or EOF, 1 on error. */
  main(): void {
    this.run().then(
      () => process.stdout.write("", () => process.exit(0)),
      (error: unknown) => {
        this.log(`error: ${error instanceof Error ? error.message : String(error)}`);
        process.stdout.write("", () => process.exit(1));
      },
    );
  }

  /**
   * Speaks the protocol until `shutdown` or EOF; rejects with SdkError on failure.
   * Resolves at once on `shutdown`, even if handlers are still running.
   */
  run(options: { input?: InputStream; output?: OutputStream } = {}): Promise<void> {
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    this.output = output;
    return new Promise<void>((resolve, reject) => {
      const splitter = new LineSplitter();
      let handshaken = false;
      let finished = false;
      const finish = (error?: unknown) => {
        if (finished) return;
        finished = true;
        this.output = undefined;
        input.removeListener?.("data", onData);
        input.removeListener?.("end", onEnd);
        input.removeListener?.("error", onError);
        input.pause?.();
        if (error === undefined) resolve();
        else reject(error instanceof SdkError ? error : new SdkError(String(error)));
      };
      const handle = (line: string): boolean => {
        if (!handshaken) {
          this.handshake(line);
          handshaken = true;
          return false;
        }
        return this.dispatch(line);
      };
      const onData = (chunk: Uint8Array | string) => {
        if (finished) return;
        try {
          for (const line of splitter.push(chunk)) {
            if (handle(line)) return finish();
          }
        } catch (error) {
          finish(error);
        }
      };
      const onEnd = () => {
        if (finished) return;
        try {
          const last = splitter.finish();
          if (last !== undefined && handle(last)) return finish();
          if (!handshaken) return finish(new SdkError("stdin closed before hello_ack"));
          finish();
        } catch (error) {
          finish(error);
        }
      };
      const onError = (error: unknown) => finish(new SdkError(`read stdin: ${String(error)}`));
      try {
        const hello: Record<string, unknown> = { type: "hello", protocol_version: PROTOCOL_VERSION, name: this.name };
        if (this.version) hello.version = this.version;
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

  private handshake(line: string): void {
    let ack: unknown;
    try {
      ack = JSON.parse(line);
    } catch (error) {
      throw new SdkError(`parse hello_ack: ${panicText(error)}`);
    }
    if (typeof ack !== "object" || ack === null || (ack as { type?: unknown }).type !== "hello_ack") {
      const got = typeof ack === "object" && ack !== null ? (ack as { type?: unknown }).type : typeof ack;
      throw new SdkError(`unsupported host protocol version: first host frame must be hello_ack (got ${JSON.stringify(got)})`);
    }
    const version = (ack as HelloAck).protocol_version;
    if (version !== PROTOCOL_VERSION) {
      throw new SdkError(`unsupported host protocol version ${String(version)} (want ${PROTOCOL_VERSION})`);
    }
    this.hostInfo = hostInfo(ack as HelloAck);
    for (const callback of this.helloCallbacks) callback(this, this.hostInfo);
    for (const c of this.commands) {
      this.send(c.description ? { type: "register_command", name: c.name, description: c.description }
        : { type: "register_command", name: c.name });
    }
    for (const t of this.tools) {
      const frame: Record<string, unknown> = { type: "register_tool", name: t.name };
      if (t.description) frame.description = t.description;
      frame.schema = t.schema;
      if (t.deferred) frame.deferred = true;
      this.send(frame);
    }
    const events: string[] = this.allEvents ? [...EVENT_NAMES] : [];
    for (const name of this.events.keys()) if (!events.includes(name)) events.push(name);
    const intercept: string[] = [];
    if (this.toolGuard) intercept.push("tool_call");
    if (this.turnGuard) intercept.push("turn_start");
    if (this.messageGuard) intercept.push("assistant_message");
    if (events.length > 0 || intercept.length > 0) {
      const sub: Record<string, unknown> = { type: "subscribe" };
      if (events.length > 0) sub.events = events;
      if (intercept.length > 0) sub.intercept = intercept;
      this.send(sub);
    }
    this.send({ type: "ready" });
  }

  /** Handles one host line; returns true on `shutdown`. */
  private dispatch(line: string): boolean {
    let frame: unknown;
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
    const f = frame as Record<string, unknown>;
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
        this.onEventFrame(f as unknown as Event);
        break;
      case "panel_key":
      case "panel_close":
        this.onPanel(f);
        break;
      case "shutdown":
        try {
          this.send({ type: "shutdown_ack" });
        } catch {
          // zut left already
        }
        return true;
      default:
        // panel_resize and future frames are ignored.
        break;
    }
    return false;
  }

  private reply(frame: Record<string, unknown> | ExtFrame): void {
    try {
      this.send(frame);
    } catch {
      // not connected any more: nobody waits for this reply
    }
  }

  /** Calls a handler without ever blocking the reader; `done` gets the value or the error. */
  private call<T>(fn: () => Awaitable<T>, done: (value: T | undefined, error?: unknown) => void): void {
    let result: Awaitable<T>;
    try {
      result = fn();
    } catch (error) {
      done(undefined, error ?? new Error("undefined thrown"));
      return;
    }
    if (!isThenable(result)) {
      done(result);
      return;
    }
    Promise.resolve(result).then(
      (value) => done(value),
      (error: unknown) => done(undefined, error ?? new Error("promise rejected")),
    );
  }

  private context(id: string): Context {
    return { ext: this, host: this.hostInfo, requestId: id };
  }

  private onCommand(f: Record<string, unknown>): void {
    const id = String(f.id ?? "");
    const name = String(f.name ?? "");
    const args = typeof f.args === "string" ? f.args : "";
    const reg = this.commands.find((c) => c.name === name);
    if (!reg) {
      this.reply(Response.error(`no handler for /${name}`).toFrame(id));
      return;
    }
    this.call(() => reg.handler(args, this.context(id)), (value, error) => {
      let response: Response;
      if (error !== undefined) {
        this.log(`command /${name} failed: ${error instanceof Error ? error.stack : String(error)}`);
        response = Response.error(`panic: ${panicText(error)}`);
      } else if (value instanceof Response) {
        response = value;
      } else if (value === undefined || value === null) {
        response = Response.noop();
      } else {
        response = Response.error("command handler did not return a Response");
      }
      this.reply(response.toFrame(id));
    });
  }

  private onToolCall(f: Record<string, unknown>): void {
    const id = String(f.id ?? "");
    const name = String(f.name ?? "");
    const args = (f.args && typeof f.args === "object" ? f.args : {}) as Record<string, unknown>;
    const reg = this.tools.find((t) => t.name === name);
    if (!reg) {
      this.reply(ToolResult.error(`no handler for tool "${name}"`).toFrame(id));
      return;
    }
    this.call(() => reg.handler(args, this.context(id)), (value, error) => {
      let result: ToolResult;
      if (error !== undefined) {
        this.log(`tool ${name} failed: ${error instanceof Error ? error.stack : String(error)}`);
        result = ToolResult.error(`panic: ${panicText(error)}`);
      } else if (value instanceof ToolResult) {
        result = value;
      } else if (typeof value === "string") {
        result = ToolResult.text(value);
      } else if (value === undefined || value === null) {
        result = new ToolResult();
      } else {
        result = ToolResult.error("tool handler did not return a ToolResult");
      }
      this.reply(result.toFrame(id));
    });
  }

  private onIntercept(f: Record<string, unknown>): void {
    const id = String(f.id ?? "");
    const event = String(f.event ?? "");
    let run: (() => Awaitable<unknown>) | undefined;
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
      if (error !== undefined) {
        this.log(`${event} interceptor failed: ${error instanceof Error ? error.stack : String(error)}`);
        this.reply({ type: "event_intercept_response", id, block: true, reason: `intercept panic: ${panicText(error)}` });
        return;
      }
      this.reply({ type: "event_intercept_response", id, ...decisionFields(event, value) });
    });
  }

  private onEventFrame(frame: Event): void {
    const name = frame.event;
    const handler = this.events.get(name) ?? this.allEvents;
    if (!handler) return;
    // Events run in order on the reader (as in the Go SDK).
    this.call(() => handler(frame), (_value, error) => {
      if (error !== undefined) this.log(`event ${name} handler failed: ${String(error)}`);
    });
  }

  private onPanel(f: Record<string, unknown>): void {
    const panelId = String(f.panel_id ?? "");
    const isKey = f.type === "panel_key";
    const handler = isKey ? this.panelKeys.get(panelId) : this.panelCloses.get(panelId);
    if (!handler) return;
    const previous = this.panelChains.get(panelId) ?? Promise.resolve();
    const next = previous
      .then(() => (isKey ? (handler as PanelKeyHandler)(f as unknown as PanelKey) : (handler as PanelCloseHandler)()))
      .catch((error: unknown) => this.log(`panel ${panelId} callback failed: ${String(error)}`));
    this.panelChains.set(panelId, next);
    void next.then(() => {
      if (this.panelChains.get(panelId) === next) this.panelChains.delete(panelId);
    });
  }
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** Normalises what an interceptor returned into reply fields. */
function decisionFields(event: string, value: unknown): DecisionFields {
  if (value === undefined || value === null || value === true) return {};
  if (value instanceof ToolCallDecision || value instanceof TurnStartDecision || value instanceof AssistantMessageDecision) {
    return value.fields;
  }
  if (value === false) return { block: true };
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === "boolean") {
    return value[0] ? {} : ToolCallDecision.deny(String(value[1] ?? "")).fields;
  }
  if (typeof value === "string") {
    if (event === "turn_start") return TurnStartDecision.withContext(value).fields;
    if (event === "assistant_message") return AssistantMessageDecision.replace(value).fields;
  }
  return {};
}
