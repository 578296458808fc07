import type { CommandResponse, ContentBlock, PanelContent, ToolResult as ToolResultFrame } from "./frames.js";
/** Builds a panel. Lines starting (after spaces) with `▸ ` render as selected. */
export declare function panel(id: string, title?: string, lines?: Iterable<string>, footer?: string): PanelContent;
/** A command's answer (`command_response`). */
export declare class Response {
    readonly action: string;
    readonly text: string;
    readonly panelContent?: PanelContent | undefined;
    readonly errorText: string;
    private constructor();
    /** Submits `text` as a user message (a turn runs). */
    static prompt(text: string): Response;
    /** Inserts `text` in the editor without submitting it. */
    static insert(text: string): Response;
    /** Shows a one-shot note; no model call. */
    static display(text: string): Response;
    /** Opens an interactive panel owned by this extension. */
    static openPanel(content: PanelContent): Response;
    /** Nothing visible. */
    static noop(): Response;
    /** A red status line; nothing else happens. */
    static error(text: string): Response;
    /** The wire frame answering the request `id`. */
    toFrame(id: string): CommandResponse;
}
/** A tool's answer (`tool_result`): content blocks, error flag, activations, state. */
export declare class ToolResult {
    content: ContentBlock[];
    isError: boolean;
    activateTools: string[];
    details: unknown;
    constructor(content?: ContentBlock[], isError?: boolean);
    /** One text block. */
    static text(text: string): ToolResult;
    /** One text block, `is_error: true`. */
    static error(text: string): ToolResult;
    /** One image block from raw bytes (base64-encoded for you). */
    static image(mimeType: string, data: Uint8Array): ToolResult;
    /** Appends a text block. */
    withText(text: string): this;
    /** Appends an image block from raw bytes. */
    withImage(mimeType: string, data: Uint8Array): this;
    /** Appends an image block from standard base64 (with padding). */
    withImageBase64(mimeType: string, data: string): this;
    /** Attaches state persisted with the session (`null` clears it; keep it under 256 KiB). */
    withDetails(details: unknown): this;
    /** Activates deferred tools by name. */
    withActivateTools(names: Iterable<string>): this;
    /** The wire frame answering the request `id`. */
    toFrame(id: string): ToolResultFrame;
}
/** Reply fields of an interceptor (besides `type` and `id`). */
export interface DecisionFields {
    block?: boolean;
    reason?: string;
    modified_args?: unknown;
    context?: string;
    replace_text?: string;
}
/** A `tool_call` interceptor's answer. */
export declare class ToolCallDecision {
    readonly fields: DecisionFields;
    private constructor();
    /** Let the call run unchanged. */
    static allow(): ToolCallDecision;
    /** Refuse the call; the model gets `reason` as an error result. */
    static deny(reason: string): ToolCallDecision;
    /** Run the call with `args` (a complete replacement object) instead. */
    static rewrite(args: Record<string, unknown>): ToolCallDecision;
}
/** A `turn_start` interceptor's answer. */
export declare class TurnStartDecision {
    readonly fields: DecisionFields;
    private constructor();
    /** Let the model call happen. */
    static allow(): TurnStartDecision;
    /** No model call; the turn ends with `reason`. */
    static deny(reason: string): TurnStartDecision;
    /** Adds hidden context to the upcoming request only. */
    static withContext(context: string): TurnStartDecision;
}
/** An `assistant_message` interceptor's answer. */
export declare class AssistantMessageDecision {
    readonly fields: DecisionFields;
    private constructor();
    /** Show the message unchanged. */
    static allow(): AssistantMessageDecision;
    /** Hide the message from the user (the transcript keeps it). */
    static deny(reason?: string): AssistantMessageDecision;
    /** Show `text` instead. */
    static replace(text: string): AssistantMessageDecision;
}
