//! The dump's extra keys in the list (issue 30): `V` lists the keys verl wrote beside the
//! sample (`acc`, `pred`, `request_id`, a reward's own keys), each with how many samples
//! have it and its values, commonest first; `enter` shows the highlighted key as a list
//! column (again: hides it), `→` lists its values and `enter` on one keeps only the samples
//! with that value (again, or `c`: every row). Values are compared as written (`True`,
//! `null`, `[1 2 3]`); a sample line without the key is `(absent)`. The values come from the
//! samples' metadata, where a run holds each key once and the values of keys with few of
//! them once (`model::sample::SharedExtras`); the summary is counted when the list opens.

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use super::action::{Action, Keymap, Scope};
use super::component::{Component, Cx, DrawCx};
use super::effects::{Effects, Handled};
use super::entry::Entry;
use super::layout::{fit, popup_area};
use super::state::{Corpus, Popup};
use super::theme::Theme;

/// Widest a column of values gets (longer values end in `…`).
const MAX_COLUMN: usize = 16;

/// Only the samples whose `key` has `value` (`None`: the line lacks the key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraFilter {
    pub key: Arc<str>,
    pub value: Option<Arc<str>>,
}

/// One extra key over the loaded samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySummary {
    pub key: Arc<str>,
    /// Samples whose line has the key.
    pub samples: usize,
    /// Each value with its samples, commonest first (`None`: lines without the key).
    pub values: Vec<(Option<Arc<str>>, usize)>,
}

impl KeySummary {
    /// Distinct values written (absence not counted).
    pub fn distinct(&self) -> usize {
        self.values.iter().filter(|(v, _)| v.is_some()).count()
    }

    /// The width of its list column: its name or its longest value, at most [`MAX_COLUMN`].
    fn width(&self) -> usize {
        self.values
            .iter()
            .filter_map(|(v, _)| v.as_deref().map(|v| v.chars().count()))
            .chain([self.key.chars().count()])
            .max()
            .unwrap_or(1)
            .clamp(1, MAX_COLUMN)
    }
}

/// Every extra key of the loaded samples, by name.
pub fn summarize(entries: &[Arc<Entry>]) -> Vec<KeySummary> {
    let mut samples = 0;
    let mut keys: HashMap<&Arc<str>, HashMap<&Arc<str>, usize>> = HashMap::new();
    for e in entries {
        let Some(m) = e.rollout.sample.as_deref() else {
            continue;
        };
        samples += 1;
        for (k, v) in m.extras.iter() {
            *keys.entry(k).or_default().entry(v).or_default() += 1;
        }
    }
    let mut out: Vec<KeySummary> = keys
        .into_iter()
        .map(|(key, counts)| {
            let with: usize = counts.values().sum();
            let mut values: Vec<(Option<Arc<str>>, usize)> = counts
                .into_iter()
                .map(|(v, n)| (Some(v.clone()), n))
                .collect();
            if with < samples {
                values.push((None, samples - with));
            }
            values.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            KeySummary {
                key: key.clone(),
                samples: with,
                values,
            }
        })
        .collect();
    out.sort_by(|a, b| a.key.cmp(&b.key));
    out
}

/// A value as the list and the picker write it.
fn shown(value: Option<&str>) -> &str {
    value.unwrap_or("(absent)")
}

/// The extra-key columns, the filter on a key's value and the picker (`V`).
#[derive(Debug, Clone, Default)]
pub struct ExtraKeys {
    /// Keys shown as list columns, with their widths, in the order chosen.
    pub columns: Vec<(Arc<str>, usize)>,
    pub filter: Option<ExtraFilter>,
    /// The picker's keys (counted when it opened).
    pub summary: Vec<KeySummary>,
    /// The highlighted key.
    pub cursor: usize,
    /// The highlighted value, when the picker lists the highlighted key's values.
    pub value_cursor: Option<usize>,
}

impl ExtraKeys {
    /// Whether the filter keeps `entry`: a sample whose key has the value chosen.
    pub fn accepts(&self, entry: &Entry) -> bool {
        let Some(f) = &self.filter else {
            return true;
        };
        entry
            .rollout
            .sample
            .as_deref()
            .is_some_and(|m| m.extra(&f.key) == f.value.as_deref())
    }

