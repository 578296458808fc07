//! Names, descriptions and JSON Schemas of the built-in tools.

use serde_json::{json, Value};

use crate::limits::*;

/// Names of the built-in tools, in the order [`builtin_tools`] lists them.
pub const BUILTIN_NAMES: [&str; 12] = [
    "read",
    "write",
    "edit",
    "bash",
    "grep",
    "glob",
    "ast",
    "python",
    "worktree",
    "lsp",
    "plan",
    "update_goal",
];

/// Built-in tools that keep conversation state (`plan`, `update_goal`):
/// they are listed here with their schemas but run by the agent, so a
/// host without a conversation (`zut mcp serve`) does not offer them.
pub const SESSION_TOOLS: [&str; 2] = ["plan", "update_goal"];

/// A tool definition as offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// Tool name (one of [`BUILTIN_NAMES`]).
    pub name: &'static str,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema (draft 2020-12 compatible, `type: object`) of the
    /// arguments; what [`crate::run_builtin`] validates against.
    pub schema: Value,
}

/// All built-in tools in stable order ([`BUILTIN_NAMES`]).
pub fn builtin_tools() -> Vec<ToolDef> {
    BUILTIN_NAMES
        .iter()
        .filter_map(|name| builtin_tool(name))
        .collect()
}

/// The definition of one built-in tool, or `None` for other names.
pub fn builtin_tool(name: &str) -> Option<ToolDef> {
    let (name, description, schema) = match name {
        "read" => ("read", read_description(), read_schema()),
        "write" => ("write", write_description(), write_schema()),
        "edit" => ("edit", edit_description(), edit_schema()),
        "bash" => ("bash", bash_description(), bash_schema()),
        "grep" => ("grep", grep_description(), grep_schema()),
        "glob" => ("glob", glob_description(), glob_schema()),
        "ast" => ("ast", ast_description(), ast_schema()),
        "python" => ("python", python_description(), python_schema()),
        "worktree" => ("worktree", worktree_description(), worktree_schema()),
        "lsp" => ("lsp", lsp_description(), lsp_schema()),
        "plan" => ("plan", plan_description(), plan_schema()),
        "update_goal" => ("update_goal", goal_description(), goal_schema()),
        _ => return None,
    };
    Some(ToolDef {
        name,
        description,
        schema,
    })
}

/// An object schema with these `properties`, the `required` ones listed,
/// and no other property allowed.
fn object(required: &[&str], properties: Value) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

fn read_description() -> String {
    format!(
        "Read a file. Text is returned with 1-based line numbers (cat -n style; the number \
         and tab are not part of the file). By default up to {READ_DEFAULT_LINES} lines or \
         {} KiB are returned; use `offset` (first line, 1-based) and `limit` (number of lines) \
         to read other parts of large files. Lines longer than {READ_MAX_LINE_CHARS} characters \
         are cut. PNG, JPEG, GIF and WebP images are returned as images. Binary files are refused.",
        READ_MAX_BYTES / 1024
    )
}

fn read_schema() -> Value {
    object(
        &["path"],
        json!({
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "File to read, absolute or relative to the working directory."
            },
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "1-based line number to start reading from (default 1)."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": format!("Maximum number of lines to return (default {READ_DEFAULT_LINES}).")
            }
        }),
    )
}

fn write_description() -> String {
    "Write a file, replacing it completely if it exists. Parent directories are created. \
     Prefer `edit` for changing part of an existing file."
        .to_string()
}

fn write_schema() -> Value {
    object(
        &["path", "content"],
        json!({
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "File to write, absolute or relative to the working directory."
            },
            "content": {
                "type": "string",
                "description": "The complete new content of the file."
            }
        }),
    )
}

fn edit_description() -> String {
    "Apply exact text substitutions to an existing file. Read the file first and copy each \
     `oldText` verbatim from it (indentation and line breaks included, without the line-number \
     prefix `read` shows), with enough surrounding text to match exactly one location. All \
     edits are matched against the file as it was before this call, must not overlap, and are \
     applied together or not at all. Returns a unified diff. Use `write` to replace most of a file."
        .to_string()
}

