/** The protocol version this SDK speaks. */
export declare const PROTOCOL_VERSION = 2;
/** One block of a tool_result.content array. Kept as a loose struct rather than an enum so that unknown block types reach the host, which turns them into a visible [unknown block type "<t>" from extension <ext>] text. */
export interface ContentBlock {
    /** Standard base64 (with padding) of an image block. */
    data?: string | null;
    /** MIME type of an image block. */
    mime_type?: string | null;
    /** Text of a text block. */
    text?: string | null;
    /** text or image; anything else is reported as unknown. */
    type?: string;
}
/** The content of an extension-owned panel. */
export interface PanelContent {
    /** Muted footer line. */
    footer?: string;
    /** Panel id chosen by the extension. */
    id?: string;
    /** Body lines. */
    lines?: string[];
    /** Title; falls back to the extension name when empty. */
    title?: string;
}
/** hello: must be the extension's first stdout line. */
export interface Hello {
    type: "hello";
    /** Informational; ignored by the host. */
    capabilities?: string[];
    /** Must be non-empty; should equal the manifest name. */
    name?: string;
    /** Must be 2; a missing value counts as 0 and is refused. */
    protocol_version?: number;
    /** Informational; the manifest version is authoritative. */
    version?: string;
}
/** register_command. */
export interface RegisterCommand {
    type: "register_command";
    /** One-line description for help and completion. */
    description?: string;
    /** Command name without the leading /; matched case-insensitively. */
    name: string;
}
/** register_tool. */
export interface RegisterTool {
    type: "register_tool";
    /** Registered but not advertised until activated via activate_tools. */
    deferred?: boolean;
    /** Description offered to the model. */
    description?: string;
    /** Tool name, exact case. */
    name: string;
    /** JSON Schema of the arguments; must be an object schema. */
    schema?: unknown;
}
/** subscribe: accumulates across frames. */
export interface Subscribe {
    type: "subscribe";
    /** Lifecycle events to observe. */
    events?: string[];
    /** Events to intercept (tool_call, turn_start, assistant_message). */
    intercept?: string[];
}
/** All initial registrations are flushed. */
export interface Ready {
    type: "ready";
}
/** command_response. */
export interface CommandResponse {
    type: "command_response";
    /** prompt, insert, display, open_panel or noop (empty = noop). */
    action?: string;
    /** Text for display. */
    display?: string;
    /** Non-empty: shown as an error; the action is not performed. */
    error?: string;
    /** Id of the command_invoked being answered. */
    id: string;
    /** Text for insert. */
    insert?: string;
    /** Panel for open_panel. */
    open_panel?: PanelContent | null;
    /** Text for prompt. */
    prompt?: string;
}
/** tool_result. */
export interface ToolResult {
    type: "tool_result";
    /** Deferred tools to activate. */
    activate_tools?: string[];
    /** Result blocks. */
    content?: ContentBlock[];
    /** Opaque extension state; Some(Null) clears it, None leaves it. */
    details?: unknown;
    /** Id of the tool_call being answered. */
    id: string;
    /** Marks the call as failed. */
    is_error?: boolean;
}
/** event_intercept_response: every field defaults to "allow, unchanged". */
export interface EventInterceptResponse {
    type: "event_intercept_response";
    /** Refuse the action. */
    block?: boolean;
    /** turn_start: hidden context for the upcoming request only. */
    context?: string;
    /** Id of the event_intercept being answered. */
    id: string;
    /** tool_call: complete replacement argument object. */
    modified_args?: unknown;
    /** Refusal text. */
    reason?: string;
    /** assistant_message: replacement user-visible text. */
    replace_text?: string;
}
/** notify. */
export interface Notify {
    type: "notify";
    /** info, success, warn or error. */
    level?: string;
    /** Note text; each line becomes one note line. */
    message?: string;
}
/** status: empty text removes the item. */
export interface Status {
    type: "status";
    /** Item key, scoped to the extension. */
    key?: string;
    /** Colour level. */
    level?: string;
    /** Item text. */
    text?: string;
}
/** widget. */
export interface Widget {
    type: "widget";
    /** Widget id, scoped to the extension. */
    id?: string;
    /** Body lines. */
    lines?: string[];
    /** Placement; every value resolves to above_input. */
    position?: string;
    /** Header text. */
    title?: string;
}
/** widget_clear. */
export interface WidgetClear {
    type: "widget_clear";
    /** Widget id. */
    id?: string;
}
/** alert. */
export interface Alert {
    type: "alert";
    /** Only bell is defined. */
    kind?: string;
    /** Semantic metadata, never printed. */
    reason?: string;
}
/** clear_notes. */
export interface ClearNotes {
    type: "clear_notes";
}
/** submit. */
export interface Submit {
    type: "submit";
    /** Prompt text; trimmed, ignored when empty. */
    text?: string;
}
/** submit_slash. */
export interface SubmitSlash {
    type: "submit_slash";
    /** Must start with /. */
    text?: string;
}
/** open_panel (spontaneous form). */
export interface OpenPanel {
    type: "open_panel";
    /** The panel to open. */
    panel?: PanelContent;
}
/** panel_render. */
export interface PanelRender {
    type: "panel_render";
    /** Replaces the footer. */
    footer?: string;
    /** Replaces all lines. */
    lines?: string[];
    /** Id of the open panel. */
    panel_id?: string;
    /** New title; empty keeps the previous one. */
    title?: string;
}
/** panel_close (either direction). */
export interface PanelClose {
    type: "panel_close";
    /** Id of the panel. */
    panel_id?: string;
}
/** Acknowledges shutdown. */
export interface ShutdownAck {
    type: "shutdown_ack";
}
/** Any frame sent extension -> host. */
export type ExtFrame = Hello | RegisterCommand | RegisterTool | Subscribe | Ready | CommandResponse | ToolResult | EventInterceptResponse | Notify | Status | Widget | WidgetClear | Alert | ClearNotes | Submit | SubmitSlash | OpenPanel | PanelRender | PanelClose | ShutdownAck;
/** Every `type` value of ExtFrame. */
export declare const EXT_FRAME_TYPES: readonly ["hello", "register_command", "register_tool", "subscribe", "ready", "command_response", "tool_result", "event_intercept_response", "notify", "status", "widget", "widget_clear", "alert", "clear_notes", "submit", "submit_slash", "open_panel", "panel_render", "panel_close", "shutdown_ack"];
/** Identity of the active session branch, as sent in hello_ack and session lifecycle events. Empty fields are omitted on the wire. */
export interface SessionInfo {
    /** The session's project directory. */
    cwd?: string;
    /** Number of effective messages copied from the parent. */
    fork_point?: number;
    /** The session file's own id. */
    id: string;
    /** Id of the session this one was branched from. */
    parent_id?: string;
    /** Absolute path of the session file. */
    path?: string;
}
/** hello_ack. */
export interface HelloAck {
    type: "hello_ack";
    /** The user's project directory. */
    cwd?: string;
    /** Where the extension should persist state (same as extension_dir). */
    data_dir?: string;
    /** The extension's own directory. */
    extension_dir?: string;
    /** Active model at start-up (may be empty). */
    model?: string;
    /** Always 2. */
    protocol_version?: number;
    /** Active provider at start-up (may be empty). */
    provider?: string;
    /** The current session, when one has been announced. */
    session?: SessionInfo | null;
    /** Host version string. */
    zut_version?: string;
}
/** command_invoked. */
export interface CommandInvoked {
    type: "command_invoked";
    /** Text after the command name, trimmed; omitted when empty. */
    args?: string;
    /** Request id, echoed in command_response. */
    id: string;
    /** Canonical spelling of the registered command. */
    name: string;
}
/** tool_call. */
export interface ToolCall {
    type: "tool_call";
    /** Argument object ({} when the model sent none). */
    args?: unknown;
    /** Request id, echoed in tool_result. */
    id: string;
    /** Tool name. */
    name: string;
}
/** event: one-way lifecycle notification. Only the fields relevant to event are present. */
export interface Event {
    type: "event";
    /** turn_end, subagent_end: error text. */
    error?: string;
    /** Event name (see [crate::EventName]). */
    event: string;
    /** Session events: the active branch. subagent_start / subagent_end: the child's session (parent_id: the parent's). */
    session?: SessionInfo | null;
    /** Session events: the receiving extension's own state snapshot. */
    state?: unknown;
    /** turn_start: 1-based step. */
    step?: number;
    /** turn_end: stop reason. subagent_end: the child's state (completed, failed, interrupted, stopped, idle). */
    stop?: string;
    /** zut: the subagent whose turn this is (every event of a child's turns, and subagent_start / subagent_end); absent for the parent's own events. */
    subagent_id?: string;
    /** assistant_message: visible text. subagent_start: the task; subagent_end: the child's final text (at most 4000 bytes). */
    text?: string;
    /** tool_call: the model's original arguments. */
    tool_args?: unknown;
    /** tool_call / tool_confirmation_requested: call id. */
    tool_id?: string;
    /** tool_call / tool_confirmation_requested: tool name. */
    tool_name?: string;
    /** tool_confirmation_requested: short preview. */
    tool_preview?: string;
}
/** event_intercept. */
export interface EventIntercept {
    type: "event_intercept";
    /** tool_call, turn_start or assistant_message. */
    event: string;
    /** Request id, echoed in event_intercept_response. */
    id: string;
    /** turn_start: 1-based step. */
    step?: number;
    /** assistant_message: assembled text. */
    text?: string;
    /** tool_call: current (possibly already rewritten) arguments. */
    tool_args?: unknown;
    /** tool_call: call id. */
    tool_id?: string;
    /** tool_call: tool name. */
    tool_name?: string;
}
/** panel_key. */
export interface PanelKey {
    type: "panel_key";
    /** Normalised key name (up, down, enter, rune, ...). */
    key: string;
    /** Id of the focused panel. */
    panel_id: string;
    /** For rune: the typed character. */
    text?: string;
}
/** panel_close (either direction). */
export interface HostPanelClose {
    type: "panel_close";
    /** Id of the panel. */
    panel_id?: string;
}
/** panel_resize (never sent by zut; defined for completeness). */
export interface PanelResize {
    type: "panel_resize";
    /** Rows. */
    height?: number;
    /** Id of the panel. */
    panel_id: string;
    /** Columns. */
    width?: number;
}
/** The host is exiting or reloading. */
export interface Shutdown {
    type: "shutdown";
}
/** Any frame sent host -> extension. */
export type HostFrame = HelloAck | CommandInvoked | ToolCall | Event | EventIntercept | PanelKey | HostPanelClose | PanelResize | Shutdown;
/** Every `type` value of HostFrame. */
export declare const HOST_FRAME_TYPES: readonly ["hello_ack", "command_invoked", "tool_call", "event", "event_intercept", "panel_key", "panel_close", "panel_resize", "shutdown"];
