//! `/web [on|off]` for every front end: the public-web tools (`web_search`,
//! `web_open`, `web_find`, `web_click`, one set) turned on or off from the
//! next prompt on, and the choice saved as `web_search_enabled` in
//! `$ZUT_HOME/config.json` (the Go original's persisted toggle). Turning
//! them off drops the session's `web-N` references at the next prompt.

use std::path::Path;

use serde_json::Value;

use super::Controller;

impl Controller {
    /// Whether the web tools are offered from the next prompt on.
    pub fn web_tools(&self) -> bool {
        let st = self.shared.lock();
        st.pending.web_tools.unwrap_or(st.web_tools)
    }

    /// Turns the web tools on or off from the next prompt on and saves the
    /// choice in config.json; the confirmation text, or why it was not
    /// saved (the change still applies to this conversation).
    pub fn set_web_tools(&self, on: bool) -> Result<String, String> {
        {
            let mut st = self.shared.lock();
            st.pending.web_tools = Some(on);
        }
        self.shared.wake.notify_one();
        let state = if on { "on" } else { "off" };
        let path = self.shared.agent_config.system.zut_home.join("config.json");
        save_web_search_enabled(&path, on)
            .map_err(|e| format!("web tools {state} for this conversation, but not saved: {e}"))?;
        Ok(format!(
            "web tools {state} (web_search, web_open, web_find, web_click); saved as web_search_enabled in {}",
            path.display()
        ))
    }

    /// `/web`, `/web on`, `/web off`.
    pub(super) fn web_command(&self, args: &str) -> Result<String, String> {
        match args.trim().to_ascii_lowercase().as_str() {
            "" => Ok(format!(
                "web tools {} (/web on, /web off; saved in config.json)",
                if self.web_tools() { "on" } else { "off" }
            )),
            "on" => self.set_web_tools(true),
            "off" => self.set_web_tools(false),
            other => Err(format!("/web takes on or off (got {other:?})")),
        }
    }
}

/// Writes `web_search_enabled: on` into `config` (other keys kept; created
/// when missing; written to a temporary file, then renamed).
fn save_web_search_enabled(config: &Path, on: bool) -> Result<(), String> {
    let mut json = match std::fs::read_to_string(config) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err(format!("{}: not a JSON object", config.display())),
            Err(e) => return Err(format!("{}:{}: {e}", config.display(), e.line())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::Map::new(),
        Err(e) => return Err(format!("{}: {e}", config.display())),
    };
    json.insert("web_search_enabled".into(), Value::Bool(on));
    let text = serde_json::to_string_pretty(&Value::Object(json))
        .map_err(|e| format!("{}: {e}", config.display()))?
        + "\n";
    if let Some(dir) = config.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let tmp = config.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, config))
        .map_err(|e| format!("{}: {e}", config.display()))
}
