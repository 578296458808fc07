// Bounded line splitting of host bytes (no Node types needed: runs on Node, Bun and Deno).

import { LineTooLong } from "./errors.js";

/** Longest host line accepted, terminating LF included (the Go SDK's scanner cap). */
export const MAX_LINE = 4 * 1024 * 1024;

declare const TextDecoder: new () => { decode(bytes: Uint8Array): string };

/** Splits chunks into lines (LF, optional CR stripped); throws LineTooLong past 4 MiB. */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private pending = 0;
  private readonly decoder = new TextDecoder();

  /** Feeds one chunk; returns the complete lines it finished. */
  push(chunk: Uint8Array | string): string[] {
    const bytes = typeof chunk === "string" ? encodeUtf8(chunk) : chunk;
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = bytes.indexOf(10, start);
      if (nl < 0) break;
      const piece = bytes.subarray(start, nl);
      if (this.pending + piece.length + 1 > MAX_LINE) throw tooLong();
      lines.push(this.take(piece));
      start = nl + 1;
    }
    if (start < bytes.length) {
      const rest = bytes.subarray(start);
      if (this.pending + rest.length >= MAX_LINE) throw tooLong();
      this.parts.push(rest.slice());
      this.pending += rest.length;
    }
    return lines;
  }

  /** The unterminated last line at EOF, if any. */
  finish(): string | undefined {
    if (this.pending === 0) return undefined;
    return this.take(new Uint8Array(0));
  }

  private take(last: Uint8Array): string {
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
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
    return this.decoder.decode(bytes);
  }
}

function tooLong(): LineTooLong {
  return new LineTooLong(`host line exceeds ${MAX_LINE} bytes (4 MiB)`);
}

declare const TextEncoder: new () => { encode(text: string): Uint8Array };

function encodeUtf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
