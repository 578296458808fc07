//! Name slots for extension commands and tools.
//!
//! Conflicts are resolved deterministically by load order (the `--ext`
//! order, then project, then global, each sorted by directory name): when
//! two extensions register the same name, the one earlier in load order
//! owns it whatever the arrival order of their frames. Within one
//! extension, the first registration wins.

use std::collections::HashMap;

use serde_json::Value;

/// Tool names reserved even when the capability is unavailable.
pub const RESERVED_TOOL_NAMES: &[&str] = &[
    "web_search",
    "web_open",
    "web_find",
    "web_click",
    "grep",
    "ast",
    "python",
    "schedule",
    "update_goal",
    "update_plan",
    "plan",
];

/// Every built-in tool name of the Go original (seed and newer): `--tools`
/// accepts them all, and an extension tool cannot take any of them
/// (`zut ext test` checks registrations against this list).
pub const BUILTIN_TOOL_NAMES: &[&str] = &[
    "read",
    "write",
    "edit",
    "bash",
    "python",
    "worktree",
    "grep",
    "glob",
    "ast",
    "lsp",
    "web_search",
    "web_open",
    "web_find",
    "web_click",
    "schedule",
    "update_goal",
    "update_plan",
    "plan",
    "skill",
    "subagent",
];

/// A tool definition offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// Tool name.
    pub name: String,
    /// Description.
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    pub schema: Value,
    /// Not advertised until activated.
    pub deferred: bool,
    /// Manifest name of the owning extension.
    pub extension: String,
}

/// A command as listed for help and completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    /// Canonical spelling.
    pub name: String,
    /// Description.
    pub description: String,
    /// Manifest name of the owning extension.
    pub extension: String,
}

#[derive(Debug, Clone)]
pub(crate) struct CommandSlot {
    pub ext: usize,
    pub info: CommandInfo,
}

#[derive(Debug, Clone)]
pub(crate) struct ToolSlot {
    pub ext: usize,
    pub def: ToolDef,
    /// Registered after the extension was ready: not offered until the
    /// next rebuild.
    pub late: bool,
}

/// Outcome of one registration attempt, for the caller's diagnostics.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// The slot is ours.
    Won,
    /// The slot was ours already or another extension earlier in load
    /// order owns it; this registration is shadowed.
    Lost,
    /// We took the slot from `loser` (later in load order), whose
    /// registration was spelled `loser_name`.
    TookOver { loser: usize, loser_name: String },
    /// A built-in or reserved name; never ours.
    Builtin,
}

/// All live command and tool slots.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    commands: HashMap<String, CommandSlot>,
    tools: HashMap<String, ToolSlot>,
    /// Tool name -> extension that last owned it, for "no extension
    /// registered" errors after a crash.
    former_tool_owners: HashMap<String, String>,
    builtin_commands: Vec<String>,
    builtin_tools: Vec<String>,
}

impl Registry {
    pub fn new(builtin_commands: &[String], builtin_tools: &[String]) -> Self {
        Self {
            builtin_commands: builtin_commands.iter().map(|c| c.to_lowercase()).collect(),
            builtin_tools: builtin_tools.to_vec(),
            ..Self::default()
        }
    }

    pub fn claim_command(&mut self, ext: usize, info: CommandInfo) -> Claim {
        let key = info.name.to_lowercase();
        if self.builtin_commands.contains(&key) {
            return Claim::Builtin;
        }
        match self.commands.get(&key) {
            Some(slot) if slot.ext <= ext => Claim::Lost,
            Some(slot) => {
                let (loser, loser_name) = (slot.ext, slot.info.name.clone());
                self.commands.insert(key, CommandSlot { ext, info });
                Claim::TookOver { loser, loser_name }
            }
            None => {
                self.commands.insert(key, CommandSlot { ext, info });
                Claim::Won
            }
        }
    }

    pub fn claim_tool(&mut self, ext: usize, def: ToolDef, late: bool) -> Claim {
        if RESERVED_TOOL_NAMES.contains(&def.name.as_str())
            || self.builtin_tools.contains(&def.name)
        {
            return Claim::Builtin;
        }
        match self.tools.get(&def.name) {
            Some(slot) if slot.ext <= ext => Claim::Lost,
            Some(slot) => {
                let loser = slot.ext;
                let name = def.name.clone();
                self.tools.insert(name.clone(), ToolSlot { ext, def, late });
                Claim::TookOver {
                    loser,
                    loser_name: name,
                }
            }
            None => {
                let name = def.name.clone();
                self.tools.insert(name, ToolSlot { ext, def, late });
                Claim::Won
            }
        }
    }