    /// The filter as the status bar names it (`acc=True`).
    pub fn filter_label(&self) -> Option<String> {
        self.filter
            .as_ref()
            .map(|f| format!("{}={}", f.key, shown(f.value.as_deref())))
    }

    pub fn clear_filter(&mut self) {
        self.filter = None;
    }

    /// A row's cell of column `key`: its value, `–` when the line lacks the key.
    pub fn cell(entry: &Entry, key: &str, width: usize) -> String {
        let value = entry.rollout.sample.as_deref().and_then(|m| m.extra(key));
        fit(value.unwrap_or("–"), width)
    }

    fn open(&mut self, corpus: &Corpus, fx: &mut Effects) {
        self.summary = summarize(&corpus.entries);
        if self.summary.is_empty() {
            fx.say("no extra keys: the loaded rows are no training samples, or their lines hold only input, output, gts, score, step and uid");
            return;
        }
        self.cursor = self.cursor.min(self.summary.len() - 1);
        self.value_cursor = None;
        fx.open(Popup::ExtraKeys);
    }

    fn choose(&mut self, keys: &Keymap, fx: &mut Effects) {
        let Some(k) = self.summary.get(self.cursor) else {
            return;
        };
        match self.value_cursor {
            None => {
                if let Some(at) = self.columns.iter().position(|(c, _)| *c == k.key) {
                    self.columns.remove(at);
                    fx.say(format!("column {} hidden", k.key));
                } else {
                    self.columns.push((k.key.clone(), k.width()));
                    fx.say(format!("column {} shown{}", k.key, again(keys, "hides it")));
                }
            }
            Some(v) => {
                let Some((value, n)) = k.values.get(v) else {
                    return;
                };
                let chosen = ExtraFilter {
                    key: k.key.clone(),
                    value: value.clone(),
                };
                if self.filter.as_ref() == Some(&chosen) {
                    self.filter = None;
                    fx.say(format!("every row again ({} filter off)", k.key));
                } else {
                    let clear = keys
                        .key_in(Scope::Main, Action::ClearFilters)
                        .map_or(String::new(), |c| format!(", or {c},"));
                    fx.say(format!(
                        "only the {n} samples with {}={}{}",
                        k.key,
                        shown(value.as_deref()),
                        again(keys, &format!("again{clear} shows every row"))
                    ));
                    self.filter = Some(chosen);
                }
                fx.refresh_view = true;
                fx.close();
            }
        }
    }
}

impl Component for ExtraKeys {
    /// The extra keys and their values.
    fn draw_popup(&self, popup: Popup, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
        if popup == Popup::ExtraKeys {
            draw_popup(frame, self, cx.theme, cx.keys, area);
        }
    }

    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        match action {
            Action::ExtraKeys => {
                self.open(cx.corpus, fx);
                Handled::Redraw
            }
            _ => Handled::Passed,
        }
    }

    fn update_popup(
        &mut self,
        popup: Popup,
        action: &Action,
        cx: &Cx<'_>,
        fx: &mut Effects,
    ) -> Handled {
        if popup != Popup::ExtraKeys {
            return Handled::Passed;
        }
        let values = self.summary.get(self.cursor).map_or(0, |k| k.values.len());
        let step =
            |at: usize, n: usize, by: isize| at.saturating_add_signed(by).min(n.saturating_sub(1));
        match (action, self.value_cursor) {
            (Action::Up | Action::Down, None) => {
                let by = if *action == Action::Up { -1 } else { 1 };
                self.cursor = step(self.cursor, self.summary.len(), by);
            }
            (Action::Up | Action::Down, Some(v)) => {
                let by = if *action == Action::Up { -1 } else { 1 };
                self.value_cursor = Some(step(v, values, by));
            }
            (Action::NextPane, None) => self.value_cursor = Some(0),
            (Action::PrevPane, Some(_)) => self.value_cursor = None,
            (Action::PopupChoose, _) => self.choose(cx.keys, fx),
            (Action::ExtraKeys | Action::Cancel, _) => fx.close(),
            (Action::Quit | Action::Resize { .. }, _) => return Handled::Passed,
            _ => return Handled::Unchanged,
        }
        Handled::Redraw
    }
}

