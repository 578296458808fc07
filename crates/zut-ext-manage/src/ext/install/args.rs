//! Argument parsing of `zut ext install` (cli.md §2.3, conformance L6).

use std::fmt;

/// The usage error text.
pub const USAGE: &str =
    "usage: zut ext install [--build=go] <path|git-url> (or --build=cargo for Rust extensions)";
const SUPPORTED: &str = "go, cargo";

/// An explicit build step for a local source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builder {
    /// `go build -trimpath -o <exec> .`
    Go,
    /// `cargo build --release`, then the binary named like `exec` is copied.
    Cargo,
}

impl Builder {
    /// `go` or `cargo`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Go => "go",
            Self::Cargo => "cargo",
        }
    }
}

impl fmt::Display for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Parsed `zut ext install` arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallArgs {
    /// A local path or a git URL.
    pub source: String,
    /// `--build=<b>`, if given.
    pub builder: Option<Builder>,
    /// `--yes`/`-y`: install without asking about permissions.
    pub yes: bool,
}

/// Parses the arguments after `install`. Options may come before or after
/// the source; `--build=<b>` and `--build <b>` are case-insensitive and
/// trimmed.
pub fn parse(args: &[String]) -> Result<InstallArgs, String> {
    if args.is_empty() {
        return Err(USAGE.to_string());
    }
    let requires = || format!("--build requires a builder (currently: {SUPPORTED})");
    let mut source: Option<String> = None;
    let mut builder: Option<String> = None;
    let mut yes = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--yes" || arg == "-y" {
            yes = true;
            continue;
        }
        let value = if arg == "--build" {
            Some(it.next().ok_or_else(requires)?.clone())
        } else {
            arg.strip_prefix("--build=").map(str::to_string)
        };
        if let Some(value) = value {
            if builder.is_some() {
                return Err("extension builder specified more than once".to_string());
            }
            let value = value.trim().to_lowercase();
            if value.is_empty() {
                return Err(requires());
            }
            builder = Some(value);
        } else if arg.starts_with('-') {
            return Err(format!("unknown ext install option {arg:?}"));
        } else if source.is_some() {
            return Err(USAGE.to_string());
        } else {
            source = Some(arg.clone());
        }
    }
    let source = source.ok_or_else(|| USAGE.to_string())?;
    let builder = match builder.as_deref() {
        None => None,
        Some("go") => Some(Builder::Go),
        Some("cargo") => Some(Builder::Cargo),
        Some(other) => {
            return Err(format!(
                "unsupported extension builder {other:?} (currently supported: {SUPPORTED})"
            ));
        }
    };
    Ok(InstallArgs {
        source,
        builder,
        yes,
    })
}

/// A source starting with `https://` or `git@`, or ending in `.git`, is a
/// git URL; anything else is a local path.
pub fn is_git_url(source: &str) -> bool {
    source.starts_with("https://") || source.starts_with("git@") || source.ends_with(".git")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<InstallArgs, String> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn accepted_forms() {
        let want = InstallArgs {
            source: "./ext".into(),
            builder: Some(Builder::Go),
            yes: false,
        };
        assert_eq!(p(&["--build=go", "./ext"]), Ok(want.clone()));
        assert_eq!(p(&["./ext", "--build", "go"]), Ok(want.clone()));
        assert_eq!(p(&["./ext", "--build= GO "]), Ok(want));
        assert_eq!(
            p(&["--build=cargo", "x"]).unwrap().builder,
            Some(Builder::Cargo)
        );
        assert_eq!(p(&["x"]).unwrap().builder, None);
        assert!(p(&["--yes", "x"]).unwrap().yes);
        assert!(p(&["x", "-y"]).unwrap().yes);
    }

    #[test]
    fn errors() {
        assert!(p(&["--build=", "x"])
            .unwrap_err()
            .contains("requires a builder (currently: go, cargo)"));
        assert!(p(&["x", "--build"])
            .unwrap_err()
            .contains("requires a builder"));
        assert_eq!(p(&["--build=go"]).unwrap_err(), USAGE);
        assert_eq!(p(&["a", "b"]).unwrap_err(), USAGE);
        assert_eq!(p(&[]).unwrap_err(), USAGE);
        assert_eq!(
            p(&["--wat", "x"]).unwrap_err(),
            "unknown ext install option \"--wat\""
        );
        assert_eq!(
            p(&["--build=make", "x"]).unwrap_err(),
            "unsupported extension builder \"make\" (currently supported: go, cargo)"
        );
        assert_eq!(
            p(&["--build=go", "--build=go", "x"]).unwrap_err(),
            "extension builder specified more than once"
        );
    }

    #[test]
    fn classification() {
        assert!(is_git_url("https://example.com/x"));
        assert!(is_git_url("git@host:x"));
        assert!(is_git_url("/tmp/repo.git"));
        assert!(!is_git_url("http://example.com/x"));
        assert!(!is_git_url("ssh://host/x"));
        assert!(!is_git_url("./ext"));
    }
}