    /// Whether `ext` owns command `name` with exactly this spelling.
    pub fn owns_command(&self, ext: usize, name: &str) -> bool {
        self.commands
            .get(&name.to_lowercase())
            .is_some_and(|s| s.ext == ext && s.info.name == name)
    }

    /// Whether `ext` owns tool `name`.
    pub fn owns_tool(&self, ext: usize, name: &str) -> bool {
        self.tools.get(name).is_some_and(|s| s.ext == ext)
    }

    pub fn command(&self, name: &str) -> Option<&CommandSlot> {
        self.commands.get(&name.to_lowercase())
    }

    pub fn tool(&self, name: &str) -> Option<&ToolSlot> {
        self.tools.get(name)
    }

    pub fn former_owner(&self, tool: &str) -> Option<&str> {
        self.former_tool_owners.get(tool).map(String::as_str)
    }

    /// Drops every slot of a disconnected extension.
    pub fn remove_extension(&mut self, ext: usize) {
        self.commands.retain(|_, s| s.ext != ext);
        let gone: Vec<(String, String)> = self
            .tools
            .iter()
            .filter(|(_, s)| s.ext == ext)
            .map(|(n, s)| (n.clone(), s.def.extension.clone()))
            .collect();
        for (name, owner) in gone {
            self.tools.remove(&name);
            self.former_tool_owners.insert(name, owner);
        }
    }

    /// Commands sorted case-insensitively.
    pub fn commands(&self) -> Vec<CommandInfo> {
        let mut out: Vec<CommandInfo> = self.commands.values().map(|s| s.info.clone()).collect();
        out.sort_by_key(|c| c.name.to_lowercase());
        out
    }

    /// Tools offered to the model (late registrations excluded), sorted by name.
    pub fn tools(&self) -> Vec<ToolDef> {
        let mut out: Vec<ToolDef> = self
            .tools
            .values()
            .filter(|s| !s.late)
            .map(|s| s.def.clone())
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// Offers late registrations from now on.
    pub fn rebuild(&mut self) {
        for slot in self.tools.values_mut() {
            slot.late = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(name: &str, ext: &str) -> CommandInfo {
        CommandInfo {
            name: name.into(),
            description: String::new(),
            extension: ext.into(),
        }
    }

    #[test]
    fn earlier_load_order_wins_whatever_the_arrival_order() {
        let mut r = Registry::new(&["help".into()], &["read".into()]);
        assert_eq!(r.claim_command(1, cmd("CaseTest", "b")), Claim::Won);
        assert_eq!(
            r.claim_command(0, cmd("casetest", "a")),
            Claim::TookOver {
                loser: 1,
                loser_name: "CaseTest".into()
            }
        );
        assert_eq!(r.claim_command(1, cmd("CASETEST", "b")), Claim::Lost);
        assert_eq!(r.command("CASETEST").unwrap().info.name, "casetest");
        assert_eq!(r.claim_command(0, cmd("casetest", "a")), Claim::Lost);
        assert_eq!(r.claim_command(0, cmd("HELP", "a")), Claim::Builtin);
    }

    #[test]
    fn reserved_and_builtin_tools_are_refused() {
        let mut r = Registry::new(&[], &["read".into()]);
        let def = |n: &str| ToolDef {
            name: n.into(),
            description: String::new(),
            schema: Value::Null,
            deferred: false,
            extension: "x".into(),
        };
        assert_eq!(r.claim_tool(0, def("grep"), false), Claim::Builtin);
        assert_eq!(r.claim_tool(0, def("read"), false), Claim::Builtin);
        assert_eq!(r.claim_tool(0, def("plan"), false), Claim::Builtin);
        assert_eq!(r.claim_tool(0, def("update_plan"), false), Claim::Builtin);
        assert_eq!(r.claim_tool(0, def("bash"), false), Claim::Won);
        r.remove_extension(0);
        assert!(r.tool("bash").is_none());
        assert_eq!(r.former_owner("bash"), Some("x"));
    }
}
