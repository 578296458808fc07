//! Extension-style spawns: `/bin/true` unconfined against confined by the
//! minimal extension policy (the policy built per spawn, as the host does
//! per extension). Median of 200 each; prints the figures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use zut_process::{spawn, Launch};

const N: usize = 200;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn once(dir: &std::path::Path, confined: bool) -> Duration {
    let t = Instant::now();
    let sandbox = if confined {
        let vars = zut_sandbox::Vars {
            cwd: dir.to_path_buf(),
            data_dir: dir.to_path_buf(),
            extension_dir: dir.to_path_buf(),
            home: None,
            tmp: std::env::temp_dir(),
        };
        let policy = zut_sandbox::Declared::default()
            .to_policy("bench", &vars, &["/bin/true".to_string()])
            .unwrap();
        Some(Arc::new(zut_sandbox::Prepared::new(policy).unwrap()))
    } else {
        None
    };
    let mut launch = Launch::new("/bin/true", dir).sandbox(sandbox);
    launch.stdout = std::process::Stdio::null();
    let mut p = spawn(launch).unwrap();
    let status = p.child.wait().await.unwrap();
    assert!(status.success());
    p.guard.disarm();
    t.elapsed()
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        for c in [false, true] {
            for _ in 0..10 {
                once(dir.path(), c).await;
            }
        }
        let mut plain = Vec::new();
        let mut confined = Vec::new();
        for _ in 0..N {
            plain.push(once(dir.path(), false).await);
            confined.push(once(dir.path(), true).await);
        }
        let (a, b) = (median(plain), median(confined));
        println!("sandbox: {}", zut_sandbox::status().line());
        println!(
            "extension spawn, unconfined: median {:.3} ms over {N}",
            a.as_secs_f64() * 1e3
        );
        println!(
            "extension spawn, confined:   median {:.3} ms over {N} (policy built per spawn)",
            b.as_secs_f64() * 1e3
        );
        println!(
            "confinement overhead per spawn: {:+.3} ms",
            (b.as_secs_f64() - a.as_secs_f64()) * 1e3
        );
    });
}
