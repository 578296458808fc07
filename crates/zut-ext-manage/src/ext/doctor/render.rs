//! Doctor's report (cli.md §2.2 steps 4–5): one block per static row with
//! the status precedence of the spec, then the load errors.

use std::fmt::Write as _;
use std::path::Path;

use zut_ext_host::manifest::{resolve_exec, ExecSpec};
use zut_ext_host::{ExtensionReport, LoadError, Planned, Readiness, Registration, SlotState};

use super::live::Snapshot;
use super::scan::StaticRow;

/// Lines of the extension's own stderr shown for a failed or exited one.
const TAIL_LINES: usize = 5;

/// A row's status, in precedence order (first match wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The manifest is missing or invalid.
    Error,
    /// A higher-priority directory with the same name wins.
    Shadowed,
    /// `"enabled": false`.
    Disabled,
    /// No `exec`, a theme file: nothing to start.
    ThemeOnly,
    /// No runtime record: failed to start or lost a name duplicate.
    NotLoaded,
    /// Did not send `ready` before the deadline.
    ReadyTimeout,
    /// Never sent `ready`; went quiet and was auto-readied.
    AutoReady,
    /// Still not ready when the snapshot was taken.
    NotReady,
    /// Ready, with diagnostics.
    Warning,
    /// Ready, nothing to report.
    Ok,
}

impl Status {
    /// The word printed after `[scope]`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Shadowed => "shadowed",
            Self::Disabled => "disabled",
            Self::ThemeOnly => "theme-only",
            Self::NotLoaded => "not loaded",
            Self::ReadyTimeout => "ready-timeout",
            Self::AutoReady => "auto-ready",
            Self::NotReady => "not ready",
            Self::Warning => "warning",
            Self::Ok => "ok",
        }
    }
}

/// The runtime record of a static row: same directory, same scope.
fn report_for<'a>(row: &StaticRow, snap: &'a Snapshot) -> Option<&'a ExtensionReport> {
    snap.reports
        .iter()
        .find(|r| r.dir == row.dir && r.scope == row.scope)
}

/// Diagnostics of a started extension, plus doctor's own observation that
/// its process is gone.
fn warnings(rep: &ExtensionReport) -> Vec<String> {
    let mut out = rep.diagnostics.clone();
    if !rep.theme_only && !rep.alive {
        out.push(
            "the extension process exited during the check (stdout closed); its stderr is in the log"
                .to_string(),
        );
    }
    out
}

/// The status of one row.
pub fn status(row: &StaticRow, snap: &Snapshot) -> Status {
    if row.error.is_some() {
        return Status::Error;
    }
    if row.shadowed_by.is_some() {
        return Status::Shadowed;
    }
    if !row.enabled {
        return Status::Disabled;
    }
    if row.theme_only() {
        return Status::ThemeOnly;
    }
    let Some(rep) = report_for(row, snap) else {
        return Status::NotLoaded;
    };
    match rep.readiness {
        Readiness::ReadyTimeout => Status::ReadyTimeout,
        Readiness::AutoReady => Status::AutoReady,
        Readiness::NotReady => Status::NotReady,
        Readiness::Ready if warnings(rep).is_empty() => Status::Ok,
        Readiness::Ready => Status::Warning,
    }
}

/// The whole report: title, blocks, load errors.
pub fn render(rows: &[StaticRow], snap: &Snapshot) -> String {
    let mut out = String::from("zut extension doctor\n");
    for row in rows {
        out.push('\n');
        block(&mut out, row, snap);
    }
    if !snap.errors.is_empty() {
        out.push_str("\nload errors:\n");
        for e in &snap.errors {
            out.push_str(&load_error(e));
        }
    }
    out
}

/// `  ! <first line>`, continuation lines indented by four spaces.
pub fn load_error(e: &LoadError) -> String {
    let mut out = String::new();
    for (i, line) in e.message.lines().enumerate() {
        let prefix = if i == 0 { "  ! " } else { "    " };
        let _ = writeln!(out, "{}", format!("{prefix}{line}").trim_end());
    }
    out
}

