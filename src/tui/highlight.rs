//! Syntax highlighting with syntect, converted to ratatui spans by hand. Runs as a job:
//! the first highlight of a long text costs tens of milliseconds.

use std::sync::LazyLock;

use ratatui::style::{Color, Modifier, Style};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, ThemeSet};
use syntect::parsing::SyntaxSet;

static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);
static THEMES: LazyLock<ThemeSet> = LazyLock::new(ThemeSet::load_defaults);

/// One highlighted line: styled pieces of text (no newline).
pub type StyledLine = Vec<(Style, String)>;

/// A highlighted text: per source line, its styled pieces, or `None` for lines that are not code
/// (prose in a markdown response).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Highlighted {
    pub lines: Vec<Option<StyledLine>>,
}

fn convert(style: syntect::highlighting::Style) -> Style {
    let fg = style.foreground;
    let mut out = Style::default().fg(Color::Rgb(fg.r, fg.g, fg.b));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

fn theme(name: &str) -> &'static syntect::highlighting::Theme {
    THEMES
        .themes
        .get(name)
        .or_else(|| THEMES.themes.get("base16-ocean.dark"))
        .or_else(|| THEMES.themes.values().next())
        .unwrap_or_else(|| unreachable_theme())
}

#[cold]
fn unreachable_theme() -> &'static syntect::highlighting::Theme {
    static EMPTY: LazyLock<syntect::highlighting::Theme> =
        LazyLock::new(syntect::highlighting::Theme::default);
    &EMPTY
}

fn highlight_lines<'a>(
    lines: impl Iterator<Item = &'a str>,
    lang: &str,
    syntect_theme: &str,
) -> Vec<StyledLine> {
    let syntax = SYNTAXES
        .find_syntax_by_token(lang)
        .unwrap_or_else(|| SYNTAXES.find_syntax_plain_text());
    let mut h = HighlightLines::new(syntax, theme(syntect_theme));
    lines
        .map(|line| {
            let with_nl = format!("{line}\n");
            match h.highlight_line(&with_nl, &SYNTAXES) {
                Ok(pieces) => pieces
                    .into_iter()
                    .map(|(s, t)| (convert(s), t.trim_end_matches('\n').to_string()))
                    .filter(|(_, t)| !t.is_empty())
                    .collect(),
                Err(_) => vec![(Style::default(), line.to_string())],
            }
        })
        .collect()
}

/// Highlights Python source, every line.
pub fn highlight_python(code: &str, syntect_theme: &str) -> Highlighted {
    Highlighted {
        lines: highlight_lines(code.lines(), "python", syntect_theme)
            .into_iter()
            .map(Some)
            .collect(),
    }
}

/// Highlights the fenced code blocks of a markdown text; prose lines stay `None`.
pub fn highlight_markdown(text: &str, syntect_theme: &str) -> Highlighted {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Option<StyledLine>> = vec![None; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        if let Some(lang) = lines[i].trim_start().strip_prefix("```") {
            let lang = lang.trim();
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && !lines[end].trim_start().starts_with("```") {
                end += 1;
            }
            let lang = if lang.is_empty() { "txt" } else { lang };
            for (k, styled) in
                highlight_lines(lines[start..end].iter().copied(), lang, syntect_theme)
                    .into_iter()
                    .enumerate()
            {
                out[start + k] = Some(styled);
            }
            i = end + 1;
        } else {
            i += 1;
        }
    }
    Highlighted { lines: out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_gets_colours_and_markdown_prose_does_not() {
        let h = highlight_python("def f(x):\n    return x\n", "base16-ocean.dark");
        assert_eq!(h.lines.len(), 2);
        let first = h.lines[0].as_ref().expect("code line");
        let text: String = first.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, "def f(x):");
        let colours: std::collections::BTreeSet<String> =
            first.iter().map(|(s, _)| format!("{:?}", s.fg)).collect();
        assert!(colours.len() >= 2, "one colour only: {colours:?}");

        let md = highlight_markdown("Intro\n```python\nx = 1\n```\nOutro", "InspiredGitHub");
        assert_eq!(md.lines.len(), 5);
        assert!(md.lines[0].is_none());
        assert!(md.lines[2].is_some());
        assert!(md.lines[4].is_none());
    }
}
