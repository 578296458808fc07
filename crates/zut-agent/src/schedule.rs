//! `schedule` (tools.md §9): five-field cron prompts for the interactive
//! session — `add`, `list`, `cancel` — kept in memory only (quitting zut
//! drops them), as in the Go original.
//!
//! One engine per process ([`engine`]). A task captures the session it was
//! made in and the machine's time zone at creation (a later change of the
//! machine's zone does not move it); its next run is the first matching
//! minute strictly after now, within eight years. The interactive mode
//! runs [`Engine::run`], which hands due tasks to the TUI: a task fires
//! into the conversation when it is idle and waits in the prompt queue
//! behind a running turn (or an open confirmation dialog). Missed
//! occurrences are skipped, not replayed. Cron parsing and the search are
//! the `croner` crate's (vixie-cron day-of-month/day-of-week rule).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use chrono::{
    DateTime, Datelike, FixedOffset, MappedLocalTime, NaiveDate, NaiveDateTime, Offset, TimeZone,
    Timelike, Utc,
};
use croner::parser::{CronParser, Seconds, Year};
use croner::Cron;
use serde::Deserialize;
use serde_json::{json, Value};
use zut_providers::Part;

use crate::agent::Agent;
use crate::toolset::{ToolEntry, ToolOwner, Toolset};

/// The tool's name.
pub const SCHEDULE_TOOL: &str = "schedule";
/// How far ahead a task must have an occurrence.
pub const HORIZON_YEARS: i64 = 8;

/// A time zone captured at a task's creation (the machine's, then), usable
/// by `chrono` and `croner`.
#[derive(Clone)]
pub struct Zone(Arc<jiff::tz::TimeZone>);

impl std::fmt::Debug for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl Zone {
    /// The machine's time zone now.
    pub fn system() -> Self {
        Self(Arc::new(jiff::tz::TimeZone::system()))
    }

    /// A named IANA zone (tests; `None` when the database lacks it).
    pub fn named(name: &str) -> Option<Self> {
        jiff::tz::TimeZone::get(name)
            .ok()
            .map(|z| Self(Arc::new(z)))
    }

    /// The IANA name, or `UTC±hh:mm` for a zone without one.
    pub fn name(&self) -> String {
        match self.0.iana_name() {
            Some(n) => n.to_string(),
            None => {
                let off = self.0.to_offset(jiff::Timestamp::now()).seconds();
                format!(
                    "UTC{}{:02}:{:02}",
                    if off < 0 { '-' } else { '+' },
                    off.abs() / 3600,
                    off.abs() % 3600 / 60
                )
            }
        }
    }

    fn fixed(&self, seconds: i32) -> ZoneOffset {
        ZoneOffset {
            fixed: FixedOffset::east_opt(seconds).unwrap_or_else(|| Utc.fix()),
            zone: self.clone(),
        }
    }
}

/// An offset of a [`Zone`] (it carries its zone: chrono rebuilds the zone
/// from an offset).
#[derive(Clone)]
pub struct ZoneOffset {
    fixed: FixedOffset,
    zone: Zone,
}

impl std::fmt::Debug for ZoneOffset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.fixed)
    }
}

impl std::fmt::Display for ZoneOffset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.fixed)
    }
}

impl Offset for ZoneOffset {
    fn fix(&self) -> FixedOffset {
        self.fixed
    }
}

impl TimeZone for Zone {
    type Offset = ZoneOffset;

