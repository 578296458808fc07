/**
 * zut-ext: write zut extensions in TypeScript / JavaScript (protocol v2, no runtime dependencies).
 *
 * ```ts
 * import { Extension, Response } from "zut-ext";
 * const ext = new Extension("hello", "1.0.0");
 * ext.command("hello", "say hi", () => Response.prompt("Greet me in one short sentence."));
 * ext.main();
 * ```
 *
 * See docs/sdk-typescript.md.
 * @module
 */
export { LineTooLong, NotConnected, SdkError } from "./errors.js";
export { CAPABILITIES, EVENT_NAMES, Extension, KEY_NAMES, } from "./extension.js";
export * from "./frames.js";
export { MAX_LINE } from "./lines.js";
export { AssistantMessageDecision, panel, Response, ToolCallDecision, ToolResult, TurnStartDecision, } from "./results.js";
