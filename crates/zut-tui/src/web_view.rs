//! The web tools in the transcript (issue 26: "the TUI shows fetched
//! URLs"): `web_search` as its results' titles and URLs, `web_open` and
//! `web_click` as the page's title, URL (the one fetched, after
//! redirects) and reference, `web_find` as its match count; the page text
//! itself stays out of sight until Ctrl+O (the model gets all of it).
//!
//! Read from the result text the model gets (zut-web's `render` formats),
//! so a resumed session shows the same.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::sanitize;
use crate::theme::Theme;

/// Whether `tool` is one of the web tools.
pub fn is_web(tool: &str) -> bool {
    matches!(tool, "web_search" | "web_open" | "web_click" | "web_find")
}

/// The one-line summary of a web tool's arguments: the query, the URL or
/// reference to open, the link to follow, the text to find.
pub fn summary(tool: &str, args: &Value) -> Option<String> {
    let s = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let n = |k: &str| args.get(k).and_then(Value::as_u64);
    Some(match tool {
        "web_search" => format!("{:?}", s("query")?),
        "web_open" => {
            let target = s("url").or_else(|| s("ref_id"))?.to_string();
            match n("line").filter(|l| *l > 1) {
                Some(l) => format!("{target} from line {l}"),
                None => target,
            }
        }
        "web_click" => format!("link [{}] of {}", n("id")?, s("ref_id")?),
        "web_find" => format!("{:?} in {}", s("pattern")?, s("ref_id")?),
        _ => return None,
    })
}

/// The compact rows of a successful web tool result; `None` when the
/// text is not in a shape this knows (then it is shown as it is).
pub fn rows(tool: &str, output: &str, theme: &Theme) -> Option<Vec<Line<'static>>> {
    match tool {
        "web_search" => search_rows(output, theme),
        "web_open" | "web_click" => page_rows(output, theme),
        "web_find" => find_rows(output, theme),
        _ => None,
    }
}

const BEGIN: &str = "<<<BEGIN UNTRUSTED WEB CONTENT>>>";
const END: &str = "<<<END UNTRUSTED WEB CONTENT>>>";

fn url_span(url: &str, theme: &Theme) -> Span<'static> {
    Span::styled(
        sanitize::clean_line(url),
        theme.accent.add_modifier(Modifier::UNDERLINED),
    )
}

/// `[n] title (ref: web-k)` / `    url` / `    snippet` items between the
/// markers: `n. title` then the URL under it, and a dim count.
fn search_rows(output: &str, theme: &Theme) -> Option<Vec<Line<'static>>> {
    let first = output.lines().next()?;
    let via = first
        .strip_prefix("Web search via ")?
        .split_once(". ")
        .map(|(v, _)| v)?;
    let (_, rest) = output.split_once(BEGIN)?;
    let (body, after) = rest.split_once(END)?;
    let mut rows = Vec::new();
    let mut results = 0;
    let mut lines = body.lines().peekable();
    while let Some(l) = lines.next() {
        let Some(item) = l.strip_prefix('[') else {
            continue;
        };
        let Some((n, rest)) = item.split_once("] ") else {
            continue;
        };
        if n.parse::<usize>().is_err() {
            continue;
        }
        let (title, reference) = match rest.rsplit_once(" (ref: ") {
            Some((t, r)) => (t, r.trim_end_matches(')')),
            None => (rest, ""),
        };
        results += 1;
        let mut head = vec![
            Span::styled(format!("{n}. "), theme.dim),
            Span::styled(sanitize::clean_line(title), theme.text),
        ];
        if !reference.is_empty() {
            head.push(Span::styled(
                format!("  {}", sanitize::clean_line(reference)),
                theme.dim,
            ));
        }
        rows.push(Line::from(head));
        if let Some(url) = lines.next_if(|u| u.starts_with("    ")) {
            rows.push(Line::from(vec![
                Span::raw("   "),
                url_span(url.trim(), theme),
            ]));
        }
        // The snippet stays for the model.
        while lines.next_if(|u| u.starts_with("    ")).is_some() {}
    }
    let mut tail = format!(
        "{results} result{} via {}",
        if results == 1 { "" } else { "s" },
        sanitize::clean_line(via)
    );
    if after.contains("[Additional results omitted") {
        tail.push_str(" (more omitted)");
    }
    if results == 0 {
        tail = format!("no results via {}", sanitize::clean_line(via));
    }
    rows.push(Line::from(Span::styled(tail, theme.dim)));
    Some(rows)
}

