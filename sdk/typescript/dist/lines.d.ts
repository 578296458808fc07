/** Longest host line accepted, terminating LF included (the Go SDK's scanner cap). */
export declare const MAX_LINE: number;
/** Splits chunks into lines (LF, optional CR stripped); throws LineTooLong past 4 MiB. */
export declare class LineSplitter {
    private parts;
    private pending;
    private readonly decoder;
    /** Feeds one chunk; returns the complete lines it finished. */
    push(chunk: Uint8Array | string): string[];
    /** The unterminated last line at EOF, if any. */
    finish(): string | undefined;
    private take;
}