/// ` (V → enter {what})`: how to come back to the picker's choice, from the keymap.
fn again(keys: &Keymap, what: &str) -> String {
    let open = keys.key_in(Scope::Main, Action::ExtraKeys);
    let choose = keys.key_in(Scope::Popup, Action::PopupChoose);
    match (open, choose) {
        (Some(o), Some(c)) => format!(" ({o} → {c} {what})"),
        _ => String::new(),
    }
}

/// The picker's key hints: `choose` says what choosing does, `mv` the pane key and what
/// it does (to the values, back to the keys).
fn popup_hint(keys: &Keymap, choose: &str, mv: (Action, &str)) -> String {
    let parts = [
        keys.hint(Scope::Popup, &[(&[Action::PopupChoose], choose)]),
        keys.hint(Scope::Main, &[(&[mv.0], mv.1), (&[Action::Cancel], "")]),
    ];
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    parts.join(" · ")
}

/// The picker's lines: the keys, or the highlighted key's values; and the highlighted line.
fn picker_lines(
    x: &ExtraKeys,
    theme: &Theme,
    keys: &Keymap,
    inner: usize,
) -> (String, Vec<Line<'static>>, usize) {
    let Some(k) = x.summary.get(x.cursor) else {
        return (String::new(), Vec::new(), 0);
    };
    let mark = |on: bool| if on { "✓" } else { " " };
    match x.value_cursor {
        None => {
            let name_w = x
                .summary
                .iter()
                .map(|k| k.key.chars().count())
                .max()
                .unwrap_or(4)
                .min(24);
            let lines = x
                .summary
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let column = x.columns.iter().any(|(c, _)| *c == k.key);
                    let common: Vec<String> = k
                        .values
                        .iter()
                        .take(3)
                        .map(|(v, n)| format!("{} {n}", fit_short(shown(v.as_deref()), 14)))
                        .collect();
                    let text = format!(
                        " {} {} {:>7} samples · {:>5} values: {}",
                        mark(column),
                        fit(&k.key, name_w),
                        k.samples,
                        k.distinct(),
                        common.join(" · ")
                    );
                    let line = Line::raw(fit(&text, inner));
                    if i == x.cursor {
                        line.patch_style(theme.selected)
                    } else {
                        line
                    }
                })
                .collect();
            (
                format!(
                    " Extra keys of the samples (✓: list column) · {} ",
                    popup_hint(
                        keys,
                        "column on/off",
                        (Action::NextPane, "its values, to filter")
                    )
                ),
                lines,
                x.cursor,
            )
        }
        Some(v) => {
            let lines = k
                .values
                .iter()
                .enumerate()
                .map(|(i, (value, n))| {
                    let on = x
                        .filter
                        .as_ref()
                        .is_some_and(|f| f.key == k.key && f.value == *value);
                    let text = format!(" {} {:>7}  {}", mark(on), n, shown(value.as_deref()));
                    let style = if value.is_none() {
                        theme.dim
                    } else {
                        theme.base
                    };
                    let line = Line::styled(fit(&text, inner), style);
                    if i == v {
                        line.patch_style(theme.selected)
                    } else {
                        line
                    }
                })
                .collect();
            (
                format!(
                    " {}: {} values (✓: the filter) · {} ",
                    k.key,
                    k.distinct(),
                    popup_hint(
                        keys,
                        "only these samples (again: all)",
                        (Action::PrevPane, "keys")
                    )
                ),
                lines,
                v,
            )
        }
    }
}

fn fit_short(text: &str, width: usize) -> String {
    fit(text, width.min(text.chars().count()))
}

/// Draws the picker (`V`), the highlighted line always in view.
pub fn draw_popup(frame: &mut Frame, x: &ExtraKeys, theme: &Theme, keys: &Keymap, area: Rect) {
    let width = area.width.saturating_sub(4).min(110);
    let inner = usize::from(width.saturating_sub(2));
    let (title, lines, at) = picker_lines(x, theme, keys, inner);
    let height = (lines.len() as u16 + 2)
        .min(area.height.saturating_sub(2))
        .max(3);
    let rows = usize::from(height.saturating_sub(2)).max(1);
    let skip = (at + 1).saturating_sub(rows);
    let rect = popup_area(area, width, height);
    frame.render_widget(Clear, rect);
    let block = crate::tui::layout::titled_box(theme, title, theme.popup, rect.width);
    let shown: Vec<Line> = lines.into_iter().skip(skip).take(rows).collect();
    frame.render_widget(Paragraph::new(shown).block(block), rect);
}