fn edit_schema() -> Value {
    object(
        &["path", "edits"],
        json!({
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "File to modify, absolute or relative to the working directory."
            },
            "edits": {
                "type": "array",
                "minItems": 1,
                "description": "Non-overlapping substitutions, each located in the file as it was before this call.",
                "items": object(
                    &["oldText", "newText"],
                    json!({
                        "oldText": {
                            "type": "string",
                            "minLength": 1,
                            "description": "Verbatim excerpt of the current file that occurs exactly once."
                        },
                        "newText": {
                            "type": "string",
                            "description": "Replacement for oldText (may be empty to delete it)."
                        }
                    }),
                )
            }
        }),
    )
}

fn bash_description() -> String {
    format!(
        "Run a shell command with `bash -c` (POSIX `sh -c` when bash is missing) in the working \
         directory. stdin is empty (/dev/null); stdout and stderr are captured together. \
         `timeout` (seconds, 1 to {BASH_MAX_TIMEOUT_SECS}) is required: when it expires the \
         command and every process it started are killed. Output longer than {} KiB keeps its \
         first {} KiB and last {} KiB. A non-zero exit code marks the result as an error. To \
         leave a process running in the background, redirect its output to a file \
         (e.g. `nohup cmd > log 2>&1 &`).",
        (BASH_HEAD_BYTES + BASH_TAIL_BYTES) / 1024,
        BASH_HEAD_BYTES / 1024,
        BASH_TAIL_BYTES / 1024
    )
}

fn bash_schema() -> Value {
    object(
        &["command", "timeout"],
        json!({
            "command": {
                "type": "string",
                "minLength": 1,
                "description": "The command line to run."
            },
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "maximum": BASH_MAX_TIMEOUT_SECS,
                "description": format!("Maximum run time in seconds (1 to {BASH_MAX_TIMEOUT_SECS}); the command's whole process group is killed when it expires.")
            }
        }),
    )
}

fn grep_description() -> String {
    format!(
        "Search file contents with a regular expression (Rust regex syntax, like ripgrep). \
         Directories are searched recursively, skipping hidden files and anything ignored by \
         .gitignore/.ignore; binary files are skipped. Results are `path:line:text`. At most \
         `max_results` matches (default {GREP_DEFAULT_MAX_RESULTS}, up to {GREP_MAX_RESULTS}) \
         or {} KiB are returned.",
        GREP_MAX_BYTES / 1024
    )
}

fn grep_schema() -> Value {
    object(
        &["pattern"],
        json!({
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "Regular expression to search for (a literal string when `literal` is true)."
            },
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "File or directory to search (default: the working directory)."
            },
            "glob": {
                "type": "string",
                "minLength": 1,
                "description": "Only search files matching this glob, e.g. `*.rs` or `src/**/*.{ts,tsx}`. Without a `/` it matches file names; with one, paths relative to `path`."
            },
            "ignore_case": {
                "type": "boolean",
                "description": "Match case-insensitively (default false)."
            },
            "literal": {
                "type": "boolean",
                "description": "Treat `pattern` as a literal string, not a regex (default false)."
            },
            "hidden": {
                "type": "boolean",
                "description": "Also search hidden files and directories (default false). .gitignore is still respected."
            },
            "max_results": {
                "type": "integer",
                "minimum": 1,
                "maximum": GREP_MAX_RESULTS,
                "description": format!("Maximum number of matching lines to return (default {GREP_DEFAULT_MAX_RESULTS}).")
            }
        }),
    )
}

fn glob_description() -> String {
    format!(
        "Find files by glob pattern (e.g. \"**/*.go\", \"*.json\", \"src/**/*.ts\"). A pattern \
         with a `/` matches paths relative to `path`; one without matches file names. `*` and \
         `?` stay within one directory, `**/` spans directories, `[abc]`/`[!abc]` are classes \
         and `{{a,b}}` alternatives. Honours .gitignore; hidden files only with `hidden`; \
         symlinked directories are not followed. Returns up to {GLOB_MAX_MATCHES} sorted paths."
    )
}

