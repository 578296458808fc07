/** The connection with zut failed (handshake, I/O or framing). */
export class SdkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SdkError";
  }
}

/** A host line exceeded the 4 MiB frame limit. */
export class LineTooLong extends SdkError {
  constructor(message: string) {
    super(message);
    this.name = "LineTooLong";
  }
}

/** A frame was sent before `run()` connected, or after it returned. */
export class NotConnected extends SdkError {
  constructor(message: string) {
    super(message);
    this.name = "NotConnected";
  }
}
