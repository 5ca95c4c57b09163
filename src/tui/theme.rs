//! The explorer's colours: a struct of [`Style`] fields loaded from TOML (`themes/*.toml`).
//! Drawing code takes every colour from here; code highlighting uses the syntect theme it names.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use anyhow::{Context, Result, bail};
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use crate::model::Verdict;

use super::entry::Shown;

/// Themes shipped in the binary, by name.
pub const BUILTIN_THEMES: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

macro_rules! theme_struct {
    ($($(#[doc = $doc:expr])* $field:ident),* $(,)?) => {
        /// Every style the explorer draws with.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            /// The theme's name (`dark`, `light`, `high-contrast`, or a file's).
            pub name: String,
            /// The syntect theme used to highlight code (one of syntect's default themes).
            pub syntect_theme: String,
            $($(#[doc = $doc])* pub $field: Style,)*
        }

        /// Names of all style fields, as written in theme files.
        pub const STYLE_NAMES: &[&str] = &[$(stringify!($field)),*];

        impl Theme {
            fn style_mut(&mut self, name: &str) -> Option<&mut Style> {
                match name {
                    $(stringify!($field) => Some(&mut self.$field),)*
                    _ => None,
                }
            }

            fn empty(name: &str) -> Theme {
                Theme {
                    name: name.to_string(),
                    syntect_theme: "base16-ocean.dark".to_string(),
                    $($field: Style::default(),)*
                }
            }
        }
    };
}

theme_struct!(
    /// Text and background of the whole screen.
    base,
    border,
    /// Border of the pane that has the focus.
    border_focused,
    title,
    column_header,
    /// Heading line of a group in the rollout list.
    group_header,
    /// The selected row.
    selected,
    /// Secondary text.
    dim,
    verdict_right,
    verdict_result_error,
    verdict_exe_error,
    verdict_use_numpy,
    verdict_without_zwc,
    /// Not graded yet.
    verdict_pending,
    /// A stored score that says "failed" without naming a verdict, or a grading error.
    verdict_failed,
    /// Hallucinated names and other errors.
    error,
    warning,
    /// Inline hints such as the NumPy name of a zwc call.
    hint,
    /// Characters matched by the fuzzy search.
    matched,
    /// The gutter mark of the code block the grader extracted.
    extracted_marker,
    /// Line numbers.
    gutter,
    /// Markdown headings.
    heading,
    /// Markdown `inline code`.
    inline_code,
    diff_insert,
    diff_delete,
    status_bar,
    /// Key names in the status bar and help.
    status_key,
    tab_active,
    tab_inactive,
    progress,
    /// Background of popups (help, issues).
    popup,
    /// Graph drawing: boxes of values that are ZWCArrays (or tuples of them).
    value_zwc_array,
    /// Graph drawing: boxes of plain NumPy arrays (`zwc.rfx` results).
    value_numpy_array,
    /// Graph drawing: boxes of plain Python values and numbers.
    value_python,
);

/// One style as written in TOML.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StyleSpec {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    modifiers: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    syntect_theme: Option<String>,
    /// Start from this built-in theme; styles not given are taken from it.
    extends: Option<String>,
    #[serde(default)]
    styles: BTreeMap<String, StyleSpec>,
}

impl StyleSpec {
    fn to_style(&self, field: &str) -> Result<Style> {
        let mut style = Style::default();
        if let Some(fg) = &self.fg {
            style = style.fg(parse_color(fg).with_context(|| format!("`{field}.fg`"))?);
        }
        if let Some(bg) = &self.bg {
            style = style.bg(parse_color(bg).with_context(|| format!("`{field}.bg`"))?);
        }
        for m in &self.modifiers {
            let modifier = match m.as_str() {
                "bold" => Modifier::BOLD,
                "dim" => Modifier::DIM,
                "italic" => Modifier::ITALIC,
                "underlined" => Modifier::UNDERLINED,
                "reversed" => Modifier::REVERSED,
                "crossed_out" => Modifier::CROSSED_OUT,
                other => bail!("`{field}`: unknown modifier `{other}`"),
            };
            style = style.add_modifier(modifier);
        }
        Ok(style)
    }
}

fn parse_color(text: &str) -> Result<Color> {
    Color::from_str(text).map_err(|_| anyhow::anyhow!("not a colour: `{text}`"))
}

impl Theme {
    /// Parses a theme file's text. Styles it does not set come from `extends` (default: none).
    pub fn from_toml(text: &str) -> Result<Theme> {
        let file: ThemeFile = toml::from_str(text).context("not a valid theme file")?;
        let mut theme = match &file.extends {
            Some(base) => Theme::builtin(base)
                .with_context(|| format!("`extends`: no built-in theme `{base}`"))?,
            None => Theme::empty("custom"),
        };
        if let Some(name) = file.name {
            theme.name = name;
        }
        if let Some(st) = file.syntect_theme {
            theme.syntect_theme = st;
        }
        for (key, spec) in &file.styles {
            let style = spec.to_style(key)?;
            let Some(slot) = theme.style_mut(key) else {
                bail!("unknown style `{key}` (known: {})", STYLE_NAMES.join(", "));
            };
            *slot = style;
        }
        Ok(theme)
    }

    /// A theme shipped in the binary.
    pub fn builtin(name: &str) -> Option<Theme> {
        BUILTIN_THEMES
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, text)| Theme::from_toml(text).ok())
    }

    /// The default (dark) theme.
    pub fn dark() -> Theme {
        Theme::builtin("dark").unwrap_or_else(|| Theme::empty("dark"))
    }

    /// Resolves a theme by built-in name, by a file in `config_themes` (`NAME.toml`), or by path.
    pub fn resolve(name_or_path: &str, config_themes: Option<&Path>) -> Result<Theme> {
        if let Some(t) = Theme::builtin(name_or_path) {
            return Ok(t);
        }
        let mut candidates = Vec::new();
        if let Some(dir) = config_themes {
            candidates.push(dir.join(format!("{name_or_path}.toml")));
        }
        candidates.push(Path::new(name_or_path).to_path_buf());
        for path in candidates {
            if path.is_file() {
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read theme {}", path.display()))?;
                return Theme::from_toml(&text).with_context(|| format!("in {}", path.display()));
            }
        }
        bail!(
            "no theme `{name_or_path}` (built-in: {})",
            BUILTIN_THEMES.map(|(n, _)| n).join(", ")
        )
    }

    /// The style of a verdict.
    pub fn verdict(&self, verdict: Verdict) -> Style {
        match verdict {
            Verdict::Right => self.verdict_right,
            Verdict::ResultError => self.verdict_result_error,
            Verdict::ExeError => self.verdict_exe_error,
            Verdict::UseNumpy => self.verdict_use_numpy,
            Verdict::WithoutZwc => self.verdict_without_zwc,
        }
    }

    /// The style of a verdict cell as the list shows it (pending, failed, a verdict).
    pub fn shown(&self, shown: Shown) -> Style {
        match shown {
            Shown::Verdict(v) => self.verdict(v),
            Shown::StoredFail | Shown::Error => self.verdict_failed,
            Shown::Pending | Shown::Grading => self.verdict_pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_set_every_style() {
        for (name, text) in BUILTIN_THEMES {
            let file: ThemeFile = toml::from_str(text).expect("theme parses");
            for style in STYLE_NAMES {
                assert!(file.styles.contains_key(*style), "{name} lacks {style}");
            }
            let theme = Theme::from_toml(text).expect("theme loads");
            assert_eq!(theme.name, name);
        }
    }

    #[test]
    fn extends_and_errors() {
        let t = Theme::from_toml(
            "extends = \"dark\"\n[styles]\nerror = { fg = \"#ff0000\", modifiers = [\"bold\"] }",
        )
        .expect("loads");
        assert_eq!(t.error.fg, Some(Color::Rgb(255, 0, 0)));
        assert_eq!(t.base, Theme::dark().base);
        let err = Theme::from_toml("[styles]\nerorr = { fg = \"red\" }").expect_err("typo");
        assert!(format!("{err:#}").contains("unknown style `erorr`"));
        let err = Theme::from_toml("[styles]\nerror = { fg = \"nocolour\" }").expect_err("bad");
        assert!(format!("{err:#}").contains("not a colour"));
    }
}