fn glob_schema() -> Value {
    object(
        &["pattern"],
        json!({
            "pattern": {
                "type": "string",
                "description": "Glob pattern to match files against (e.g. \"**/*.go\", \"*.json\", \"src/**/*.ts\")"
            },
            "path": {
                "type": "string",
                "description": "Directory to search within, relative to CWD (defaults to \".\")"
            },
            "hidden": {
                "type": "boolean",
                "description": "Whether to include hidden files and directories (default false)"
            }
        }),
    )
}

fn ast_description() -> String {
    "Structural code search and rewrite with ast-grep patterns; prefer it over grep/edit when \
     the shape of code matters. The pattern is code in the target language where $NAME matches \
     one node and $$$NAME zero or more, e.g. `fmt.Errorf($MSG, $$$REST)`, \
     `func ($R *$T) $M($$$A) $$$RET { $$$ }`, `if err != nil { $$$ }`, `console.log($$$)`, \
     `def $F($$$A): $$$B`. Search returns `path:line: source` per match. With `rewrite` every \
     match is replaced by the template (captured $NAME/$$$NAME reused, e.g. pattern \
     `oldFn($$$A)` with rewrite `newFn($$$A)`) and the result is a unified diff. `language` \
     (rust, python, typescript, tsx, javascript, go, java, c, cpp, csharp, ruby, bash, json, \
     yaml, html, css, kotlin, swift, lua, php, scala built in) is inferred per file when \
     omitted. Use grep for plain text, comments and strings."
        .to_string()
}

fn ast_schema() -> Value {
    object(
        &["pattern", "path"],
        json!({
            "pattern": {
                "type": "string",
                "description": "ast-grep pattern: code in the target language; $NAME matches one node, $$$NAME zero or more nodes."
            },
            "language": {
                "type": "string",
                "description": "ast-grep language id (go, rust, python, typescript, tsx, javascript, ...); omitted: inferred from each file's extension."
            },
            "path": {
                "type": "string",
                "description": "File or directory to search, relative to CWD or absolute."
            },
            "rewrite": {
                "type": "string",
                "description": "Replacement reusing the captured metavariables; when present every match is rewritten and the diff returned."
            }
        }),
    )
}

fn python_description() -> String {
    "Run inline Python 3 code with an existing interpreter: a fresh, stateless process in the \
     session directory, code on stdin (stdin is otherwise empty), stdout and stderr merged. \
     Never installs Python or packages. Output is cut at 50 KiB / 2,000 lines (the full output \
     is saved to a file whose path is given). Save reusable scripts with write/edit."
        .to_string()
}

fn python_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "Inline Python 3 source, run from stdin (no interactive input: stdin is at end-of-file). Save reusable scripts with write/edit instead."
            },
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "maximum": PYTHON_MAX_TIMEOUT_SECS,
                "description": "Maximum run time in seconds, interpreter discovery included; the process and its children are killed when it expires."
            }
        },
        "required": ["code", "timeout"]
    })
}

fn worktree_description() -> String {
    "Manage git worktrees of the current repository. action=create makes a new branch at HEAD \
     checked out in a new worktree outside the repository; action=list shows every worktree \
     and whether it can be removed; action=cleanup removes worktrees named by their exact \
     paths, only when they are not the main worktree, are on a branch merged into the \
     current branch, and have no uncommitted, untracked or ignored files (branches are kept)."
        .to_string()
}

fn worktree_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["create", "list", "cleanup"],
                "description": "create: new branch worktree; list: inventory with cleanup status; cleanup: remove the named safe worktrees."
            },
            "branch": {
                "type": "string",
                "description": "New branch name (create)."
            },
            "paths": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Exact registered worktree paths to remove (cleanup)."
            }
        },
        "required": ["action"]
    })
}

fn lsp_description() -> String {
    "Query configured language servers and linters for diagnostics, navigation, refactors, \
     symbols, capabilities, and raw LSP requests. Lines and columns are 1-based. `rename` \
     applies its edit by default and returns a diff; `code_actions` lists actions and applies \
     them only with `apply: true`."
        .to_string()
}