    fn from_offset(offset: &ZoneOffset) -> Self {
        offset.zone.clone()
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> MappedLocalTime<ZoneOffset> {
        match local.and_hms_opt(0, 0, 0) {
            Some(dt) => self.offset_from_local_datetime(&dt),
            None => MappedLocalTime::None,
        }
    }

    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> MappedLocalTime<ZoneOffset> {
        let civil = jiff::civil::DateTime::new(
            local.year() as i16,
            local.month() as i8,
            local.day() as i8,
            local.hour() as i8,
            local.minute() as i8,
            local.second() as i8,
            0,
        );
        let Ok(civil) = civil else {
            return MappedLocalTime::None;
        };
        match self.0.to_ambiguous_timestamp(civil).offset() {
            jiff::tz::AmbiguousOffset::Unambiguous { offset } => {
                MappedLocalTime::Single(self.fixed(offset.seconds()))
            }
            jiff::tz::AmbiguousOffset::Gap { .. } => MappedLocalTime::None,
            jiff::tz::AmbiguousOffset::Fold { before, after } => MappedLocalTime::Ambiguous(
                self.fixed(before.seconds()),
                self.fixed(after.seconds()),
            ),
        }
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> ZoneOffset {
        match utc.and_hms_opt(0, 0, 0) {
            Some(dt) => self.offset_from_utc_datetime(&dt),
            None => self.fixed(0),
        }
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> ZoneOffset {
        let secs = utc.and_utc().timestamp();
        let off = jiff::Timestamp::from_second(secs)
            .map(|ts| self.0.to_offset(ts).seconds())
            .unwrap_or(0);
        self.fixed(off)
    }
}

/// A parsed five-field expression.
pub fn parse_cron(expr: &str) -> Result<Cron, String> {
    let expr = expr.trim();
    let fields = expr.split_whitespace().count();
    if !expr.starts_with('@') && fields != 5 {
        return Err(
            "cron requires five fields (minute hour day-of-month month day-of-week)".into(),
        );
    }
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
        .parse(expr)
        .map_err(|e| format!("invalid cron {expr:?}: {e}"))
}

/// The first run of `cron` strictly after `now` (whole minutes), within
/// [`HORIZON_YEARS`].
pub fn next_run(cron: &Cron, now: DateTime<Utc>, zone: &Zone) -> Result<DateTime<Utc>, String> {
    let never = || "cron has no occurrence in the next eight years".to_string();
    let local = now.with_timezone(zone);
    let next = cron
        .find_next_occurrence(&local, false)
        .map_err(|_| never())?
        .with_timezone(&Utc);
    if next > now + chrono::Duration::days(366 * HORIZON_YEARS) {
        return Err(never());
    }
    Ok(next)
}

/// One task.
#[derive(Debug, Clone)]
struct Task {
    session: String,
    cron_text: String,
    cron: Cron,
    message: String,
    zone: Zone,
    next: DateTime<Utc>,
    last_error: Option<String>,
}

/// A task that is due: its prompt goes into the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Due {
    /// Task id.
    pub id: String,
    /// The session it was made in.
    pub session: String,
    /// The prompt.
    pub message: String,
}

/// The process's scheduled tasks.
#[derive(Default)]
pub struct Engine {
    tasks: Mutex<BTreeMap<String, Task>>,
    current: Mutex<String>,
    changed: tokio::sync::Notify,
}

/// The process's engine.
pub fn engine() -> Arc<Engine> {
    static ENGINE: OnceLock<Arc<Engine>> = OnceLock::new();
    ENGINE.get_or_init(|| Arc::new(Engine::default())).clone()
}

/// Test-only environment variable: an RFC 3339 instant that the engine's
/// clock ([`now`]) reads at its first reading in the process, advancing in
/// real time from there. End-to-end tests set it a few seconds before a
/// minute so that "the next minute" is seconds away instead of up to a
/// minute of wall clock. Unset, empty or invalid: the system clock.
pub const TEST_CLOCK_ENV: &str = "ZUT_TEST_SCHEDULE_CLOCK";

/// The engine's clock: the system clock, shifted as [`TEST_CLOCK_ENV`]
/// says when set.
pub fn now() -> DateTime<Utc> {
    static OFFSET: OnceLock<chrono::Duration> = OnceLock::new();
    let real = Utc::now();
    let offset = *OFFSET.get_or_init(|| {
        let Some(value) = std::env::var(TEST_CLOCK_ENV).ok().filter(|v| !v.is_empty()) else {
            return chrono::Duration::zero();
        };
        match DateTime::parse_from_rfc3339(value.trim()) {
            Ok(start) => start.with_timezone(&Utc) - real,
            Err(e) => {
                tracing::warn!("{TEST_CLOCK_ENV}={value:?} ignored: {e}");
                chrono::Duration::zero()
            }
        }
    });
    real + offset
}

fn rfc3339(t: DateTime<Utc>, zone: &Zone) -> String {
    t.with_timezone(zone)
        .fixed_offset()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

impl Engine {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Task>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session the interactive conversation has open (tasks of other
    /// sessions do not fire into it).
    pub fn set_current(&self, session: &str) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = session.to_string();
    }

    /// See [`Engine::set_current`].
    pub fn current(&self) -> String {
        self.current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// `add`: the success text, or the error.
    pub fn add(
        &self,
        session: &str,
        cron_text: &str,
        message: &str,
        zone: Zone,
        now: DateTime<Utc>,
    ) -> Result<String, String> {
        let cron = parse_cron(cron_text)?;
        let next = next_run(&cron, now, &zone)?;
        let id = uuid::Uuid::new_v4().to_string();
        let text = format!(
            "scheduled {id} for {} ({})",
            rfc3339(next, &zone),
            zone.name()
        );
        self.lock().insert(
            id,
            Task {
                session: session.to_string(),
                cron_text: cron_text.trim().to_string(),
                cron,
                message: message.to_string(),
                zone,
                next,
                last_error: None,
            },
        );
        self.changed.notify_one();
        Ok(text)
    }

    /// `list`: this session's tasks by next run, then id.
    pub fn list(&self, session: &str) -> String {
        let tasks = self.lock();
        let mut mine: Vec<(&String, &Task)> =
            tasks.iter().filter(|(_, t)| t.session == session).collect();
        if mine.is_empty() {
            return "no scheduled tasks for this session".into();
        }
        mine.sort_by(|a, b| (a.1.next, a.0).cmp(&(b.1.next, b.0)));
        mine.iter()
            .map(|(id, t)| {
                let mut line = format!("{id}  {}  next {}", t.cron_text, rfc3339(t.next, &t.zone));
                if let Some(e) = &t.last_error {
                    line.push_str(&format!("  last error: {e}"));
                }
                line
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `cancel`.
    pub fn cancel(&self, session: &str, id: &str) -> Result<String, String> {
        let mut tasks = self.lock();
        if tasks.get(id).is_none_or(|t| t.session != session) {
            return Err("scheduled task not found in this session".into());
        }
        tasks.remove(id);
        self.changed.notify_one();
        Ok(format!("cancelled scheduled task {id}"))
    }

    /// The earliest next run.
    pub fn next_due(&self) -> Option<DateTime<Utc>> {
        self.lock().values().map(|t| t.next).min()
    }

    /// Tasks due at `now`, oldest first; each gets its next run from `now`
    /// (missed occurrences are skipped). A task of another session than
    /// the open one does not run: its `last error` says so. A task that no
    /// longer has an occurrence is dropped.
    pub fn take_due(&self, now: DateTime<Utc>) -> Vec<Due> {
        let current = self.current();
        let mut tasks = self.lock();
        let mut due: Vec<(DateTime<Utc>, Due)> = Vec::new();
        let mut finished = Vec::new();
        for (id, t) in tasks.iter_mut().filter(|(_, t)| t.next <= now) {
            if t.session == current {
                due.push((
                    t.next,
                    Due {
                        id: id.clone(),
                        session: t.session.clone(),
                        message: t.message.clone(),
                    },
                ));
                t.last_error = None;
            } else {
                t.last_error = Some("not run: its session is not the one open in zut".into());
            }
            match next_run(&t.cron, now, &t.zone) {
                Ok(next) => t.next = next,
                Err(_) => finished.push(id.clone()),
            }
        }
        for id in finished {
            tasks.remove(&id);
        }
        due.sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
        due.into_iter().map(|(_, d)| d).collect()
    }

    /// Fires due tasks through `fire` until the process ends: sleeps
    /// until the next run (or a change of the tasks).
    pub async fn run(self: Arc<Self>, mut fire: impl FnMut(Due) + Send) {
        loop {
            let wait = match self.next_due() {
                Some(t) => (t - now())
                    .to_std()
                    .unwrap_or_default()
                    // A sleeping machine: look again at least each minute.
                    .min(std::time::Duration::from_secs(60)),
                None => std::time::Duration::from_secs(3600),
            };
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = self.changed.notified() => continue,
            }
            for due in self.take_due(now()) {
                fire(due);
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    action: String,
    #[serde(default)]
    cron: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    id: String,
}

fn description() -> String {
    "Create, list, or cancel cron follow-ups for the current session. A task runs its message \
     as a prompt in this session when due (five-field cron in the machine's local time zone, \
     e.g. `0 9 * * 1-5`); tasks live only while this zut process stays open."
        .to_string()
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "list", "cancel"], "description": "add, list or cancel"},
            "cron": {"type": "string", "description": "Five-field cron expression (minute hour day-of-month month day-of-week), for add."},
            "message": {"type": "string", "description": "Prompt to run in this session when due, for add."},
            "id": {"type": "string", "description": "Task id, for cancel."}
        },
        "required": ["action"],
        "additionalProperties": false
    })
}

impl Agent {
    /// This conversation's session id for tasks (`""` without a file).
    fn schedule_session(&self) -> String {
        self.session
            .as_ref()
            .map(|s| s.writer().meta().id.clone())
            .unwrap_or_default()
    }

    /// Tells the engine which session the interactive conversation has
    /// open (after a resume, `/new`, a fork...).
    pub(crate) fn note_schedule_session(&self) {
        if self.config.builtin_tools.iter().any(|t| t == SCHEDULE_TOOL) {
            engine().set_current(&self.schedule_session());
        }
    }

    /// Adds the `schedule` tool when the enabled tools name it (the
    /// interactive mode), and tells the engine which session is open.
    pub(crate) fn add_schedule_tool(&mut self, tools: &mut Toolset) {
        if !self.config.builtin_tools.iter().any(|t| t == SCHEDULE_TOOL) {
            return;
        }
        self.note_schedule_session();
        tools.push(ToolEntry {
            name: SCHEDULE_TOOL.to_string(),
            description: description(),
            schema: schema().into(),
            owner: ToolOwner::Builtin,
            deferred: false,
        });
    }

    /// Runs a `schedule` call.
    pub(crate) fn run_schedule_tool(&mut self, args: &Value) -> (bool, Vec<Part>) {
        let result = self.schedule_call(args);
        let (is_error, text) = match result {
            Ok(t) => (false, t),
            Err(e) => (true, e),
        };
        (is_error, vec![Part::Text { text }])
    }

    fn schedule_call(&mut self, args: &Value) -> Result<String, String> {
        if !self.config.builtin_tools.iter().any(|t| t == SCHEDULE_TOOL) {
            return Err("scheduler is unavailable".into());
        }
        let raw: RawSchedule =
            serde_json::from_value(args.clone()).map_err(|_| "invalid arguments".to_string())?;
        let session = self.schedule_session();
        let engine = engine();
        match raw.action.trim() {
            "add" => {
                let (cron, message) = (raw.cron.trim(), raw.message.trim());
                if cron.is_empty() || message.is_empty() {
                    return Err("cron and message are required when adding a task".into());
                }
                engine.add(&session, cron, message, Zone::system(), now())
            }
            "list" => Ok(engine.list(&session)),
            "cancel" => {
                let id = raw.id.trim();
                if id.is_empty() {
                    return Err("id is required when cancelling a task".into());
                }
                engine.cancel(&session, id)
            }
            _ => Err("action must be add, list, or cancel".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn parse_errors_and_never_firing() {
        assert_eq!(
            parse_cron("* * *").unwrap_err(),
            "cron requires five fields (minute hour day-of-month month day-of-week)"
        );
        assert!(parse_cron("0 0 * * * *").is_err());
        assert!(parse_cron("61 * * * *")
            .unwrap_err()
            .starts_with("invalid cron"));
        assert!(parse_cron("@daily").is_ok());
        let zone = Zone::named("UTC").unwrap();
        let feb30 = parse_cron("0 0 30 2 *").unwrap();
        let started = std::time::Instant::now();
        assert_eq!(
            next_run(&feb30, utc("2026-12-06T01:00:00Z"), &zone).unwrap_err(),
            "cron has no occurrence in the next eight years"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn next_run_uses_the_captured_zone_and_the_or_rule() {
        let paris = Zone::named("Europe/Paris").unwrap();
        let c = parse_cron("0 9 * * 1-5").unwrap();
        // Sunday 2026-12-06 01:00 UTC: next is Monday 09:00 Paris = 08:00 UTC.
        let next = next_run(&c, utc("2026-12-06T01:00:00Z"), &paris).unwrap();
        assert_eq!(next, utc("2026-12-07T08:00:00Z"));
        assert_eq!(rfc3339(next, &paris), "2026-12-07T09:00:00+01:00");
        // Day of month 1 OR Friday.
        let c = parse_cron("0 0 1 * 5").unwrap();
        let utc0 = Zone::named("UTC").unwrap();
        let next = next_run(&c, utc("2026-12-06T01:00:00Z"), &utc0).unwrap();
        assert_eq!(next, utc("2026-12-11T00:00:00Z"));
        // Strictly after now.
        let c = parse_cron("* * * * *").unwrap();
        let next = next_run(&c, utc("2026-12-06T01:00:00Z"), &utc0).unwrap();
        assert_eq!(next, utc("2026-12-06T01:01:00Z"));
    }

    /// Figures for docs/benchmarks.md: `cargo test -p zut-agent --lib
    /// schedule::tests::next_run_figures -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn next_run_figures() {
        let zone = Zone::named("Europe/Paris").unwrap();
        let now = utc("2026-12-06T01:00:00Z");
        for expr in ["* * * * *", "0 9 * * 1-5", "0 0 29 2 *", "0 0 30 2 *"] {
            let c = parse_cron(expr).unwrap();
            let n = 200;
            let t = std::time::Instant::now();
            let mut last = None;
            for _ in 0..n {
                last = Some(next_run(&c, now, &zone));
            }
            let per = t.elapsed() / n;
            println!("{expr:<12} {per:?} per next_run -> {:?}", last.unwrap());
        }
    }

    #[test]
    fn add_list_cancel_and_due() {
        let e = Engine::default();
        e.set_current("s1");
        let zone = Zone::named("UTC").unwrap();
        let now = utc("2026-12-06T01:00:30Z");
        let text = e.add("s1", "* * * * *", "ping", zone.clone(), now).unwrap();
        assert!(
            text.ends_with(" for 2026-12-06T01:01:00+00:00 (UTC)"),
            "{text}"
        );
        let id = text.split(' ').nth(1).unwrap().to_string();
        e.add("s2", "0 * * * *", "other", zone, now).unwrap();
        assert_eq!(
            e.list("s1"),
            format!("{id}  * * * * *  next 2026-12-06T01:01:00+00:00")
        );
        assert_eq!(e.list("s3"), "no scheduled tasks for this session");
        assert!(e.take_due(now).is_empty());
        let due = e.take_due(utc("2026-12-06T01:05:10Z"));
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].message, "ping");
        // Missed minutes are skipped: the next run is after "now".
        assert!(e.list("s1").contains("next 2026-12-06T01:06:00+00:00"));
        // The other session's task did not fire into this one.
        let due = e.take_due(utc("2026-12-06T02:00:00Z"));
        assert_eq!(due.len(), 1);
        assert!(
            e.list("s2").contains("last error: not run"),
            "{}",
            e.list("s2")
        );
        assert_eq!(
            e.cancel("s2", &id).unwrap_err(),
            "scheduled task not found in this session"
        );
        assert_eq!(
            e.cancel("s1", &id).unwrap(),
            format!("cancelled scheduled task {id}")
        );
        assert_eq!(e.list("s1"), "no scheduled tasks for this session");
    }
}