/// `Web page content from <url> …` / `Page reference: web-3 (html, lines
/// 1-80 of 200)` / `Title: …`: the title, the URL, then the reference,
/// lines shown and links listed, dim.
fn page_rows(output: &str, theme: &Theme) -> Option<Vec<Line<'static>>> {
    let mut lines = output.lines();
    let url = lines
        .next()?
        .strip_prefix("Web page content from ")?
        .split_once(" is untrusted external content")?
        .0;
    let reference = lines.next()?.strip_prefix("Page reference: ")?;
    let title = lines.next().and_then(|l| l.strip_prefix("Title: "));
    let mut rows = Vec::new();
    if let Some(t) = title.filter(|t| !t.trim().is_empty()) {
        rows.push(Line::from(Span::styled(
            sanitize::clean_line(t.trim()),
            theme.text.add_modifier(Modifier::BOLD),
        )));
    }
    rows.push(Line::from(url_span(url, theme)));
    let after = output.split_once(END).map_or("", |(_, a)| a);
    let links = after
        .lines()
        .filter(|l| l.starts_with('[') && l.contains("]: "))
        .count();
    let mut meta = sanitize::clean_line(reference);
    if links > 0 {
        meta.push_str(&format!(
            " · {links} link{}",
            if links == 1 { "" } else { "s" }
        ));
    }
    if after.contains("[Cut at line") {
        meta.push_str(" · cut");
    }
    rows.push(Line::from(Span::styled(meta, theme.dim)));
    Some(rows)
}

/// `N matches for "x" in web-3 (<url>). …`: that first sentence, the URL
/// underlined; the matches stay for the model.
fn find_rows(output: &str, theme: &Theme) -> Option<Vec<Line<'static>>> {
    let first = output.lines().next()?;
    if let Some(rest) = first.strip_prefix("No matches for ") {
        return Some(vec![Line::from(Span::styled(
            format!("no matches for {}", sanitize::clean_line(rest)),
            theme.dim,
        ))]);
    }
    let (head, _) = first.split_once(". Untrusted external content")?;
    let (count, url) = head.rsplit_once(" (")?;
    let url = url.strip_suffix(')')?;
    Some(vec![
        Line::from(Span::styled(sanitize::clean_line(count), theme.text)),
        Line::from(url_span(url, theme)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorDepth;
    use serde_json::json;

    fn text(rows: &[Line<'static>]) -> Vec<String> {
        rows.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn summaries_name_what_is_fetched() {
        assert_eq!(
            summary("web_search", &json!({"query": "rust tui"})).unwrap(),
            "\"rust tui\""
        );
        assert_eq!(
            summary(
                "web_open",
                &json!({"ref_id": "https://a.example/x", "line": 40})
            )
            .unwrap(),
            "https://a.example/x from line 40"
        );
        assert_eq!(
            summary("web_open", &json!({"url": "https://a.example/"})).unwrap(),
            "https://a.example/"
        );
        assert_eq!(
            summary("web_click", &json!({"ref_id": "web-2", "id": 3})).unwrap(),
            "link [3] of web-2"
        );
        assert!(summary("web_open", &json!({})).is_none());
    }

    #[test]
    fn unknown_shapes_are_left_alone() {
        let theme = Theme::new(ColorDepth::None);
        assert!(rows("web_open", "something else", &theme).is_none());
        assert!(rows("web_search", "Web search via x", &theme).is_none());
        let r = rows(
            "web_find",
            "No matches for \"zz\" in web-1 (https://a.example/, 3 lines).",
            &theme,
        )
        .unwrap();
        assert_eq!(
            text(&r),
            ["no matches for \"zz\" in web-1 (https://a.example/, 3 lines)."]
        );
    }
}