fn lsp_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["diagnostics", "definition", "references", "hover", "symbols", "rename",
                         "code_actions", "type_definition", "implementation", "status", "reload",
                         "capabilities", "request"]
            },
            "path": {"type": "string", "description": "File path relative to the workspace, required for document actions. For diagnostics it may be a glob, or `*` for the whole workspace."},
            "line": {"type": "integer", "minimum": 1, "description": "1-based line for a document action."},
            "column": {"type": "integer", "minimum": 1, "description": "1-based column for a document action."},
            "query": {"type": "string", "description": "Workspace symbol query; symbols uses document symbols when omitted."},
            "new_name": {"type": "string", "description": "New identifier for rename."},
            "server": {"type": "string", "description": "Optional server id for request or capabilities."},
            "method": {"type": "string", "description": "Raw LSP method for request."},
            "params": {"type": "object", "description": "Raw JSON-RPC params for request."},
            "apply": {"type": "boolean", "description": "Apply a returned rename/code-action WorkspaceEdit. Only files inside the workspace are accepted."},
            "timeout_ms": {"type": "integer", "minimum": 1, "description": "Request budget in milliseconds (default 30000, at most 120000)."},
            "max": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Most diagnostics listed (default and maximum 50)."},
            "run_cli": {"type": "boolean", "description": "Run configured CLI linters for diagnostics (default true)."}
        },
        "required": ["action"]
    })
}

fn plan_description() -> String {
    format!(
        "Keep the session's task checklist (persisted with the session, shown to the user). \
         Actions: `set` replaces every step, `add` appends steps, `update` changes one step's \
         `status` and/or text by 1-based `index`, `remove` deletes one step, `clear` removes \
         them all, `show` lists them. Statuses: pending, in_progress, completed; several steps \
         may be in progress at once. Prefer add/update/remove over re-sending the whole list \
         with `set`. At most {PLAN_MAX_STEPS} steps of at most {PLAN_MAX_STEP_CHARS} characters."
    )
}

fn plan_schema() -> Value {
    let status = json!({
        "type": "string",
        "enum": ["pending", "in_progress", "completed"]
    });
    object(
        &["action"],
        json!({
            "action": {
                "type": "string",
                "enum": ["set", "add", "update", "remove", "clear", "show"],
                "description": "set: replace all steps; add: append steps; update: change one step; remove: delete one step; clear: remove every step; show: list the plan."
            },
            "explanation": {
                "type": "string",
                "description": "Optional note about this change."
            },
            "steps": {
                "type": "array",
                "description": "Steps for set and add (status defaults to pending).",
                "items": object(
                    &["step"],
                    json!({
                        "step": {"type": "string"},
                        "status": status.clone()
                    }),
                )
            },
            "index": {
                "type": "integer",
                "minimum": 1,
                "description": "1-based step position for update and remove."
            },
            "status": {
                "type": "string",
                "enum": ["pending", "in_progress", "completed"],
                "description": "New status for update."
            },
            "step": {
                "type": "string",
                "description": "New text for update."
            }
        }),
    )
}

fn goal_description() -> String {
    "Start your own mission when none is active, set the next concrete goal within an active \
     mission, mark the active goal complete or blocked, or supersede a goal that turned out \
     wrong with a corrected objective. Do not broaden an existing mission. While a goal is \
     active, zut keeps prompting you to continue until it is complete or blocked."
        .to_string()
}

fn goal_schema() -> Value {
    object(
        &["status"],
        json!({
            "status": {
                "type": "string",
                "enum": ["active", "complete", "blocked", "superseded"],
                "description": "Start a mission or set its next active goal, mark the active goal complete or blocked, or supersede it with a corrected objective."
            },
            "objective": {"type": "string", "description": "Concrete objective for status active or superseded."},
            "mission_id": {"type": "string", "description": "Identifier from the active-goal context when setting a next goal in an existing mission. Omit it when starting a mission."},
            "reason": {"type": "string", "description": "Concise reason when the goal is blocked."}
        }),
    )
}