fn block(out: &mut String, row: &StaticRow, snap: &Snapshot) {
    let st = status(row, snap);
    let _ = writeln!(
        out,
        "{} [{}] {} ({})",
        row.name,
        row.scope,
        st.as_str(),
        row.dir.display()
    );
    if !row.version.is_empty() {
        let _ = writeln!(out, "  version: {}", row.version);
    }
    match st {
        Status::Error => {
            if !row.exec.trim().is_empty() {
                let _ = writeln!(out, "  log: {}", row.log.display());
            }
            let _ = writeln!(out, "  error: {}", row.error.as_deref().unwrap_or_default());
        }
        Status::Shadowed => {
            let winner = row
                .shadowed_by
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  note: a higher-priority directory with the same name wins: {winner}"
            );
        }
        Status::Disabled => {
            let hint = match row.dir.file_name() {
                Some(n) if row.scope != zut_ext_host::Scope::Cli => {
                    format!("; re-enable with `zut ext enable {}`", n.to_string_lossy())
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  note: disabled in extension.json (\"enabled\": false){hint}"
            );
        }
        Status::ThemeOnly => {
            let _ = writeln!(out, "  type: theme-only");
            for t in &row.themes {
                let _ = writeln!(out, "  theme: {}", t.display());
            }
            if let Some(rep) = report_for(row, snap) {
                bundled_skills(out, rep);
                for w in warnings(rep) {
                    let _ = writeln!(out, "  warning: {w}");
                }
            }
        }
        _ => running_block(out, row, snap, st),
    }
}

fn running_block(out: &mut String, row: &StaticRow, snap: &Snapshot, st: Status) {
    let rep = report_for(row, snap);
    let _ = writeln!(out, "  exec: {}", row.exec);
    if let Ok(m) = zut_ext_host::Manifest::read(&row.dir) {
        let c = zut_ext_host::Confinement::of(&m, false);
        let _ = writeln!(out, "  sandbox: {}", c.describe());
    }
    if let Some(pid) = rep.filter(|r| r.alive).and_then(|r| snap.pid_of(&r.name)) {
        let _ = writeln!(out, "  pid: {pid}");
    }
    let log = rep
        .and_then(|r| r.log.clone())
        .unwrap_or_else(|| row.log.clone());
    let _ = writeln!(out, "  log: {}", log.display());
    let Some(rep) = rep else {
        if st == Status::NotLoaded {
            not_loaded(out, row, snap);
        }
        return;
    };
    if !rep.commands.is_empty() {
        out.push_str("  commands:\n");
        for (i, c) in rep.commands.iter().enumerate() {
            let by = if c.state == SlotState::Shadowed {
                command_owner(rep, i, snap)
            } else {
                String::new()
            };
            let _ = writeln!(out, "    /{} ({}){by}", c.name, c.state.as_str());
        }
    }
    if !rep.tools.is_empty() {
        out.push_str("  tools:\n");
        for (i, t) in rep.tools.iter().enumerate() {
            let by = if t.state == SlotState::Shadowed {
                tool_owner(rep, i, snap)
            } else {
                String::new()
            };
            let _ = writeln!(out, "    {} ({}){by}", t.name, t.state.as_str());
        }
    }
    bundled_skills(out, rep);
    let warns = warnings(rep);
    for w in &warns {
        let _ = writeln!(out, "  warning: {w}");
    }
    if let Some(notes) = snap.notes_of(&rep.name) {
        for n in &notes.first {
            let msg = n.message.replace('\n', "\n    ");
            let _ = writeln!(out, "  notify: [{}] {msg}", n.level);
        }
        if notes.total > notes.first.len() {
            let _ = writeln!(
                out,
                "  notify: … and {} more",
                notes.total - notes.first.len()
            );
        }
    }
    if !rep.alive && !rep.theme_only {
        tail(out, row, &log);
    }
}

/// `  skills:` with one `    <name> (<SKILL.md path>)` line per bundled skill.
fn bundled_skills(out: &mut String, rep: &ExtensionReport) {
    if rep.skill_files.is_empty() {
        return;
    }
    out.push_str("  skills:\n");
    for file in &rep.skill_files {
        let fallback = file
            .parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = match zut_skills::read_skill_file(file) {
            Ok(text) => {
                zut_skills::Skill::from_text(
                    &text,
                    &fallback,
                    file.clone(),
                    zut_skills::Source::Builtin,
                )
                .name
            }
            Err(e) => format!("{fallback} (unreadable: {e})"),
        };
        let _ = writeln!(out, "    {name} ({})", file.display());
    }
}

/// Why a row that should have loaded has no runtime record.
fn not_loaded(out: &mut String, row: &StaticRow, snap: &Snapshot) {
    let duplicate = snap.planned.iter().find_map(|p| match p {
        Planned::Duplicate(c, m) if c.dir == row.dir && c.scope == row.scope => Some(m),
        _ => None,
    });
    if let Some(m) = duplicate {
        let winner = snap.planned.iter().find_map(|p| match p {
            Planned::Load(c, w) if w.name == m.name => Some(c),
            _ => None,
        });
        let winner = winner
            .map(|c| format!("{} [{}]", c.dir.display(), c.scope))
            .unwrap_or_else(|| "another directory".to_string());
        let _ = writeln!(
            out,
            "  note: another directory with manifest name {:?} comes first in load order and is loaded instead: {winner}",
            m.name
        );
        return;
    }
    let error = snap.errors.iter().find(|e| e.dir == row.dir);
    match error {
        Some(e) => {
            let core = e
                .message
                .lines()
                .find_map(|l| l.trim_start().strip_prefix("error: "))
                .unwrap_or_else(|| e.message.lines().next().unwrap_or_default());
            let _ = writeln!(
                out,
                "  note: failed to start: {core} (full message under \"load errors\" below)"
            );
            if let Some(h) = hint(row, core) {
                let _ = writeln!(out, "  hint: {h}");
            }
            tail(out, row, &row.log);
        }
        None => {
            let _ = writeln!(out, "  note: not started (the host kept no record of it)");
        }
    }
}

/// What to do about a start-up failure, when it is recognisable.
fn hint(row: &StaticRow, error: &str) -> Option<String> {
    let manifest = row.dir.join("extension.json");
    match resolve_exec(&row.exec, &row.dir) {
        ExecSpec::Local(path) if !path.exists() => {
            return Some(format!(
                "{} does not exist; build it, or fix \"exec\" in {}",
                path.display(),
                manifest.display()
            ))
        }
        ExecSpec::Local(path) if path.is_dir() => {
            return Some(format!(
                "{} is a directory; \"exec\" in {} must name a program",
                path.display(),
                manifest.display()
            ))
        }
        ExecSpec::Local(path) if !is_executable(&path) => {
            return Some(format!(
                "{} is not executable; run: chmod +x {}",
                path.display(),
                path.display()
            ))
        }
        ExecSpec::Path(cmd) if error.contains("executable file not found") => {
            return Some(format!(
                "{cmd:?} is not on PATH; install it, or set \"exec\" in {} to an absolute or extension-relative path",
                manifest.display()
            ))
        }
        _ => {}
    }
    if error.contains("unsupported extension protocol version") {
        return Some(
            "this zut speaks extension protocol 2: send \"protocol_version\": 2 in hello (update the SDK)"
                .to_string(),
        );
    }
    if error.contains("first frame must be hello") || error.contains("parse hello") {
        return Some(
            "the first line on stdout must be the hello frame {\"type\":\"hello\",\"protocol_version\":2,\"name\":…}; write logs to stderr"
                .to_string(),
        );
    }
    if error.contains("no hello within") || error.contains("before hello") {
        return Some(
            "the process must write its hello frame on stdout before anything else; its stderr (in the log) may say why it did not"
                .to_string(),
        );
    }
    None
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> bool {
    true
}

/// The extension's own stderr lines written during this run (the host's
/// `[zut]` markers left out), last few only.
fn tail(out: &mut String, row: &StaticRow, log: &Path) {
    let Ok(bytes) = std::fs::read(log) else {
        return;
    };
    let start = usize::try_from(row.log_len_before)
        .unwrap_or(0)
        .min(bytes.len());
    let text = String::from_utf8_lossy(&bytes[start..]);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("[zut] "))
        .collect();
    if lines.is_empty() {
        return;
    }
    let skip = lines.len().saturating_sub(TAIL_LINES);
    let _ = writeln!(out, "  stderr (this run, from the log):");
    for l in &lines[skip..] {
        let _ = writeln!(out, "    {}", l.trim_end());
    }
}

/// ` by …` for a shadowed command registration.
fn command_owner(rep: &ExtensionReport, i: usize, snap: &Snapshot) -> String {
    let name = &rep.commands[i].name;
    if earlier_active(&rep.commands[..i], name, true) {
        return " by an earlier registration of this extension".to_string();
    }
    if snap.builtins.is_command(name) {
        return " by a built-in command".to_string();
    }
    match snap
        .commands
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(name))
    {
        Some(c) if c.extension == rep.name => {
            format!(" by /{} of this extension", c.name)
        }
        Some(c) if c.name == *name => format!(" by extension {:?}", c.extension),
        Some(c) => format!(" by extension {:?} (as /{})", c.extension, c.name),
        None => String::new(),
    }
}

