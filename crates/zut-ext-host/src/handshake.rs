//! The `hello` / `hello_ack` handshake.

use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use tokio::process::Child;
use zut_protocol::{
    decode_ext_frame, encode_line, DecodeError, ExtFrame, HelloAck, HostFrame, PROTOCOL_VERSION,
};

use crate::line_reader::{LineRead, LineReader};
use crate::process::describe_exit;

/// Reads the first line and checks that it is a valid `hello`.
/// Returns the hello's name, or the inner error text of §3.6.
pub(crate) async fn read_hello<R: AsyncBufRead + Unpin>(
    reader: &mut LineReader<R>,
    child: &mut Child,
    log: &str,
    hello_timeout: Duration,
    exit_grace: Duration,
) -> Result<String, String> {
    let line = match tokio::time::timeout(hello_timeout, reader.next_line()).await {
        Err(_) => {
            return Err(format!(
                "no hello within {}s; the extension was stopped (stderr log: {log})",
                hello_timeout.as_secs_f64()
            ))
        }
        Ok(Err(e)) => return Err(format!("read hello (stderr log: {log}): {e}")),
        Ok(Ok(LineRead::TooLong)) => {
            return Err(format!(
                "read hello (stderr log: {log}): line exceeds the {} byte frame limit",
                zut_protocol::limits::MAX_INBOUND_LINE
            ))
        }
        Ok(Ok(LineRead::Eof)) => {
            return Err(match tokio::time::timeout(exit_grace, child.wait()).await {
                Ok(Ok(status)) => format!(
                    "extension exited before hello: {} (stderr log: {log})",
                    describe_exit(status)
                ),
                _ => format!(
                    "extension closed stdout before hello without exiting (stderr log: {log})"
                ),
            })
        }
        Ok(Ok(LineRead::Line(line))) => line,
    };
    match decode_ext_frame(&line) {
        Err(DecodeError::Malformed(detail)) => {
            Err(format!("parse hello (stderr log: {log}): {detail}"))
        }
        Err(DecodeError::UnknownType(t)) => Err(format!(
            "first frame must be hello (got {t:?}; stderr log: {log})"
        )),
        Ok(ExtFrame::Hello(h)) => {
            if h.name.trim().is_empty() {
                return Err(format!(
                    "first frame must be hello (got \"hello\" with an empty name; stderr log: {log})"
                ));
            }
            if h.protocol_version != PROTOCOL_VERSION {
                return Err(format!(
                    "unsupported extension protocol version {} (want {PROTOCOL_VERSION}; stderr log: {log})",
                    h.protocol_version
                ));
            }
            Ok(h.name)
        }
        Ok(other) => Err(format!(
            "first frame must be hello (got {:?}; stderr log: {log})",
            other.type_name()
        )),
    }
}

/// Writes `hello_ack`.
pub(crate) async fn send_hello_ack<W: AsyncWrite + Unpin>(
    out: &mut W,
    ack: HelloAck,
    log: &str,
) -> Result<(), String> {
    let bytes = encode_line(&HostFrame::HelloAck(ack));
    let res = async {
        out.write_all(&bytes).await?;
        out.flush().await
    }
    .await;
    res.map_err(|e| format!("send hello_ack (stderr log: {log}): {e}"))
}
