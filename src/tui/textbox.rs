//! The one text-editing component of the explorer: every text box (the search, go to line,
//! the step range, a label's note, a bookmark's caption) is a [`TextBox`], typed into with
//! the same keys ([`action_for_key`], its `Component::key`: the key table lives with the
//! keymap, in `action::text_keys`) and the same [`Edit`] actions.
//!
//! While a box is open its keys are the box's: the usual line-editing keys edit, Enter
//! accepts, Esc cancels, Ctrl-C quits, and any other key is ignored (the box stays open and
//! nothing else happens). Characters a box cannot hold (a letter in go to line) are ignored
//! the same way.

pub use super::action::text_box_action as action_for_key;
use super::action::{Action, Edit, Keymap, Scope};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

/// The text boxes' keys, for the help (they are the same in every box and not rebound);
/// the keys that open a box are the keymap's.
pub fn keys_help(keys: &Keymap) -> String {
    let open: Vec<String> = [
        Action::Search,
        Action::GotoLine,
        Action::StepRange,
        Action::EditNote,
        Action::BookmarkCaption,
    ]
    .into_iter()
    .filter_map(|a| keys.key_in(Scope::Main, a))
    .collect();
    let screens = keys
        .key_in(Scope::Stats, Action::Search)
        .map_or(String::new(), |k| {
            format!(", {k} on the Stats map and the Training screen")
        });
    format!(
        "In a text box ({}{screens}): {}, ctrl-c quits; ← → home end ctrl-a ctrl-e move; backspace delete ctrl-w ctrl-u ctrl-k delete; ↑ ↓ this box's history; any other key is ignored",
        open.join(" "),
        box_keys("accepts")
    )
}

/// The key that accepts an open box's text, as hints name it (its key table is
/// [`action_for_key`]: fixed, whatever the keymap binds).
pub const SUBMIT_KEY: &str = "enter";
/// The key that closes an open box and changes nothing.
pub const CANCEL_KEY: &str = "esc";

/// An open box's keys in words: "enter saves, esc cancels" for `submit` = "saves".
pub fn box_keys(submit: &str) -> String {
    format!("{SUBMIT_KEY} {submit}, {CANCEL_KEY} cancels")
}

/// Which characters a box holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Accepts {
    /// Any character.
    #[default]
    Any,
    /// Digits (a line number).
    Digits,
    /// Digits, `-` and spaces (a step range).
    Range,
}

impl Accepts {
    fn accepts(self, c: char) -> bool {
        match self {
            Accepts::Any => !c.is_control(),
            Accepts::Digits => c.is_ascii_digit(),
            Accepts::Range => c.is_ascii_digit() || c == '-' || c == ' ',
        }
    }
}

/// What an action did to a text box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// The text or the cursor changed (or the edit was ignored); the box stays open.
    Edited,
    /// Enter: the box is closed with this text (also added to its history).
    Submitted(String),
    /// Esc: the box is closed, nothing changes.
    Cancelled,
    /// The box is closed, or the action is not typing.
    Other,
}

/// Most entries a box's history keeps.
const HISTORY: usize = 100;

/// A one-line text box: its text, cursor and history. Closed until opened; the history
/// lasts across openings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextBox {
    open: bool,
    text: String,
    /// Byte offset of the cursor in `text` (on a character boundary).
    cursor: usize,
    /// The whole text is selected: typing replaces it, a deletion clears it.
    selected: bool,
    /// The row the text is for (a note's, a caption's rollout); 0 for the others.
    pub row: usize,
    accepts: Accepts,
    /// Submitted texts, oldest first.
    history: Vec<String>,
    /// The history entry shown (↑/↓), and the text typed before recalling it.
    recall: Option<usize>,
    draft: String,
}

impl TextBox {
    /// A closed box that holds `accepts`.
    pub fn new(accepts: Accepts) -> TextBox {
        TextBox {
            accepts,
            ..TextBox::default()
        }
    }

    /// Opens the box on `text` for `row`, the cursor at the end; `select`: the text is
    /// selected, so typing replaces it.
    pub fn open(&mut self, row: usize, text: &str, select: bool) {
        self.open = true;
        self.row = row;
        self.text = text.to_string();
        self.cursor = self.text.len();
        self.selected = select && !text.is_empty();
        self.recall = None;
        self.draft.clear();
    }