/// ` by …` for a shadowed tool registration.
fn tool_owner(rep: &ExtensionReport, i: usize, snap: &Snapshot) -> String {
    let name = &rep.tools[i].name;
    if earlier_active(&rep.tools[..i], name, false) {
        return " by an earlier registration of this extension".to_string();
    }
    if snap.builtins.is_tool(name) {
        return " by a built-in or reserved tool name".to_string();
    }
    snap.reports
        .iter()
        .filter(|r| r.name != rep.name)
        .find(|r| {
            r.tools
                .iter()
                .any(|t| t.name == *name && t.state == SlotState::Active)
        })
        .map(|r| format!(" by extension {:?}", r.name))
        .unwrap_or_default()
}

fn earlier_active(regs: &[Registration], name: &str, fold_case: bool) -> bool {
    regs.iter().any(|r| {
        r.state == SlotState::Active
            && if fold_case {
                r.name.eq_ignore_ascii_case(name)
            } else {
                r.name == name
            }
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use zut_ext_host::{CommandInfo, Scope};

    use super::*;

    fn row(name: &str, scope: Scope) -> StaticRow {
        StaticRow {
            scope,
            dir: PathBuf::from(format!("/x/{name}")),
            name: name.into(),
            version: "1.0.0".into(),
            enabled: true,
            exec: "./run".into(),
            themes: Vec::new(),
            error: None,
            shadowed_by: None,
            log: PathBuf::from(format!("/h/logs/ext-{name}.log")),
            log_len_before: 0,
        }
    }

    fn report(name: &str, readiness: Readiness) -> ExtensionReport {
        ExtensionReport {
            name: name.into(),
            version: "1.0.0".into(),
            dir: PathBuf::from(format!("/x/{name}")),
            scope: Scope::Global,
            exec: "./run".into(),
            log: Some(PathBuf::from(format!("/h/logs/ext-{name}.log"))),
            theme_only: false,
            readiness,
            alive: true,
            commands: Vec::new(),
            tools: Vec::new(),
            skill_files: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    fn reg(name: &str, state: SlotState) -> Registration {
        Registration {
            name: name.into(),
            state,
        }
    }

    #[test]
    fn status_precedence() {
        let snap = Snapshot::default();
        let mut r = row("a", Scope::Global);
        assert_eq!(status(&r, &snap), Status::NotLoaded);
        r.enabled = false;
        assert_eq!(status(&r, &snap), Status::Disabled);
        r.shadowed_by = Some(PathBuf::from("/p/a"));
        assert_eq!(status(&r, &snap), Status::Shadowed);
        r.error = Some("manifest: name is required".into());
        assert_eq!(status(&r, &snap), Status::Error);
        let mut t = row("t", Scope::Project);
        t.exec.clear();
        t.themes.push(PathBuf::from("/x/t/theme.json"));
        assert_eq!(status(&t, &snap), Status::ThemeOnly);
        let r = row("a", Scope::Global);
        for (readiness, diag, want) in [
            (Readiness::ReadyTimeout, true, Status::ReadyTimeout),
            (Readiness::AutoReady, true, Status::AutoReady),
            (Readiness::NotReady, false, Status::NotReady),
            (Readiness::Ready, true, Status::Warning),
            (Readiness::Ready, false, Status::Ok),
        ] {
            let mut rep = report("a", readiness);
            if diag {
                rep.diagnostics.push("x".into());
            }
            let snap = Snapshot {
                reports: vec![rep],
                ..Snapshot::default()
            };
            assert_eq!(status(&r, &snap), want, "{readiness:?}");
        }
    }

    #[test]
    fn running_block_lists_registrations_and_owners() {
        let mut a = report("a", Readiness::Ready);
        a.commands = vec![reg("CaseTest", SlotState::Active)];
        a.tools = vec![reg("shared", SlotState::Active)];
        let mut b = report("b", Readiness::Ready);
        b.commands = vec![
            reg("casetest", SlotState::Shadowed),
            reg("help", SlotState::Shadowed),
        ];
        b.tools = vec![
            reg("shared", SlotState::Shadowed),
            reg("grep", SlotState::Shadowed),
        ];
        b.diagnostics
            .push("command /casetest conflicts with another extension".into());
        let snap = Snapshot {
            reports: vec![a, b],
            pids: vec![("a".into(), 42)],
            commands: vec![CommandInfo {
                name: "CaseTest".into(),
                description: String::new(),
                extension: "a".into(),
            }],
            builtins: crate::Builtins::new(&["help"], &["grep"]),
            ..Snapshot::default()
        };
        let text = render(&[row("a", Scope::Global), row("b", Scope::Global)], &snap);
        let want = "\
zut extension doctor

a [global] ok (/x/a)
  version: 1.0.0
  exec: ./run
  pid: 42
  log: /h/logs/ext-a.log
  commands:
    /CaseTest (active)
  tools:
    shared (active)

b [global] warning (/x/b)
  version: 1.0.0
  exec: ./run
  log: /h/logs/ext-b.log
  commands:
    /casetest (shadowed) by extension \"a\" (as /CaseTest)
    /help (shadowed) by a built-in command
  tools:
    shared (shadowed) by extension \"a\"
    grep (shadowed) by a built-in or reserved tool name
  warning: command /casetest conflicts with another extension
";
        assert_eq!(text, want);
    }

    #[test]
    fn load_errors_keep_line_breaks() {
        let e = LoadError {
            dir: PathBuf::from("/x/a"),
            name: Some("a".into()),
            message: "Extension a failed to start.\n\n  exec: \"./run\"\n  error: boom".into(),
        };
        assert_eq!(
            load_error(&e),
            "  ! Extension a failed to start.\n\n      exec: \"./run\"\n      error: boom\n"
        );
    }
}
