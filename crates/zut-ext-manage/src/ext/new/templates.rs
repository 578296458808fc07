//! The files `zut ext new` writes, per language. Sources live in
//! `templates/<lang>/` with `{{name}}`, `{{tool}}` and `{{sdk_path}}`
//! placeholders; the Python and TypeScript SDKs are vendored from `sdk/`
//! (built into the binary), so a new extension runs without installing
//! anything.

use super::args::Lang;

/// One file to write, relative to the extension directory.
pub struct File {
    /// Relative path.
    pub path: String,
    /// Contents.
    pub contents: String,
    /// Mode 0755.
    pub executable: bool,
}

macro_rules! sdk_file {
    ($dir:literal, $name:literal) => {
        (
            $name,
            include_str!(concat!("../../../../../sdk/", $dir, "/", $name)),
        )
    };
}

/// `(path, source)` of a template file under `templates/<lang>/`.
macro_rules! template {
    ($lang:literal, $path:literal) => {
        (
            $path,
            include_str!(concat!("templates/", $lang, "/", $path)),
        )
    };
}

const PYTHON_SDK: &[(&str, &str)] = &[
    sdk_file!("python/zut_ext", "__init__.py"),
    sdk_file!("python/zut_ext", "_runtime.py"),
    sdk_file!("python/zut_ext", "errors.py"),
    sdk_file!("python/zut_ext", "extension.py"),
    sdk_file!("python/zut_ext", "frames.py"),
    sdk_file!("python/zut_ext", "host_info.py"),
    sdk_file!("python/zut_ext", "py.typed"),
    sdk_file!("python/zut_ext", "results.py"),
];

/// The TypeScript SDK as vendored in `zut-ext/`: the single-file bundle
/// (`sdk/typescript/bundle/zut-ext.js`, one module for Node to load instead
/// of six) as `index.js`, beside the type declarations of `dist/` (which
/// `index.d.ts` ties together for `// @ts-check`).
const TYPESCRIPT_SDK: &[(&str, &str)] = &[
    sdk_file!("typescript/dist", "errors.d.ts"),
    sdk_file!("typescript/dist", "extension.d.ts"),
    sdk_file!("typescript/dist", "frames.d.ts"),
    sdk_file!("typescript/dist", "index.d.ts"),
    (
        "index.js",
        include_str!("../../../../../sdk/typescript/bundle/zut-ext.js"),
    ),
    sdk_file!("typescript/dist", "lines.d.ts"),
    sdk_file!("typescript/dist", "results.d.ts"),
];

/// The tool every template registers: `<name>_echo` in snake case.
pub fn tool_name(name: &str) -> String {
    format!("{}_echo", name.to_ascii_lowercase().replace('-', "_"))
}

/// Where the Rust template finds `zut-ext-sdk`: this source tree's copy.
fn rust_sdk_path() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../zut-ext-sdk");
    path.canonicalize().unwrap_or(path).display().to_string()
}

fn fill(template: &str, name: &str) -> String {
    template
        .replace("{{name}}", name)
        .replace("{{tool}}", &tool_name(name))
        .replace("{{sdk_path}}", &rust_sdk_path().replace('\\', "/"))
}

fn file(path: &str, contents: String) -> File {
    File {
        path: path.to_string(),
        contents,
        executable: false,
    }
}

fn manifest(name: &str, exec: &str, args: &[&str], language: &str) -> File {
    let mut m = serde_json::json!({
        "name": name,
        "version": "0.1.0",
        "description": format!("{name}: a zut extension"),
        "exec": exec,
        "language": language,
        "enabled": true,
    });
    if !args.is_empty() {
        m["args"] = serde_json::json!(args);
    }
    let text = serde_json::to_string_pretty(&m).unwrap_or_default() + "\n";
    file("extension.json", text)
}

/// Every file of a new `lang` extension named `name`.
pub fn files(lang: Lang, name: &str) -> Vec<File> {
    let filled = |sources: &[(&str, &str)]| -> Vec<File> {
        sources
            .iter()
            .map(|(path, source)| file(path, fill(source, name)))
            .collect()
    };
    let mut out = vec![file("README.md", readme(lang, name))];
    match lang {
        Lang::Python => {
            out.push(manifest(name, "python3", &["main.py"], "python"));
            out.extend(filled(&[
                template!("python", "main.py"),
                template!("python", "test_main.py"),
            ]));
            for (f, body) in PYTHON_SDK {
                out.push(file(&format!("zut_ext/{f}"), (*body).to_string()));
            }
        }
        Lang::TypeScript => {
            out.push(manifest(name, "node", &["main.mjs"], "javascript"));
            out.extend(filled(&[
                template!("typescript", "main.mjs"),
                template!("typescript", "main.test.mjs"),
            ]));
            let package = serde_json::json!({
                "name": name, "version": "0.1.0", "private": true, "type": "module",
                "scripts": {"test": "node --test main.test.mjs"}, "engines": {"node": ">=18"}
            });
            out.push(file(
                "package.json",
                serde_json::to_string_pretty(&package).unwrap_or_default() + "\n",
            ));
            for (f, body) in TYPESCRIPT_SDK {
                out.push(file(&format!("zut-ext/{f}"), (*body).to_string()));
            }
        }
        Lang::Rust => {
            out.push(manifest(name, &format!("./{name}"), &[], "rust"));
            out.extend(filled(&[
                template!("rust", "Cargo.toml"),
                template!("rust", "src/main.rs"),
                template!("rust", "tests/protocol.rs"),
            ]));
            out.push(file(".gitignore", format!("/target\n/{name}\n")));
        }
        Lang::Go => {
            out.push(manifest(name, &format!("./{name}"), &[], "go"));
            out.extend(filled(&[
                template!("go", "go.mod"),
                template!("go", "main.go"),
                template!("go", "main_test.go"),
            ]));
            out.push(file(".gitignore", format!("/{name}\n")));
        }
        Lang::Shell => {
            out.push(manifest(name, "./ext.sh", &[], "shell"));
            let mut script = file("ext.sh", fill(include_str!("templates/shell/ext.sh"), name));
            script.executable = true;
            out.push(script);
            out.extend(filled(&[template!("shell", "test.sh")]));
        }
    }
    out
}

