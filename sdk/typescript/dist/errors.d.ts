/** The connection with zut failed (handshake, I/O or framing). */
export declare class SdkError extends Error {
    constructor(message: string);
}
/** A host line exceeded the 4 MiB frame limit. */
export declare class LineTooLong extends SdkError {
    constructor(message: string);
}
/** A frame was sent before `run()` connected, or after it returned. */
export declare class NotConnected extends SdkError {
    constructor(message: string);
}
