//! `zut ext new <name> [--lang L] [--dir PATH]`.

use std::path::PathBuf;

use crate::ext::flags::Flags;

/// Usage line.
pub const USAGE: &str = "usage: zut ext new <name> [--lang rust|python|typescript|go|shell] [--dir <path>]\n\
  writes ./<name> (or --dir) with extension.json, the source, a test and a README; default --lang python";

/// The languages `zut ext new` can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Rust, with the `zut-ext-sdk` crate.
    Rust,
    /// Python, with the `zut_ext` package vendored.
    Python,
    /// JavaScript with the TypeScript SDK's typed build vendored.
    TypeScript,
    /// Go, standard library only.
    Go,
    /// POSIX sh.
    Shell,
}

impl Lang {
    /// The name used on the command line.
    pub fn label(self) -> &'static str {
        match self {
            Self::Rust => "rust",
            Self::Python => "python",
            Self::TypeScript => "typescript",
            Self::Go => "go",
            Self::Shell => "shell",
        }
    }
}

/// Parsed arguments.
#[derive(Debug)]
pub struct Args {
    /// Extension name (manifest name, command name, directory name).
    pub name: String,
    /// Language.
    pub lang: Lang,
    /// `--dir`.
    pub dir: Option<PathBuf>,
    /// `-h` / `--help`.
    pub help: bool,
}

/// Parses `argv` (after `new`).
pub fn parse(argv: &[String]) -> Result<Args, String> {
    let mut name = None;
    let mut lang = Lang::Python;
    let mut dir = None;
    let mut help = false;
    let mut flags = Flags::new(argv, USAGE);
    while let Some(arg) = flags.next_arg() {
        let mut value = |name: &str| flags.value(&arg, name);
        match arg.flag {
            "-h" | "--help" => help = true,
            "--lang" | "-l" => {
                let v = value("--lang")?;
                lang = match v.to_ascii_lowercase().as_str() {
                    "rust" | "rs" => Lang::Rust,
                    "python" | "py" => Lang::Python,
                    "typescript" | "ts" | "javascript" | "js" | "node" => Lang::TypeScript,
                    "go" | "golang" => Lang::Go,
                    "shell" | "sh" => Lang::Shell,
                    _ => {
                        return Err(format!(
                            "unknown language {v:?}: use rust, python, typescript, go or shell"
                        ))
                    }
                };
            }
            "--dir" => dir = Some(PathBuf::from(value("--dir")?)),
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown flag {s}\n{USAGE}"))
            }
            _ => {
                if name.is_some() {
                    return Err(format!("one name only (got {:?} too)\n{USAGE}", arg.raw));
                }
                name = Some(arg.raw.to_string());
            }
        }
    }
    if help {
        return Ok(Args {
            name: String::new(),
            lang,
            dir,
            help,
        });
    }
    let name = name.ok_or_else(|| format!("a name is required\n{USAGE}"))?;
    check_name(&name)?;
    Ok(Args {
        name,
        lang,
        dir,
        help,
    })
}

/// The manifest rules (non-empty, no surrounding space, no leading `.`, no
/// separators or control characters), plus what a name must be to serve as
/// a command, a directory, a Cargo package and a Go module:
/// `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.
pub fn check_name(name: &str) -> Result<(), String> {
    zut_ext_host::manifest::validate_name(name).map_err(|e| e.to_string())?;
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !first_ok || !rest_ok || name.len() > 64 {
        return Err(format!(
            "invalid extension name {name:?}: use letters, digits, '-' and '_', starting with a letter or digit, at most 64 characters"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn names_and_languages() {
        let a = parse(&argv(&["weather", "--lang", "ts"])).unwrap();
        assert_eq!((a.name.as_str(), a.lang), ("weather", Lang::TypeScript));
        assert_eq!(
            parse(&argv(&["w-1_x", "--lang=go"])).unwrap().lang,
            Lang::Go
        );
        assert_eq!(parse(&argv(&["w"])).unwrap().lang, Lang::Python);
    }

    #[test]
    fn bad_input() {
        for bad in [
            "",
            " w",
            ".hidden",
            "a/b",
            "a b",
            "-x",
            "é",
            &"a".repeat(65),
        ] {
            assert!(
                parse(&argv(&[bad])).is_err() || bad == "-x",
                "{bad:?} accepted"
            );
        }
        assert!(parse(&argv(&["a b"]))
            .unwrap_err()
            .contains("invalid extension name"));
        assert!(parse(&argv(&[".x"]))
            .unwrap_err()
            .contains("invalid extension name"));
        assert!(parse(&argv(&["w", "--lang", "cobol"]))
            .unwrap_err()
            .contains("unknown language"));
        assert!(parse(&argv(&[])).unwrap_err().contains("name is required"));
        assert!(parse(&argv(&["a", "b"]))
            .unwrap_err()
            .contains("one name only"));
        assert!(parse(&argv(&["a", "--lang"]))
            .unwrap_err()
            .contains("needs a value"));
        assert!(parse(&argv(&["a", "--wat"]))
            .unwrap_err()
            .contains("unknown flag"));
    }
}
