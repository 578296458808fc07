// What handlers return: command responses, tool results, interceptor decisions, panels.

import type { CommandResponse, ContentBlock, PanelContent, ToolResult as ToolResultFrame } from "./frames.js";

declare const btoa: (data: string) => string;

/** Builds a panel. Lines starting (after spaces) with `▸ ` render as selected. */
export function panel(id: string, title = "", lines: Iterable<string> = [], footer = ""): PanelContent {
  const content: PanelContent = { id };
  if (title) content.title = title;
  content.lines = [...lines];
  if (footer) content.footer = footer;
  return content;
}

/** A command's answer (`command_response`). */
export class Response {
  private constructor(
    readonly action: string,
    readonly text = "",
    readonly panelContent?: PanelContent,
    readonly errorText = "",
  ) {}

  /** Submits `text` as a user message (a turn runs). */
  static prompt(text: string): Response {
    return new Response("prompt", text);
  }
  /** Inserts `text` in the editor without submitting it. */
  static insert(text: string): Response {
    return new Response("insert", text);
  }
  /** Shows a one-shot note; no model call. */
  static display(text: string): Response {
    return new Response("display", text);
  }
  /** Opens an interactive panel owned by this extension. */
  static openPanel(content: PanelContent): Response {
    return new Response("open_panel", "", content);
  }
  /** Nothing visible. */
  static noop(): Response {
    return new Response("noop");
  }
  /** A red status line; nothing else happens. */
  static error(text: string): Response {
    return new Response("noop", "", undefined, text);
  }

  /** The wire frame answering the request `id`. */
  toFrame(id: string): CommandResponse {
    const frame: CommandResponse = { type: "command_response", id, action: this.action || "noop" };
    if (this.text && (this.action === "prompt" || this.action === "insert" || this.action === "display")) {
      frame[this.action] = this.text;
    }
    if (this.action === "open_panel" && this.panelContent) frame.open_panel = { ...this.panelContent };
    if (this.errorText) frame.error = this.errorText;
    return frame;
  }
}

const UNSET: unique symbol = Symbol("unset");

/** A tool's answer (`tool_result`): content blocks, error flag, activations, state. */
export class ToolResult {
  content: ContentBlock[];
  isError: boolean;
  activateTools: string[] = [];
  details: unknown = UNSET;

  constructor(content: ContentBlock[] = [], isError = false) {
    this.content = [...content];
    this.isError = isError;
  }

  /** One text block. */
  static text(text: string): ToolResult {
    return new ToolResult([{ type: "text", text }]);
  }
  /** One text block, `is_error: true`. */
  static error(text: string): ToolResult {
    return new ToolResult([{ type: "text", text }], true);
  }
  /** One image block from raw bytes (base64-encoded for you). */
  static image(mimeType: string, data: Uint8Array): ToolResult {
    return new ToolResult().withImage(mimeType, data);
  }

  /** Appends a text block. */
  withText(text: string): this {
    this.content.push({ type: "text", text });
    return this;
  }
  /** Appends an image block from raw bytes. */
  withImage(mimeType: string, data: Uint8Array): this {
    let binary = "";
    for (let i = 0; i < data.length; i += 0x8000) {
      binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
    }
    return this.withImageBase64(mimeType, btoa(binary));
  }
  /** Appends an image block from standard base64 (with padding). */
  withImageBase64(mimeType: string, data: string): this {
    this.content.push({ type: "image", mime_type: mimeType, data });
    return this;
  }
  /** Attaches state persisted with the session (`null` clears it; keep it under 256 KiB). */
  withDetails(details: unknown): this {
    this.details = details;
    return this;
  }
  /** Activates deferred tools by name. */
  withActivateTools(names: Iterable<string>): this {
    this.activateTools.push(...names);
    return this;
  }

  /** The wire frame answering the request `id`. */
  toFrame(id: string): ToolResultFrame {
    const frame: ToolResultFrame = { type: "tool_result", id, content: this.content.map((b) => ({ ...b })) };
    if (this.isError) frame.is_error = true;
    if (this.activateTools.length > 0) frame.activate_tools = [...this.activateTools];
    if (this.details !== UNSET) frame.details = this.details;
    return frame;
  }
}

/** Reply fields of an interceptor (besides `type` and `id`). */
export interface DecisionFields {
  block?: boolean;
  reason?: string;
  modified_args?: unknown;
  context?: string;
  replace_text?: string;
}

function blocked(reason: string): DecisionFields {
  return reason ? { block: true, reason } : { block: true };
}

/** A `tool_call` interceptor's answer. */
export class ToolCallDecision {
  private constructor(readonly fields: DecisionFields) {}
  /** Let the call run unchanged. */
  static allow(): ToolCallDecision {
    return new ToolCallDecision({});
  }
  /** Refuse the call; the model gets `reason` as an error result. */
  static deny(reason: string): ToolCallDecision {
    return new ToolCallDecision(blocked(reason));
  }
  /** Run the call with `args` (a complete replacement object) instead. */
  static rewrite(args: Record<string, unknown>): ToolCallDecision {
    return new ToolCallDecision({ modified_args: args });
  }
}

/** A `turn_start` interceptor's answer. */
export class TurnStartDecision {
  private constructor(readonly fields: DecisionFields) {}
  /** Let the model call happen. */
  static allow(): TurnStartDecision {
    return new TurnStartDecision({});
  }
  /** No model call; the turn ends with `reason`. */
  static deny(reason: string): TurnStartDecision {
    return new TurnStartDecision(blocked(reason));
  }
  /** Adds hidden context to the upcoming request only. */
  static withContext(context: string): TurnStartDecision {
    return new TurnStartDecision(context ? { context } : {});
  }
}

/** An `assistant_message` interceptor's answer. */
export class AssistantMessageDecision {
  private constructor(readonly fields: DecisionFields) {}
  /** Show the message unchanged. */
  static allow(): AssistantMessageDecision {
    return new AssistantMessageDecision({});
  }
  /** Hide the message from the user (the transcript keeps it). */
  static deny(reason = ""): AssistantMessageDecision {
    return new AssistantMessageDecision(blocked(reason));
  }
  /** Show `text` instead. */
  static replace(text: string): AssistantMessageDecision {
    return new AssistantMessageDecision(text ? { replace_text: text } : {});
  }
}
