//! Arguments of `zut ext doctor`.
//!
//! cli.md §1 says `zut ext …` reads no global flags. Doctor is the one
//! subcommand where three of them matter for what loads, so it accepts
//! them itself, after `doctor`: `--ext/-e <dir>` (repeatable),
//! `--no-ext`/`--no-extensions` and `--cwd <path>`, with the meaning of
//! cli.md §4. Without them doctor checks exactly what a plain `zut` run in
//! the current directory would load.

use std::path::{Component, Path, PathBuf};

/// The usage line printed with `-h` and on usage errors.
pub const USAGE: &str = "usage: zut ext doctor [--ext <dir>]... [--no-ext] [--cwd <path>]";

/// Parsed `zut ext doctor` arguments (paths still as written).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DoctorArgs {
    /// `--ext` / `-e` directories, in command-line order.
    pub ext: Vec<PathBuf>,
    /// `--no-ext` / `--no-extensions`.
    pub no_ext: bool,
    /// `--cwd`.
    pub cwd: Option<PathBuf>,
    /// `-h` / `--help`.
    pub help: bool,
}

/// Parses the arguments after `doctor`.
pub fn parse(args: &[String]) -> Result<DoctorArgs, String> {
    let mut out = DoctorArgs::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| -> Result<PathBuf, String> {
            match it.next() {
                Some(v) if !v.is_empty() => Ok(PathBuf::from(v)),
                _ => Err(format!("{flag} requires a value")),
            }
        };
        match arg.as_str() {
            "-h" | "--help" => out.help = true,
            "--no-ext" | "--no-extensions" => out.no_ext = true,
            "--ext" | "-e" => out.ext.push(value("--ext")?),
            "--cwd" => {
                let v = value("--cwd")?;
                set_cwd(&mut out, v)?;
            }
            _ => {
                if let Some(v) = arg.strip_prefix("--ext=") {
                    if v.is_empty() {
                        return Err("--ext requires a value".to_string());
                    }
                    out.ext.push(PathBuf::from(v));
                } else if let Some(v) = arg.strip_prefix("--cwd=") {
                    if v.is_empty() {
                        return Err("--cwd requires a value".to_string());
                    }
                    set_cwd(&mut out, PathBuf::from(v))?;
                } else if arg.starts_with('-') {
                    return Err(format!("unknown ext doctor option {arg:?}\n{USAGE}"));
                } else {
                    return Err(format!("unexpected argument {arg:?}\n{USAGE}"));
                }
            }
        }
    }
    Ok(out)
}

fn set_cwd(out: &mut DoctorArgs, v: PathBuf) -> Result<(), String> {
    if out.cwd.is_some() {
        return Err("--cwd given more than once".to_string());
    }
    out.cwd = Some(v);
    Ok(())
}

/// `path` made absolute against `base`: the real path when it exists,
/// else the joined path with `.` components removed (`..` is kept, since
/// folding it lexically could cross a symlink).
pub fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    if let Ok(real) = std::fs::canonicalize(&joined) {
        return real;
    }
    joined
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<DoctorArgs, String> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn flags() {
        let a = p(&[
            "-e",
            "a",
            "--ext=b",
            "--ext",
            "c",
            "--no-extensions",
            "--cwd=/p",
        ])
        .unwrap();
        assert_eq!(
            a.ext,
            vec![PathBuf::from("a"), PathBuf::from("b"), PathBuf::from("c")]
        );
        assert!(a.no_ext);
        assert_eq!(a.cwd, Some(PathBuf::from("/p")));
        assert_eq!(p(&[]).unwrap(), DoctorArgs::default());
        assert!(p(&["--help"]).unwrap().help);
    }

    #[test]
    fn errors() {
        assert_eq!(p(&["--ext"]).unwrap_err(), "--ext requires a value");
        assert_eq!(p(&["-e", ""]).unwrap_err(), "--ext requires a value");
        assert_eq!(p(&["--ext="]).unwrap_err(), "--ext requires a value");
        assert_eq!(p(&["--cwd"]).unwrap_err(), "--cwd requires a value");
        assert!(p(&["--cwd", "a", "--cwd", "b"]).is_err());
        assert!(p(&["--wat"])
            .unwrap_err()
            .starts_with("unknown ext doctor option \"--wat\""));
        assert!(p(&["x"]).unwrap_err().starts_with("unexpected argument"));
    }

    #[test]
    fn absolute_paths() {
        let base = Path::new("/nonexistent-doctor-base");
        assert_eq!(
            absolute(base, Path::new("./dev/")),
            PathBuf::from("/nonexistent-doctor-base/dev")
        );
        assert_eq!(
            absolute(base, Path::new("../z")),
            PathBuf::from("/nonexistent-doctor-base/../z")
        );
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().canonicalize().unwrap();
        std::fs::create_dir(real.join("dev")).unwrap();
        std::fs::create_dir(real.join("sub")).unwrap();
        assert_eq!(
            absolute(&real.join("sub"), Path::new("../dev")),
            real.join("dev")
        );
    }
}
