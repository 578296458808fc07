//! Elements that are not content: scripts, styles, forms' controls,
//! hidden elements, navigation and page chrome.

use super::dom::Elem;

/// Never content.
const NEVER: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed", "head",
    "canvas", "button", "input", "select", "textarea", "option", "dialog", "link", "meta", "nav",
    "aside", "audio", "video", "map", "frameset", "frame",
];

/// Page chrome, skipped only when the page has no `main`/`article` root
/// (inside an article a `header` holds its title).
const PAGE_CHROME_NAMES: &[&str] = &["header", "footer"];

/// Class or id tokens of navigation, chrome and screen-reader-only text.
const CHROME_TOKENS: &[&str] = &[
    "nav",
    "navbar",
    "navigation",
    "menu",
    "sidebar",
    "breadcrumb",
    "breadcrumbs",
    "cookie-banner",
    "cookie-consent",
    "cookies",
    "advert",
    "advertisement",
    "ads",
    "social",
    "share",
    "sharing",
    "toc",
    "table-of-contents",
    "skip-link",
    "skip-to-content",
    "sr-only",
    "visually-hidden",
    "screen-reader-text",
    "site-header",
    "site-footer",
    "site-nav",
];

/// Roles that are never content.
const CHROME_ROLES: &[&str] = &[
    "navigation",
    "complementary",
    "search",
    "dialog",
    "alertdialog",
];

/// Fact: never content (a [`NEVER`] element).
pub(super) const NEVER_CONTENT: u16 = 1;
/// Fact: hidden (`hidden`, `aria-hidden="true"`, inline `display:none`).
pub(super) const HIDDEN: u16 = 2;
/// Fact: navigation or chrome by class, id or role.
pub(super) const CHROME: u16 = 4;
/// Fact: page chrome (`header`, `footer`, `role="banner"`/`"contentinfo"`).
pub(super) const PAGE_CHROME: u16 = 8;
/// Fact: `role="main"`.
pub(super) const ROLE_MAIN: u16 = 16;
/// Fact: `role="presentation"` or `"none"` (a layout table).
pub(super) const ROLE_LAYOUT: u16 = 32;

/// Whether `el` (and its subtree) is left out.
pub(super) fn skipped(el: &Elem, page_level: bool) -> bool {
    el.has(NEVER_CONTENT | HIDDEN | CHROME) || (page_level && el.has(PAGE_CHROME))
}

/// The facts an element's name gives.
pub(super) fn name_facts(name: &str) -> u16 {
    let mut f = 0;
    if NEVER.contains(&name) {
        f |= NEVER_CONTENT;
    }
    if PAGE_CHROME_NAMES.contains(&name) {
        f |= PAGE_CHROME;
    }
    f
}

/// The bit recording that attribute `name` was seen, for the attributes
/// the converter reads; `None` for the others (dropped).
pub(super) fn attr_bit(name: &str) -> Option<u16> {
    let bit = match name {
        "hidden" => 0,
        "aria-hidden" => 1,
        "style" => 2,
        "role" => 3,
        "class" => 4,
        "id" => 5,
        "href" => 6,
        "alt" => 7,
        "start" => 8,
        "data-lang" => 9,
        "data-language" => 10,
        _ => return None,
    };
    Some(1 << bit)
}

/// The facts attribute `name` with value `v` gives.
pub(super) fn attr_facts(name: &str, v: &str) -> u16 {
    let chrome = |v: &str| {
        v.split_ascii_whitespace()
            .any(|t| CHROME_TOKENS.iter().any(|c| c.eq_ignore_ascii_case(t)))
    };
    match name {
        "hidden" => HIDDEN,
        "aria-hidden" if v.trim() == "true" => HIDDEN,
        "style" if hidden_style(v) => HIDDEN,
        "class" | "id" if chrome(v) => CHROME,
        "role" => {
            let mut f = 0;
            if v == "main" {
                f |= ROLE_MAIN;
            }
            if v == "presentation" || v == "none" {
                f |= ROLE_LAYOUT;
            }
            let role = v.trim();
            if CHROME_ROLES.iter().any(|r| r.eq_ignore_ascii_case(role)) {
                f |= CHROME;
            }
            if role == "banner" || role == "contentinfo" {
                f |= PAGE_CHROME;
            }
            f
        }
        _ => 0,
    }
}

/// An inline `display:none` or `visibility:hidden`.
fn hidden_style(s: &str) -> bool {
    let s: String = s
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    s.contains("display:none") || s.contains("visibility:hidden")
}

/// The code language attribute `name` with value `v` names, with its
/// rank (`data-lang` 0, `data-language` 1, a class 2: lowest wins).
pub(super) fn lang_of(name: &str, v: &str) -> Option<(u8, String)> {
    match name {
        "data-lang" | "data-language" => {
            let l = v.trim();
            valid_lang(l).then(|| (u8::from(name != "data-lang"), l.to_ascii_lowercase()))
        }
        "class" => v.split_ascii_whitespace().find_map(|token| {
            let lang = token
                .strip_prefix("language-")
                .or_else(|| token.strip_prefix("lang-"))
                .or_else(|| token.strip_prefix("highlight-source-"))
                .or_else(|| token.strip_prefix("highlight-"));
            lang.filter(|l| valid_lang(l) && *l != "default")
                .map(|l| (2, l.to_ascii_lowercase()))
        }),
        _ => None,
    }
}

fn valid_lang(l: &str) -> bool {
    !l.is_empty()
        && l.len() <= 32
        && l.chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-_.#".contains(c))
}
