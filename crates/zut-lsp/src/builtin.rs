//! The built-in table of language servers and linters (tools.md §4.5),
//! as JSON objects in the `lsp.json` server shape so user and project
//! files merge onto them key by key.

use serde_json::{json, Value};

/// `(id, server object)` for every built-in provider, in id order.
pub fn builtin_servers() -> Vec<(&'static str, Value)> {
    let js = ["ts", "tsx", "js", "jsx", "mts", "cts", "mjs", "cjs"];
    vec![
        (
            "bash-language-server",
            json!({"command": "bash-language-server", "args": ["start"],
                   "fileTypes": ["sh", "bash", "zsh"], "rootMarkers": [".shellcheckrc"],
                   "languageId": "shellscript",
                   "install": "npm install -g bash-language-server"}),
        ),
        (
            "basedpyright",
            json!({"command": "basedpyright-langserver", "args": ["--stdio"], "fileTypes": ["py", "pyi"],
                   "rootMarkers": ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"],
                   "fallbackFor": "pyright-langserver",
                   "install": "pip install basedpyright"}),
        ),
        (
            "clangd",
            json!({"command": "clangd", "fileTypes": ["c", "h", "cc", "cpp", "cxx", "hpp"],
                   "rootMarkers": ["compile_commands.json", "compile_flags.txt", "CMakeLists.txt"],
                   "install": "apt-get install clangd (or your distribution's clangd package)"}),
        ),
        (
            "eslint",
            json!({"kind": "cli", "command": "eslint", "args": ["--format", "json"],
                   "parser": "eslint-json", "mode": "files", "isLinter": true, "fileTypes": js,
                   "rootMarkers": ["eslint.config.js", "eslint.config.cjs", "eslint.config.mjs", "eslint.config.ts",
                                   ".eslintrc", ".eslintrc.json", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yaml", ".eslintrc.yml"],
                   "install": "npm install --save-dev eslint"}),
        ),
        (
            "golangci-lint",
            json!({"kind": "cli", "command": "golangci-lint", "args": ["run", "--output.json.path", "stdout"],
                   "parser": "golangci-lint-json", "mode": "workspace", "isLinter": true, "fileTypes": ["go"],
                   "rootMarkers": [".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"],
                   "install": "go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@latest"}),
        ),
        (
            "gopls",
            json!({"command": "gopls", "fileTypes": ["go"], "rootMarkers": ["go.work", "go.mod"],
                   "install": "go install golang.org/x/tools/gopls@latest"}),
        ),
        (
            "pylsp",
            json!({"command": "pylsp", "fileTypes": ["py"],
                   "rootMarkers": ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"],
                   "fallbackFor": "pyright-langserver",
                   "install": "pip install python-lsp-server"}),
        ),
        (
            "pyright-langserver",
            json!({"command": "pyright-langserver", "args": ["--stdio"], "fileTypes": ["py"],
                   "rootMarkers": ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"],
                   "install": "npm install -g pyright (or pip install pyright)"}),
        ),
        (
            "ruff",
            json!({"kind": "cli", "command": "ruff", "args": ["check", "--output-format", "json"],
                   "parser": "ruff-json", "mode": "files", "isLinter": true, "fileTypes": ["py"],
                   "rootMarkers": ["ruff.toml", ".ruff.toml", "pyproject.toml"],
                   "install": "pip install ruff"}),
        ),
        (
            "rust-analyzer",
            json!({"command": "rust-analyzer", "fileTypes": ["rs"], "rootMarkers": ["Cargo.toml"],
                   "languageId": "rust",
                   "install": "rustup component add rust-analyzer"}),
        ),
        (
            "typescript-language-server",
            json!({"command": "typescript-language-server", "args": ["--stdio"], "fileTypes": js,
                   "rootMarkers": ["tsconfig.json", "jsconfig.json", "package.json"],
                   "install": "npm install -g typescript-language-server typescript"}),
        ),
        (
            "vscode-json-language-server",
            json!({"command": "vscode-json-language-server", "args": ["--stdio"], "fileTypes": ["json", "jsonc"],
                   "install": "npm install -g vscode-langservers-extracted"}),
        ),
        (
            "yaml-language-server",
            json!({"command": "yaml-language-server", "args": ["--stdio"], "fileTypes": ["yaml", "yml"],
                   "install": "npm install -g yaml-language-server"}),
        ),
    ]
}

/// The LSP language id of a file extension (without the dot).
pub fn language_id(ext: &str) -> &'static str {
    match ext {
        "rs" => "rust",
        "go" => "go",
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" => "cpp",
        "json" => "json",
        "jsonc" => "jsonc",
        "yaml" | "yml" => "yaml",
        "sh" | "bash" | "zsh" => "shellscript",
        _ => "plaintext",
    }
}
