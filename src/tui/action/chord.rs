//! Keys as the keymap writes them: a [`KeyChord`] (`q`, `ctrl-d`, `shift-tab`, `pagedown`)
//! parsed from the config, matched against the terminal's key events, and shown in the help
//! and the hints. Apart from the keymap because it is the one place that knows the
//! terminal's key codes and how each terminal reports shifted keys.

use std::fmt;

use anyhow::{Result, bail};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key with modifiers, as written in keymaps: `q`, `ctrl-d`, `shift-tab`, `pagedown`, `?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyChord {
    pub code: ChordKey,
    pub ctrl: bool,
    pub alt: bool,
}

/// The key part of a [`KeyChord`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChordKey {
    Char(char),
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Tab,
    BackTab,
    Enter,
    Esc,
    Backspace,
    F(u8),
}

impl KeyChord {
    /// Parses `ctrl-d`, `alt-x`, `shift-tab`, `G`, `?`, `space`, `f1`, `pagedown`...
    pub fn parse(text: &str) -> Result<KeyChord> {
        let mut ctrl = false;
        let mut alt = false;
        let mut shift = false;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.chars().count() > 1 && lower.starts_with("ctrl-") {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.chars().count() > 1 && lower.starts_with("alt-") {
                alt = true;
                rest = &rest[4..];
            } else if rest.chars().count() > 1 && lower.starts_with("shift-") {
                shift = true;
                rest = &rest[6..];
            } else {
                break;
            }
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "up" => ChordKey::Up,
            "down" => ChordKey::Down,
            "left" => ChordKey::Left,
            "right" => ChordKey::Right,
            "pageup" | "pgup" => ChordKey::PageUp,
            "pagedown" | "pgdn" => ChordKey::PageDown,
            "home" => ChordKey::Home,
            "end" => ChordKey::End,
            "tab" if shift => ChordKey::BackTab,
            "tab" => ChordKey::Tab,
            "backtab" => ChordKey::BackTab,
            "enter" | "return" => ChordKey::Enter,
            "esc" | "escape" => ChordKey::Esc,
            "backspace" => ChordKey::Backspace,
            "space" => ChordKey::Char(' '),
            f if f.len() > 1
                && f.starts_with('f')
                && f[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                ChordKey::F(f[1..].parse().unwrap_or(0))
            }
            _ => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if shift => ChordKey::Char(c.to_ascii_uppercase()),
                    (Some(c), None) => ChordKey::Char(c),
                    _ => bail!("unknown key `{text}`"),
                }
            }
        };
        Ok(KeyChord { code, ctrl, alt })
    }

    /// The chord of a terminal key event (`None` for keys keymaps cannot name).
    pub fn from_event(event: &KeyEvent) -> Option<KeyChord> {
        let code = match event.code {
            KeyCode::Char(c) => ChordKey::Char(c),
            KeyCode::Up => ChordKey::Up,
            KeyCode::Down => ChordKey::Down,
            KeyCode::Left => ChordKey::Left,
            KeyCode::Right => ChordKey::Right,
            KeyCode::PageUp => ChordKey::PageUp,
            KeyCode::PageDown => ChordKey::PageDown,
            KeyCode::Home => ChordKey::Home,
            KeyCode::End => ChordKey::End,
            KeyCode::Tab => ChordKey::Tab,
            KeyCode::BackTab => ChordKey::BackTab,
            KeyCode::Enter => ChordKey::Enter,
            KeyCode::Esc => ChordKey::Esc,
            KeyCode::Backspace => ChordKey::Backspace,
            KeyCode::F(n) => ChordKey::F(n),
            _ => return None,
        };
        Some(KeyChord {
            code,
            ctrl: event.modifiers.contains(KeyModifiers::CONTROL),
            alt: event.modifiers.contains(KeyModifiers::ALT),
        })
    }
}

impl fmt::Display for KeyChord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        if self.alt {
            f.write_str("alt-")?;
        }
        match self.code {
            ChordKey::Char(' ') => f.write_str("space"),
            ChordKey::Char(c) => write!(f, "{c}"),
            ChordKey::Up => f.write_str("↑"),
            ChordKey::Down => f.write_str("↓"),
            ChordKey::Left => f.write_str("←"),
            ChordKey::Right => f.write_str("→"),
            ChordKey::PageUp => f.write_str("pgup"),
            ChordKey::PageDown => f.write_str("pgdn"),
            ChordKey::Home => f.write_str("home"),
            ChordKey::End => f.write_str("end"),
            ChordKey::Tab => f.write_str("tab"),
            ChordKey::BackTab => f.write_str("shift-tab"),
            ChordKey::Enter => f.write_str("enter"),
            ChordKey::Esc => f.write_str("esc"),
            ChordKey::Backspace => f.write_str("backspace"),
            ChordKey::F(n) => write!(f, "f{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_chords() {
        let c = KeyChord::parse("ctrl-d").expect("parses");
        assert!(c.ctrl);
        assert_eq!(c.code, ChordKey::Char('d'));
        assert_eq!(
            KeyChord::parse("shift-tab").expect("parses").code,
            ChordKey::BackTab
        );
        assert_eq!(
            KeyChord::parse("G").expect("parses").code,
            ChordKey::Char('G')
        );
        assert_eq!(
            KeyChord::parse("-").expect("parses").code,
            ChordKey::Char('-')
        );
        assert!(KeyChord::parse("nonsense").is_err());
    }
}