    /// Closes the box without a word (the text is kept until it is opened again).
    pub fn close(&mut self) {
        self.open = false;
        self.selected = false;
    }

    pub fn is_open(&self) -> bool {
        self.open
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the text is selected (typing replaces it).
    pub fn is_selected(&self) -> bool {
        self.selected
    }

    /// Cursor position in characters.
    pub fn cursor(&self) -> usize {
        self.text[..self.cursor].chars().count()
    }

    /// Submitted texts, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Applies `action` to the box (when it is open).
    pub fn update(&mut self, action: &Action) -> Typed {
        if !self.open {
            return Typed::Other;
        }
        match action {
            Action::Cancel => {
                self.close();
                Typed::Cancelled
            }
            Action::Edit(Edit::Submit) => {
                self.close();
                let text = self.text.clone();
                self.remember(&text);
                Typed::Submitted(text)
            }
            Action::Edit(edit) => {
                self.edit(*edit);
                Typed::Edited
            }
            _ => Typed::Other,
        }
    }

    fn remember(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        self.history.retain(|h| h != text);
        self.history.push(text.to_string());
        if self.history.len() > HISTORY {
            self.history.remove(0);
        }
    }

    fn set_text(&mut self, text: String) {
        self.text = text;
        self.cursor = self.text.len();
        self.selected = false;
    }

    fn prev_boundary(&self, at: usize) -> usize {
        self.text[..at].char_indices().last().map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self, at: usize) -> usize {
        self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
    }

    fn edit(&mut self, edit: Edit) {
        if self.selected {
            self.selected = false;
            match edit {
                Edit::Insert(c) if self.accepts.accepts(c) => {
                    self.set_text(String::new());
                }
                Edit::Insert(_) => {
                    self.selected = true;
                    return;
                }
                Edit::Backspace | Edit::Delete | Edit::DeleteWord | Edit::DeleteToStart => {
                    self.set_text(String::new());
                    return;
                }
                Edit::Left | Edit::Home => {
                    self.cursor = 0;
                    return;
                }
                _ => {}
            }
        }
        match edit {
            Edit::Insert(c) => {
                if self.accepts.accepts(c) {
                    self.text.insert(self.cursor, c);
                    self.cursor += c.len_utf8();
                }
            }
            Edit::Backspace => {
                let start = self.prev_boundary(self.cursor);
                self.text.replace_range(start..self.cursor, "");
                self.cursor = start;
            }
            Edit::Delete => {
                let end = self.next_boundary(self.cursor);
                self.text.replace_range(self.cursor..end, "");
            }
            Edit::Left => self.cursor = self.prev_boundary(self.cursor),
            Edit::Right => self.cursor = self.next_boundary(self.cursor),
            Edit::Home => self.cursor = 0,
            Edit::End => self.cursor = self.text.len(),
            Edit::DeleteWord => {
                // As readline's Ctrl-W: the spaces before the cursor, then the word.
                let before = &self.text[..self.cursor];
                let trimmed = before.trim_end();
                let start = trimmed
                    .char_indices()
                    .rev()
                    .find(|(_, c)| c.is_whitespace())
                    .map_or(0, |(i, c)| i + c.len_utf8());
                self.text.replace_range(start..self.cursor, "");
                self.cursor = start;
            }
            Edit::DeleteToStart => {
                self.text.replace_range(..self.cursor, "");
                self.cursor = 0;
            }
            Edit::DeleteToEnd => self.text.truncate(self.cursor),
            Edit::HistoryPrev => {
                let mut at = match self.recall {
                    Some(i) => i.saturating_sub(1),
                    None => {
                        self.draft = self.text.clone();
                        let Some(last) = self.history.len().checked_sub(1) else {
                            return;
                        };
                        last
                    }
                };
                // Recalling the text already shown changes nothing: one further back.
                if self.recall.is_none() && self.history.get(at) == Some(&self.text) && at > 0 {
                    at -= 1;
                }
                if let Some(h) = self.history.get(at).cloned() {
                    self.recall = Some(at);
                    self.set_text(h);
                }
            }
            Edit::HistoryNext => {
                let Some(i) = self.recall else { return };
                if let Some(h) = self.history.get(i + 1).cloned() {
                    self.recall = Some(i + 1);
                    self.set_text(h);
                } else {
                    self.recall = None;
                    let draft = std::mem::take(&mut self.draft);
                    self.set_text(draft);
                }
            }
            Edit::Submit => {}
        }
    }

    /// The box drawn inline: the text with a `▏` cursor; a selected text is reversed.
    pub fn spans(&self, style: Style) -> Vec<Span<'static>> {
        if self.selected {
            return vec![
                Span::styled(self.text.clone(), style.add_modifier(Modifier::REVERSED)),
                Span::styled("▏", style),
            ];
        }
        vec![
            Span::styled(self.text[..self.cursor].to_string(), style),
            Span::styled("▏", style),
            Span::styled(self.text[self.cursor..].to_string(), style),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(b: &mut TextBox, text: &str) {
        for c in text.chars() {
            b.update(&Action::Edit(Edit::Insert(c)));
        }
    }

    #[test]
    fn line_editing_keys() {
        let mut b = TextBox::new(Accepts::Any);
        assert_eq!(b.update(&Action::Edit(Edit::Insert('x'))), Typed::Other);
        b.open(0, "", false);
        typed(&mut b, "np.zeros axis=1");
        b.update(&Action::Edit(Edit::DeleteWord));
        assert_eq!(b.text(), "np.zeros ");
        b.update(&Action::Edit(Edit::DeleteWord));
        assert_eq!(b.text(), "");
        typed(&mut b, "héllo world");
        b.update(&Action::Edit(Edit::Home));
        b.update(&Action::Edit(Edit::Right));
        b.update(&Action::Edit(Edit::Right));
        b.update(&Action::Edit(Edit::Backspace));
        assert_eq!(b.text(), "hllo world");
        b.update(&Action::Edit(Edit::Delete));
        assert_eq!(b.text(), "hlo world");
        b.update(&Action::Edit(Edit::Insert('e')));
        assert_eq!((b.text(), b.cursor()), ("helo world", 2));
        b.update(&Action::Edit(Edit::DeleteToStart));
        assert_eq!((b.text(), b.cursor()), ("lo world", 0));
        b.update(&Action::Edit(Edit::End));
        b.update(&Action::Edit(Edit::Left));
        b.update(&Action::Edit(Edit::DeleteToEnd));
        assert_eq!(b.text(), "lo worl");
        assert_eq!(
            b.update(&Action::Edit(Edit::Submit)),
            Typed::Submitted("lo worl".into())
        );
        assert!(!b.is_open());
    }

    #[test]
    fn a_selected_text_is_replaced_by_typing() {
        let mut b = TextBox::new(Accepts::Any);
        b.open(0, "np.deg2rad", true);
        typed(&mut b, "np.pi");
        assert_eq!(b.text(), "np.pi");
        b.open(0, "np.deg2rad", true);
        b.update(&Action::Edit(Edit::End));
        typed(&mut b, "(");
        assert_eq!(b.text(), "np.deg2rad(");
        b.open(0, "np.deg2rad", true);
        b.update(&Action::Edit(Edit::Backspace));
        assert_eq!(b.text(), "");
    }

    #[test]
    fn history_per_box() {
        let mut b = TextBox::new(Accepts::Digits);
        for line in ["12", "7"] {
            b.open(0, "", false);
            typed(&mut b, line);
            b.update(&Action::Edit(Edit::Submit));
        }
        b.open(0, "", false);
        typed(&mut b, "3x");
        assert_eq!(b.text(), "3", "a letter is not a line number");
        b.update(&Action::Edit(Edit::HistoryPrev));
        assert_eq!(b.text(), "7");
        b.update(&Action::Edit(Edit::HistoryPrev));
        assert_eq!(b.text(), "12");
        b.update(&Action::Edit(Edit::HistoryPrev));
        assert_eq!(b.text(), "12");
        b.update(&Action::Edit(Edit::HistoryNext));
        assert_eq!(b.text(), "7");
        b.update(&Action::Edit(Edit::HistoryNext));
        assert_eq!(b.text(), "3", "past the newest: what was typed");
        assert_eq!(b.update(&Action::Cancel), Typed::Cancelled);
        assert_eq!(b.history(), ["12", "7"]);
    }
}
