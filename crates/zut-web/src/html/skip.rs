//! Elements that are not content: scripts, styles, forms' controls,
//! hidden elements, navigation and page chrome.

use scraper::node::Element;

/// Never content.
const NEVER: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed", "head",
    "canvas", "button", "input", "select", "textarea", "option", "dialog", "link", "meta", "nav",
    "aside", "audio", "video", "map", "frameset", "frame",
];

/// Page chrome, skipped only when the page has no `main`/`article` root
/// (inside an article a `header` holds its title).
const PAGE_CHROME: &[&str] = &["header", "footer"];

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

/// Whether `el` (and its subtree) is left out.
pub(super) fn skipped(el: &Element, page_level: bool) -> bool {
    let name = el.name();
    if NEVER.contains(&name) || hidden(el) {
        return true;
    }
    if page_level && PAGE_CHROME.contains(&name) {
        return true;
    }
    if let Some(role) = el.attr("role") {
        let role = role.trim();
        if CHROME_ROLES.iter().any(|r| r.eq_ignore_ascii_case(role))
            || (page_level && (role == "banner" || role == "contentinfo"))
        {
            return true;
        }
    }
    let chrome = |v: &str| {
        v.split_ascii_whitespace()
            .any(|t| CHROME_TOKENS.iter().any(|c| c.eq_ignore_ascii_case(t)))
    };
    el.attr("class").is_some_and(chrome) || el.attr("id").is_some_and(chrome)
}

/// `hidden`, `aria-hidden="true"` or an inline `display:none`.
pub(super) fn hidden(el: &Element) -> bool {
    if el.attr("hidden").is_some() || el.attr("aria-hidden").is_some_and(|v| v.trim() == "true") {
        return true;
    }
    el.attr("style").is_some_and(|s| {
        let s: String = s
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        s.contains("display:none") || s.contains("visibility:hidden")
    })
}
