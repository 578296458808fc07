//! Fork bombs and memory balloons are bounded.

use zut_sandbox::Limits;

use crate::env::*;

#[tokio::test]
async fn a_fork_bomb_is_bounded() {
    if !supported() {
        return;
    }
    let env = Env::new();
    let ctx = env.ctx_limited(Limits {
        max_processes: Some(40),
        ..Limits::jail_defaults()
    });
    std::fs::write(
        env.ws.join("bomb.py"),
        "import os, time\nok = fail = 0\nfor i in range(200):\n    try:\n        pid = os.fork()\n    except OSError:\n        fail += 1\n        continue\n    if pid == 0:\n        os.close(1); os.close(2); time.sleep(2); os._exit(0)\n    ok += 1\nprint('forked', ok, 'failed', fail)\n",
    )
    .unwrap();
    let (_, text) = bash(&ctx, "python3 bomb.py").await;
    let words: Vec<&str> = text.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "forked").expect(&text);
    let ok: u32 = words[at + 1].parse().unwrap();
    let failed: u32 = words[at + 3].parse().unwrap();
    assert!(ok < 40, "at most the limit: {text}");
    assert!(failed > 150, "the rest was refused: {text}");
}

#[tokio::test]
async fn a_memory_balloon_is_bounded() {
    if !supported() {
        return;
    }
    let env = Env::new();
    let ctx = env.ctx_limited(Limits {
        max_memory_bytes: Some(512 << 20),
        ..Limits::jail_defaults()
    });
    let (err, text) = bash(
        &ctx,
        "python3 -c 'b = bytearray(2 * 1024**3); print(\"allocated\")'; ulimit -v 99999999999 && echo RAISED",
    )
    .await;
    assert!(err, "{text}");
    assert!(text.contains("MemoryError"), "{text}");
    assert!(!text.contains("allocated"), "{text}");
    assert!(
        !text.contains("RAISED"),
        "limits cannot be raised again: {text}"
    );
}
