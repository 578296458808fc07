//! The outcome of `zut ext test`: named checks with a status and the
//! protocol rule behind each, rendered as text or JSON.

use serde::Serialize;

/// How one check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The extension does what the protocol asks.
    Pass,
    /// Works with zut, but something is likely a mistake.
    Warn,
    /// Breaks the protocol; zut would misbehave or refuse it.
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Warn => "warn",
            Self::Fail => "FAIL",
        }
    }
}

/// One check.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Short name (`handshake`, `tool note_add`, ...).
    pub name: String,
    /// Outcome.
    pub status: Status,
    /// What was observed.
    pub message: String,
    /// The protocol rule behind the check (`protocol §5.1 hello`).
    pub rule: &'static str,
}

/// Every check of one run, in order.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// Manifest name (or the directory name when the manifest is unreadable).
    pub extension: String,
    /// The extension directory.
    pub dir: String,
    /// The checks, in the order they ran.
    pub checks: Vec<Check>,
    /// The last lines the extension wrote to stderr (shown when something failed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
}

impl Report {
    /// Records a check.
    pub fn add(
        &mut self,
        name: impl Into<String>,
        status: Status,
        rule: &'static str,
        message: impl Into<String>,
    ) {
        self.checks.push(Check {
            name: name.into(),
            status,
            message: message.into(),
            rule,
        });
    }

    /// Records a passing check.
    pub fn pass(
        &mut self,
        name: impl Into<String>,
        rule: &'static str,
        message: impl Into<String>,
    ) {
        self.add(name, Status::Pass, rule, message);
    }

    /// Records a warning.
    pub fn warn(
        &mut self,
        name: impl Into<String>,
        rule: &'static str,
        message: impl Into<String>,
    ) {
        self.add(name, Status::Warn, rule, message);
    }

    /// Records a failure.
    pub fn fail(
        &mut self,
        name: impl Into<String>,
        rule: &'static str,
        message: impl Into<String>,
    ) {
        self.add(name, Status::Fail, rule, message);
    }

    fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }

    /// True when no check failed.
    pub fn ok(&self) -> bool {
        self.count(Status::Fail) == 0
    }

    /// The readable report.
    pub fn to_text(&self) -> String {
        let mut out = format!("zut ext test: {} ({})\n", self.extension, self.dir);
        let width = self
            .checks
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(0);
        for c in &self.checks {
            out.push_str(&format!(
                "  {:<4}  {:<width$}  {}  [{}]\n",
                c.status.label(),
                c.name,
                c.message.replace('\n', "\n        "),
                c.rule,
            ));
        }
        if !self.ok() && !self.stderr_tail.is_empty() {
            out.push_str("  extension stderr (last lines):\n");
            for line in &self.stderr_tail {
                out.push_str(&format!("    | {line}\n"));
            }
        }
        out.push_str(&format!(
            "{} passed, {} failed, {} warnings\n",
            self.count(Status::Pass),
            self.count(Status::Fail),
            self.count(Status::Warn),
        ));
        out
    }

    /// The `--json` report (one object).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("ok".into(), self.ok().into());
            obj.insert("passed".into(), self.count(Status::Pass).into());
            obj.insert("warnings".into(), self.count(Status::Warn).into());
            obj.insert("failed".into(), self.count(Status::Fail).into());
        }
        v
    }
}
