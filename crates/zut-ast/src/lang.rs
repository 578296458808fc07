//! The languages whose tree-sitter grammars are built into zut, and how a
//! language is named or inferred from a file name.

use std::path::Path;

use ast_grep_core::Language as _;
use ast_grep_language::SupportLang;

/// The languages embedded in this build (ast-grep ids as the `ast` tool
/// accepts them). Other ast-grep languages need an installed `ast-grep`.
pub const EMBEDDED: &[SupportLang] = &[
    SupportLang::Bash,
    SupportLang::C,
    SupportLang::Cpp,
    SupportLang::CSharp,
    SupportLang::Css,
    SupportLang::Go,
    SupportLang::Html,
    SupportLang::Java,
    SupportLang::JavaScript,
    SupportLang::Json,
    SupportLang::Kotlin,
    SupportLang::Lua,
    SupportLang::Php,
    SupportLang::Python,
    SupportLang::Ruby,
    SupportLang::Rust,
    SupportLang::Scala,
    SupportLang::Swift,
    SupportLang::Tsx,
    SupportLang::TypeScript,
    SupportLang::Yaml,
];

/// An embedded language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lang(pub(crate) SupportLang);

impl Lang {
    /// The ast-grep id of the language (`rust`, `python`, `tsx`, …).
    pub fn id(self) -> &'static str {
        match self.0 {
            SupportLang::Bash => "bash",
            SupportLang::C => "c",
            SupportLang::Cpp => "cpp",
            SupportLang::CSharp => "csharp",
            SupportLang::Css => "css",
            SupportLang::Go => "go",
            SupportLang::Html => "html",
            SupportLang::Java => "java",
            SupportLang::JavaScript => "javascript",
            SupportLang::Json => "json",
            SupportLang::Kotlin => "kotlin",
            SupportLang::Lua => "lua",
            SupportLang::Php => "php",
            SupportLang::Python => "python",
            SupportLang::Ruby => "ruby",
            SupportLang::Rust => "rust",
            SupportLang::Scala => "scala",
            SupportLang::Swift => "swift",
            SupportLang::Tsx => "tsx",
            SupportLang::TypeScript => "typescript",
            SupportLang::Yaml => "yaml",
            _ => "unknown",
        }
    }

    /// The embedded language of a file, by extension.
    pub fn of_path(path: &Path) -> Option<Lang> {
        SupportLang::from_path(path)
            .filter(|l| EMBEDDED.contains(l))
            .map(Lang)
    }
}

/// What a `language` argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LangChoice {
    /// A language built into zut.
    Embedded(Lang),
    /// A language ast-grep knows but zut does not embed (needs the CLI).
    External(String),
}

/// Parses a `language` argument: ast-grep ids and aliases, any case
/// (`rs`, `golang`, `ts`, `c++`…). Unknown names are passed to an installed
/// ast-grep as they are.
pub fn parse_language(name: &str) -> LangChoice {
    let name = name.trim();
    match name.parse::<SupportLang>() {
        Ok(l) if EMBEDDED.contains(&l) => LangChoice::Embedded(Lang(l)),
        _ => LangChoice::External(name.to_ascii_lowercase()),
    }
}

/// The embedded language ids, comma-separated (for messages).
pub fn embedded_ids() -> String {
    EMBEDDED
        .iter()
        .map(|l| Lang(*l).id())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths() {
        assert_eq!(
            parse_language("RS"),
            LangChoice::Embedded(Lang(SupportLang::Rust))
        );
        assert_eq!(
            parse_language("golang"),
            LangChoice::Embedded(Lang(SupportLang::Go))
        );
        assert_eq!(parse_language("dart"), LangChoice::External("dart".into()));
        assert_eq!(
            Lang::of_path(Path::new("a/b.tsx")).map(Lang::id),
            Some("tsx")
        );
        assert_eq!(Lang::of_path(Path::new("a/b.zig")), None);
        assert_eq!(Lang::of_path(Path::new("Makefile")), None);
        for l in EMBEDDED {
            assert_ne!(Lang(*l).id(), "unknown");
        }
    }
}
