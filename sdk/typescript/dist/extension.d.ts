import { type Event, type ExtFrame, type PanelContent, type PanelKey, type SessionInfo } from "./frames.js";
import { AssistantMessageDecision, Response, ToolCallDecision, ToolResult, TurnStartDecision } from "./results.js";
/** Capabilities announced in `hello` (the Go SDK's list; zut ignores them). */
export declare const CAPABILITIES: string[];
/** Names `panel_key.key` can take (protocol §7.2); `rune` carries the character in `text`. */
export declare const KEY_NAMES: readonly ["up", "down", "left", "right", "enter", "tab", "backspace", "delete", "home", "end", "pageup", "pagedown", "rune", "esc", "unknown"];
/** Lifecycle events zut emits. */
export declare const EVENT_NAMES: readonly ["session_start", "session_opened", "session_switched", "session_forked", "session_compacted", "turn_start", "tool_call", "tool_confirmation_requested", "assistant_message", "turn_end"];
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
export type ToolCallGuard = (tool: string, args: unknown) => Awaitable<ToolCallDecision | [boolean, string] | boolean | void>;
export type TurnStartGuard = (step: number) => Awaitable<TurnStartDecision | string | void>;
export type AssistantMessageGuard = (text: string) => Awaitable<AssistantMessageDecision | string | void>;
export type PanelKeyHandler = (key: PanelKey) => Awaitable<void>;
export type PanelCloseHandler = () => Awaitable<void>;
/**
 * A zut extension: register handlers, then `await ext.run()` (or `ext.main()`).
 *
 * Handlers may return values or promises; the reader never waits for them,
 * so a tool waiting on the user does not stop other requests.
 */
export declare class Extension {
    readonly name: string;
    readonly version: string;
    private readonly commands;
    private readonly tools;
    private readonly events;
    private allEvents?;
    private toolGuard?;
    private turnGuard?;
    private messageGuard?;
    private readonly helloCallbacks;
    private readonly panelKeys;
    private readonly panelCloses;
    private readonly panelChains;
    private output?;
    private hostInfo;
    constructor(name: string, version?: string);
    /** Registers `/name`; the handler returns a Response (or nothing for noop). */
    command(name: string, description: string, handler: CommandHandler): this;
    /** Registers a tool; the handler returns a ToolResult or a string (one text block). */
    tool(name: string, description: string, schema: Record<string, unknown> | undefined, handler: ToolHandler, options?: {
        deferred?: boolean;
    }): this;
    /** Registers a tool that the model sees only after a result's `activate_tools` names it. */
    deferredTool(name: string, description: string, schema: Record<string, unknown> | undefined, handler: ToolHandler): this;
    /** Observes a lifecycle event (one handler per name). */
    onEvent(name: string, handler: EventHandler): this;
    /** Receives every event without a handler of its own (subscribes to all of them). */
    onAllEvents(handler: EventHandler): this;
    /** Consulted before every tool call. */
    interceptToolCall(handler: ToolCallGuard): this;
    /** Consulted before each model call; a string return is hidden context. */
    interceptTurnStart(handler: TurnStartGuard): this;
    /** Consulted before the user sees an assistant message; a string return replaces it. */
    interceptAssistantMessage(handler: AssistantMessageGuard): this;
    /** Runs after `hello_ack`, before registrations are announced (may register more). */
    onHello(handler: (ext: Extension, host: HostInfo) => void): this;
    /** Key callback of a panel; callbacks of one panel run one at a time, in order. */
    onPanelKey(panelId: string, handler: PanelKeyHandler): this;
    /** Called when the user closes the panel (Esc / Ctrl+C). */
    onPanelClose(panelId: string, handler: PanelCloseHandler): this;
    /** What zut said in `hello_ack` (empty before `run` connects). */
    get host(): HostInfo;
    /** Writes one raw frame; throws NotConnected before `run` or after it returned. */
    send(frame: ExtFrame | Record<string, unknown>): void;
    /** One-shot note; level `info`, `success`, `warn` or `error`. */
    notify(level: string, message: string): void;
    /** Removes this extension's notes. */
    clearNotes(): void;
    /** Persistent status row keyed by `key` (no level, as the Go SDK). */
    setStatus(key: string, text: string): void;
    /** Removes a status row. */
    clearStatus(key: string): void;
    /** Persistent widget above the editor. */
    setWidget(id: string, title: string, lines: Iterable<string>, position?: string): void;
    /** Removes a widget. */
    clearWidget(id: string): void;
    /** Host-owned alert (terminal bell). */
    alert(kind?: string, reason?: string): void;
    /** Submits a prompt (interactive zut only). */
    submit(text: string): void;
    /** Runs a slash command as if typed (interactive zut only). */
    submitSlash(text: string): void;
    /** Opens a panel at any time (e.g. from inside a tool call). */
    openPanel(content: PanelContent): void;
    /** Redraws this extension's open panel `content.id`. */
    renderPanel(content: PanelContent): void;
    /** Closes this extension's panel. */
    closePanel(panelId: string): void;
    /** Writes a line to stderr, i.e. the extension log (`zut ext logs <name>`). */
    log(message: string): void;
    /** Runs on stdin/stdout, then exits the process: 0 after `shutdown` or EOF, 1 on error. */
    main(): void;
    /**
     * Speaks the protocol until `shutdown` or EOF; rejects with SdkError on failure.
     * Resolves at once on `shutdown`, even if handlers are still running.
     */
    run(options?: {
        input?: InputStream;
        output?: OutputStream;
    }): Promise<void>;
    private handshake;
    /** Handles one host line; returns true on `shutdown`. */
    private dispatch;
    private reply;
    /** Calls a handler without ever blocking the reader; `done` gets the value or the error. */
    private call;
    private context;
    private onCommand;
    private onToolCall;
    private onIntercept;
    private onEventFrame;
    private onPanel;
}
export {};