/// The build command for compiled languages (none for scripts).
pub fn build_step(lang: Lang, name: &str) -> Option<String> {
    match lang {
        Lang::Rust => Some(format!(
            "cargo build --release && cp target/release/{name} ./{name}"
        )),
        Lang::Go => Some(format!("go build -o {name} .")),
        _ => None,
    }
}

/// The language's own test command.
fn test_step(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => "python3 -m unittest test_main",
        Lang::TypeScript => "node --test main.test.mjs",
        Lang::Rust => "cargo test",
        Lang::Go => "go test",
        Lang::Shell => "sh test.sh",
    }
}

/// What to do next, printed after the files are written.
pub fn next_steps(lang: Lang, name: &str, dir: &str) -> Vec<String> {
    let mut steps = vec![format!("cd {dir}")];
    if let Some(build) = build_step(lang, name) {
        steps.push(build);
    }
    steps.push("zut ext test .            # protocol checks, no model needed".into());
    steps.push(format!("{:<26}# the template's own test", test_step(lang)));
    steps.push(format!("zut -e .                  # try it: /{name}"));
    steps.push("zut ext install .         # install it for every session".into());
    steps
}

fn readme(lang: Lang, name: &str) -> String {
    let tool = tool_name(name);
    let (source, sdk) = match lang {
        Lang::Python => ("main.py", "the Python SDK `zut_ext`, vendored in `zut_ext/` (standard library only; see docs/sdk-python.md in the zut repository)"),
        Lang::TypeScript => ("main.mjs", "the TypeScript SDK's build, vendored in `zut-ext/` (one bundled ES module, `index.js`, and its type declarations for `// @ts-check` in main.mjs); see docs/sdk-typescript.md. Bun and Deno can run it too (`\"exec\": \"bun\"`)"),
        Lang::Rust => ("src/main.rs", "the Rust SDK `zut-ext-sdk` (a path dependency on your zut checkout; see docs/sdk-rust.md)"),
        Lang::Go => ("main.go", "the Go standard library only: the protocol is spoken by hand"),
        Lang::Shell => ("ext.sh", "POSIX sh only: the protocol is spoken by hand (requests are matched with `case`, ids extracted with `sed`)"),
    };
    let build = build_step(lang, name)
        .map(|b| format!("\nBuild it first (the manifest runs `./{name}`):\n\n```bash\n{b}\n```\n"))
        .unwrap_or_default();
    format!(
        "# {name}\n\n\
         A zut extension written with `zut ext new --lang {lang}`. It registers the\n\
         command `/{name}` and the tool `{tool}`; the code is in `{source}`, using\n\
         {sdk}.\n\
         {build}\n\
         ## Check and try it\n\n\
         ```bash\n\
         zut ext test .     # protocol conformance, no model or API key needed\n\
         {test:<18} # this template's own test\n\
         zut -e .           # load it for one session, then type /{name}\n\
         zut ext install .  # install it ($ZUT_HOME/extensions/{name})\n\
         ```\n\n\
         Stdout is the protocol: never print to it. Log to stderr; zut keeps it in\n\
         `$ZUT_HOME/logs/ext-{name}.log` (`zut ext logs {name}`).\n",
        lang = lang.label(),
        test = test_step(lang),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../sdk")
            .join(dir);
        let mut names: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| keep(n))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn vendored_sdks_are_complete() {
        let python: Vec<String> = PYTHON_SDK.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(
            python,
            listing("python/zut_ext", |n| n.ends_with(".py") || n == "py.typed")
        );
        let ts: Vec<String> = TYPESCRIPT_SDK
            .iter()
            .map(|(n, _)| n.to_string())
            .filter(|n| n != "index.js")
            .collect();
        assert_eq!(ts, listing("typescript/dist", |n| n.ends_with(".d.ts")));
        let bundle = TYPESCRIPT_SDK.iter().find(|(n, _)| *n == "index.js");
        assert!(bundle.is_some_and(|(_, text)| !text.contains("\nimport ")));
    }

    #[test]
    fn placeholders_are_all_filled() {
        for lang in [
            Lang::Rust,
            Lang::Python,
            Lang::TypeScript,
            Lang::Go,
            Lang::Shell,
        ] {
            for f in files(lang, "my-ext") {
                assert!(
                    !f.contents.contains("{{name}}")
                        && !f.contents.contains("{{tool}}")
                        && !f.contents.contains("{{sdk_path}}"),
                    "{:?}: {}",
                    lang,
                    f.path
                );
            }
        }
        assert_eq!(tool_name("My-Ext"), "my_ext_echo");
    }
}
