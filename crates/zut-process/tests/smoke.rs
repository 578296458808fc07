use std::sync::Arc;
use zut_process::{spawn, Launch};
use zut_sandbox::{JailSpec, Policy, Prepared};

#[tokio::test]
async fn smoke() {
    let dir = tempfile::tempdir().unwrap();
    let policy = Policy::jail(&JailSpec {
        cwd: dir.path().to_path_buf(),
        home: std::env::var_os("HOME").map(Into::into),
        ..Default::default()
    });
    let t = std::time::Instant::now();
    let prep = Arc::new(Prepared::new(policy).unwrap());
    eprintln!(
        "prepare {:?} notes {:?} status {}",
        t.elapsed(),
        prep.notes(),
        zut_sandbox::status().line()
    );
    let mut l = Launch::new("/bin/bash", dir.path()).args(["-c", "echo hi > ok.txt; cat ok.txt; echo x > /etc/zz; cat ~/.ssh/id_ed25519; ls ~ | head -3; curl -sS -m 2 http://127.0.0.1:1 2>&1; id"]);
    l.merge_stderr = true;
    let p = spawn(l.sandbox(Some(prep))).unwrap();
    let out = p.child.wait_with_output().await.unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stdout));
}
