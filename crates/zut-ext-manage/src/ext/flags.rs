//! Small pieces shared by the hand-written argument parsers of `zut ext`
//! (hand-written because their error texts are part of the contract).

use anyhow::bail;

/// One argument as [`Flags::next`] returns it.
#[derive(Debug, Clone, Copy)]
pub struct Arg<'a> {
    /// The argument as given.
    pub raw: &'a str,
    /// The flag part: `--x` of `--x=v`, else the whole argument.
    pub flag: &'a str,
    /// `v` of `--x=v`.
    inline: Option<&'a str>,
}

/// Walks an argument list in which a flag's value follows it (`--x v`) or
/// is joined with `=` (`--x=v`, long flags only).
pub struct Flags<'a> {
    rest: std::slice::Iter<'a, String>,
    usage: &'a str,
}

impl<'a> Flags<'a> {
    /// `usage` ends the "needs a value" error.
    pub fn new(argv: &'a [String], usage: &'a str) -> Self {
        Self {
            rest: argv.iter(),
            usage,
        }
    }

    /// The next argument, split at the first `=` of a long flag.
    pub fn next_arg(&mut self) -> Option<Arg<'a>> {
        let raw = self.rest.next()?.as_str();
        Some(match raw.split_once('=') {
            Some((flag, v)) if flag.starts_with("--") => Arg {
                raw,
                flag,
                inline: Some(v),
            },
            _ => Arg {
                raw,
                flag: raw,
                inline: None,
            },
        })
    }

    /// The value of `arg` (named `name` in the error): its `=` part, else
    /// the next argument.
    pub fn value(&mut self, arg: &Arg<'_>, name: &str) -> Result<String, String> {
        match arg.inline {
            Some(v) => Ok(v.to_string()),
            None => self
                .rest
                .next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value\n{}", self.usage)),
        }
    }
}

/// Parses `<name>` with one on/off flag (`switch`, e.g. `-f`/`--follow`):
/// an unknown `-x` is `unknown ext <sub> option "-x"`, a second name or
/// no name is `usage`.
pub fn name_and_switch<'a>(
    args: &'a [String],
    switch: [&str; 2],
    sub: &str,
    usage: &str,
) -> anyhow::Result<(&'a str, bool)> {
    let mut name: Option<&str> = None;
    let mut on = false;
    for a in args {
        match a.as_str() {
            s if switch.contains(&s) => on = true,
            s if s.starts_with('-') && s.len() > 1 => bail!("unknown ext {sub} option {s:?}"),
            s if name.is_none() => name = Some(s),
            _ => bail!("{usage}"),
        }
    }
    let Some(name) = name else { bail!("{usage}") };
    Ok((name, on))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn values_inline_or_next() {
        let a = argv(&["--dir=x", "--dir", "y", "-l", "go", "--lang"]);
        let mut f = Flags::new(&a, "USAGE");
        let mut got = Vec::new();
        while let Some(arg) = f.next_arg() {
            got.push((arg.flag.to_string(), f.value(&arg, arg.flag)));
        }
        assert_eq!(
            got,
            [
                ("--dir".to_string(), Ok("x".to_string())),
                ("--dir".to_string(), Ok("y".to_string())),
                ("-l".to_string(), Ok("go".to_string())),
                (
                    "--lang".to_string(),
                    Err("--lang needs a value\nUSAGE".into())
                ),
            ]
        );
    }

    #[test]
    fn short_flags_keep_their_equals() {
        let a = argv(&["-x=1"]);
        let arg = Flags::new(&a, "").next_arg().map(|a| a.flag);
        assert_eq!(arg, Some("-x=1"));
    }

    #[test]
    fn name_and_switch_errors() {
        let a = argv(&["-f", "a"]);
        let ok = name_and_switch(&a, ["-f", "--follow"], "logs", "U").unwrap();
        assert_eq!(ok, ("a", true));
        let e = |a: &[&str]| {
            name_and_switch(&argv(a), ["-f", "--follow"], "logs", "U")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(e(&["-x"]), "unknown ext logs option \"-x\"");
        assert_eq!(e(&["a", "b"]), "U");
        assert_eq!(e(&[]), "U");
    }
}
