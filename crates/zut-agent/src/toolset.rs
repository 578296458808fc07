//! The tools offered to the model: enabled built-ins, then extension tools
//! (protocol.md §8.1), with argument validation for both.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use zut_ext_host::ExtensionHost;
use zut_providers::ToolSpec;

/// Where a tool call goes.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOwner {
    /// A built-in tool of `zut-tools`.
    Builtin,
    /// An extension tool, owned by this extension (manifest name).
    Extension(String),
    /// The `skill` tool (`crate::skills`).
    Skill,
    /// A tool of this MCP server (`""`: zut's MCP search or resource tool),
    /// see `crate::mcp_tools`.
    Mcp(String),
    /// The `subagent` tool (`crate::subagent::tool`).
    Subagent,
}

/// One tool as the loop sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEntry {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Input schema (shared with every snapshot and request that offers
    /// the tool).
    pub schema: Arc<Value>,
    /// Owner.
    pub owner: ToolOwner,
    /// Extension tool registered with `deferred:true`.
    pub deferred: bool,
}

/// A snapshot of the tool registry for one model call.
#[derive(Debug, Clone, Default)]
pub struct Toolset {
    entries: Vec<ToolEntry>,
}

impl Toolset {
    /// Enabled built-ins (in `zut-tools` order) followed by the host's
    /// extension tools (sorted by name). Extension tools never shadow an
    /// enabled built-in: the host registry already refuses those names.
    pub fn snapshot(builtins: &[String], host: Option<&ExtensionHost>) -> Self {
        Self::snapshot_with_skill_tool(builtins, host, false)
    }

    /// Like [`Toolset::snapshot`], with the `skill` tool after the
    /// built-ins when `skill_tool` is set (an extension tool of that name is
    /// then shadowed).
    pub fn snapshot_with_skill_tool(
        builtins: &[String],
        host: Option<&ExtensionHost>,
        skill_tool: bool,
    ) -> Self {
        let mut entries: Vec<ToolEntry> = builtin_defs()
            .iter()
            .filter(|t| builtins.contains(&t.name))
            .cloned()
            .collect();
        if skill_tool {
            entries.push(ToolEntry {
                name: crate::skills::SKILL_TOOL.to_string(),
                description: crate::skills::SKILL_TOOL_DESCRIPTION.to_string(),
                schema: crate::skills::skill_tool_schema().into(),
                owner: ToolOwner::Skill,
                deferred: false,
            });
        }
        if let Some(host) = host {
            for t in host.tools() {
                if entries.iter().any(|e| e.name == t.name) {
                    continue;
                }
                entries.push(ToolEntry {
                    name: t.name,
                    description: t.description,
                    schema: t.schema.into(),
                    owner: ToolOwner::Extension(t.extension),
                    deferred: t.deferred,
                });
            }
        }
        Self { entries }
    }

    /// Keeps the entries for which `keep` is true.
    pub fn retain(&mut self, keep: impl FnMut(&ToolEntry) -> bool) {
        self.entries.retain(keep);
    }

    /// Appends `entry` unless a tool of that name exists (MCP tools never
    /// shadow built-ins or extension tools).
    pub fn push(&mut self, entry: ToolEntry) {
        if !self.contains(&entry.name) {
            self.entries.push(entry);
        }
    }

    /// The tool named `name`, whether offered or not.
    pub fn get(&self, name: &str) -> Option<&ToolEntry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// Whether a tool of that name exists (deferred ones included).
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Definitions sent to the provider: every tool except deferred ones
    /// that were not activated.
    pub fn specs(&self, activated: &BTreeSet<String>) -> Vec<ToolSpec> {
        self.entries
            .iter()
            .filter(|e| !e.deferred || activated.contains(&e.name))
            .map(|e| ToolSpec {
                name: e.name.clone(),
                description: e.description.clone(),
                input_schema: schema_for_provider(&e.schema),
                activated_after: None,
            })
            .collect()
    }

    /// [`Toolset::specs`], with each activated deferred tool's
    /// `activated_after` set to the message holding the result of the call
    /// that activated it (`activation_calls`: tool name → call id), when
    /// that message is still in `messages`.
    pub fn specs_placed(
        &self,
        activated: &BTreeSet<String>,
        activation_calls: &HashMap<String, String>,
        messages: &[zut_providers::Message],
    ) -> Vec<ToolSpec> {
        let mut specs = self.specs(activated);
        for spec in &mut specs {
            let deferred = self.get(&spec.name).is_some_and(|e| e.deferred);
            let Some(call_id) = activation_calls.get(&spec.name).filter(|_| deferred) else {
                continue;
            };
            spec.activated_after = messages.iter().position(|m| {
                m.content.iter().any(|p| {
                    matches!(p, zut_providers::Part::ToolResult { call_id: c, .. } if c == call_id)
                })
            });
        }
        specs
    }

    /// (name, description) pairs for the system prompt: non-deferred tools.
    pub fn summary(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter(|e| !e.deferred)
            .map(|e| (e.name.clone(), e.description.clone()))
            .collect()
    }
}

/// Providers require an object schema; an extension's absent (null) schema
/// becomes an empty object schema.
fn schema_for_provider(schema: &Arc<Value>) -> Arc<Value> {
    if schema.is_object() {
        Arc::clone(schema)
    } else {
        Arc::new(serde_json::json!({"type": "object", "properties": {}}))
    }
}

/// The built-in tools of `zut-tools` and `zut-web` as entries, built once
/// per process: their definitions are constants, and every model call's
/// snapshot shares their schemas instead of building them again.
fn builtin_defs() -> &'static [ToolEntry] {
    static DEFS: OnceLock<Vec<ToolEntry>> = OnceLock::new();
    DEFS.get_or_init(|| {
        zut_tools::builtin_tools()
            .into_iter()
            .chain(zut_web::tool_defs())
            .map(|t| ToolEntry {
                name: t.name.to_string(),
                description: t.description,
                schema: Arc::new(t.schema),
                owner: ToolOwner::Builtin,
                deferred: false,
            })
            .collect()
    })
}

/// Compiled argument validators, cached by tool name and schema.
#[derive(Default)]
pub struct Validators {
    cache: HashMap<String, (Arc<Value>, Result<zut_tools::ArgValidator, String>)>,
}

impl Validators {
    /// Checks `args` against `entry`'s schema. An extension tool without a
    /// schema accepts any object.
    pub fn check(&mut self, entry: &ToolEntry, args: &Value) -> Result<(), String> {
        if entry.schema.is_null() {
            return if args.is_object() {
                Ok(())
            } else {
                Err("arguments must be a JSON object".into())
            };
        }
        let stale = match self.cache.get(&entry.name) {
            Some((schema, _)) => !Arc::ptr_eq(schema, &entry.schema) && schema != &entry.schema,
            None => true,
        };
        if stale {
            let compiled = zut_tools::ArgValidator::new(&entry.schema);
            self.cache
                .insert(entry.name.clone(), (entry.schema.clone(), compiled));
        }
        match self.cache.get(&entry.name) {
            Some((_, Ok(v))) => v.validate(args),
            Some((_, Err(e))) => Err(format!("the tool's input schema is invalid: {e}")),
            None => Ok(()),
        }
    }
}

impl Toolset {
    /// Names of the offered (non-deferred) tools, for "unknown tool" errors.
    pub fn summary_names(&self) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| !e.deferred)
            .map(|e| e.name.as_str())
            .collect()
    }
}
