//! The text boxes' key table, beside the keymap: while a box is open every key is the
//! box's, the same in every box and not rebound (the keys that open a box are the
//! keymap's). Also the one place a key is read as a typed character (a taxonomy's
//! category keys), so no part of the explorer matches raw key codes itself.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Action, Edit};

/// The action a key makes while a text box is open: an edit, Esc cancels, Ctrl-C quits;
/// `None` (ignored) for every other key.
pub fn text_box_action(key: &KeyEvent) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let edit = match key.code {
        KeyCode::Char('c') if ctrl => return Some(Action::Quit),
        KeyCode::Esc => return Some(Action::Cancel),
        KeyCode::Char(c) if ctrl => match c {
            'a' => Edit::Home,
            'e' => Edit::End,
            'b' => Edit::Left,
            'f' => Edit::Right,
            'h' => Edit::Backspace,
            'd' => Edit::Delete,
            'w' => Edit::DeleteWord,
            'u' => Edit::DeleteToStart,
            'k' => Edit::DeleteToEnd,
            'p' => Edit::HistoryPrev,
            'n' => Edit::HistoryNext,
            'j' | 'm' => Edit::Submit,
            _ => return None,
        },
        KeyCode::Char(_) if alt => return None,
        KeyCode::Char(c) => Edit::Insert(c),
        KeyCode::Backspace if alt => Edit::DeleteWord,
        KeyCode::Backspace => Edit::Backspace,
        KeyCode::Delete => Edit::Delete,
        KeyCode::Left => Edit::Left,
        KeyCode::Right => Edit::Right,
        KeyCode::Home => Edit::Home,
        KeyCode::End => Edit::End,
        KeyCode::Up => Edit::HistoryPrev,
        KeyCode::Down => Edit::HistoryNext,
        KeyCode::Enter => Edit::Submit,
        _ => return None,
    };
    Some(Action::Edit(edit))
}

/// The character a plain key types (no Ctrl or Alt; Shift is in the character), e.g. a
/// taxonomy's category key; `None` for any other key.
pub fn typed_char(key: &KeyEvent) -> Option<char> {
    let plain = !key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match key.code {
        KeyCode::Char(c) if plain => Some(c),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Option<Action> {
        text_box_action(&KeyEvent::new(code, modifiers))
    }

    #[test]
    fn keys_of_an_open_box() {
        let none = KeyModifiers::NONE;
        let ctrl = KeyModifiers::CONTROL;
        assert_eq!(
            key(KeyCode::Char('c'), ctrl),
            Some(Action::Quit),
            "ctrl-c quits from any box"
        );
        assert_eq!(key(KeyCode::Esc, none), Some(Action::Cancel));
        assert_eq!(
            key(KeyCode::Char('w'), ctrl),
            Some(Action::Edit(Edit::DeleteWord))
        );
        assert_eq!(
            key(KeyCode::Char('u'), ctrl),
            Some(Action::Edit(Edit::DeleteToStart))
        );
        assert_eq!(
            key(KeyCode::Char('q'), none),
            Some(Action::Edit(Edit::Insert('q')))
        );
        assert_eq!(
            key(KeyCode::Up, none),
            Some(Action::Edit(Edit::HistoryPrev))
        );
        assert_eq!(key(KeyCode::F(1), none), None, "stray keys are ignored");
        assert_eq!(key(KeyCode::Tab, none), None);
        assert_eq!(key(KeyCode::Char('x'), ctrl), None);
    }

    #[test]
    fn typed_characters() {
        let typed = |code, modifiers| typed_char(&KeyEvent::new(code, modifiers));
        assert_eq!(typed(KeyCode::Char('w'), KeyModifiers::NONE), Some('w'));
        assert_eq!(typed(KeyCode::Char('W'), KeyModifiers::SHIFT), Some('W'));
        assert_eq!(typed(KeyCode::Char('w'), KeyModifiers::CONTROL), None);
        assert_eq!(typed(KeyCode::Char('w'), KeyModifiers::ALT), None);
        assert_eq!(typed(KeyCode::Enter, KeyModifiers::NONE), None);
    }
}
