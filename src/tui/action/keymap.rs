//! The keymap: which [`KeyChord`] runs which [`Action`] in which [`Scope`] (the list, a
//! screen or a popup), from the action table's default keys ([`ACTIONS`]) and the user's
//! `[keys]` table, and the keys the help screen and the hints show. Apart from the actions because
//! the bindings change with the keys people ask for, the vocabulary with the features.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

use super::chord::KeyChord;
use super::{ACTIONS, Action};

/// An action name of the config (`none`: unbind), checked to be bindable.
fn parse_action(key: &str, action: &str) -> Result<Option<Action>> {
    if action == "none" {
        return Ok(None);
    }
    let parsed: Action = serde_json::from_value(serde_json::Value::String(action.to_string()))
        .map_err(|_| anyhow::anyhow!("key `{key}`: unknown action `{action}`"))?;
    if !Action::BINDABLE.contains(&parsed) {
        bail!("key `{key}`: action `{action}` cannot be bound to a key");
    }
    Ok(Some(parsed))
}

/// Where keys are read: the list and its panes, or a screen with keys of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// The list and the detail panes (`[keys]`).
    Main,
    /// The Stats screen (`S`; `[keys.stats]`).
    Stats,
    /// The Compare screen and its drill-down (`C`; `[keys.compare]`).
    Compare,
    /// The Training screen (`T`; `[keys.training]`).
    Training,
    /// The presenter (`P`, `sebx present`; `[keys.present]`).
    Present,
    /// An open popup over the list (the category picker, agreement, extra keys, the
    /// runtime offer; `[keys.popup]`): its keys come before the list's.
    Popup,
}

impl Scope {
    /// The scopes with a table of their own in the config (`[keys.stats]`).
    pub const TABLES: [Scope; 5] = [
        Scope::Stats,
        Scope::Compare,
        Scope::Training,
        Scope::Present,
        Scope::Popup,
    ];

    /// The name of its table in the config (`[keys.stats]`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Main => "main",
            Scope::Stats => "stats",
            Scope::Compare => "compare",
            Scope::Training => "training",
            Scope::Present => "present",
            Scope::Popup => "popup",
        }
    }
}

/// One entry of the config's `[keys]` table: `"x" = "quit"`, or a screen's table
/// (`[keys.stats]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum KeyEntry {
    Action(String),
    Screen(BTreeMap<String, String>),
}

/// Keys to actions, per [`Scope`]. Built from the action table's default keys, then the
/// user's `[keys]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: BTreeMap<(Scope, KeyChord), Action>,
    /// Keys in the order they were bound, for the help screen and the hints.
    order: Vec<(Scope, KeyChord)>,
}

impl Default for Keymap {
    fn default() -> Keymap {
        let mut map = Keymap {
            bindings: BTreeMap::new(),
            order: Vec::new(),
        };
        // Every scope's shared keys first: a scope's own key (`q` closing a screen) then
        // takes the key over there.
        for spec in ACTIONS {
            for key in spec.keys {
                if let Ok(chord) = KeyChord::parse(key) {
                    map.bind_everywhere(chord, spec.action);
                }
            }
        }
        for spec in ACTIONS {
            for (scope, key) in spec.only {
                if let Ok(chord) = KeyChord::parse(key) {
                    map.bind(*scope, chord, spec.action);
                }
            }
        }
        map
    }
}

impl Keymap {
    /// Binds (or rebinds) a key in one scope.
    pub fn bind(&mut self, scope: Scope, chord: KeyChord, action: Action) {
        if self.bindings.insert((scope, chord), action).is_none() {
            self.order.push((scope, chord));
        }
    }

    /// Binds a key in every scope of the action.
    pub fn bind_everywhere(&mut self, chord: KeyChord, action: Action) {
        for scope in action.scopes() {
            self.bind(*scope, chord, action);
        }
    }

    /// Binds a key the user chose: it leads the action's keys, so hints show it.
    fn bind_first(&mut self, scope: Scope, chord: KeyChord, action: Action) {
        self.bind(scope, chord, action);
        self.order.retain(|c| *c != (scope, chord));
        self.order.insert(0, (scope, chord));
    }

    fn unbind(&mut self, scope: Scope, chord: KeyChord) {
        self.bindings.remove(&(scope, chord));
        self.order.retain(|c| *c != (scope, chord));
    }

    /// Applies user bindings (`"x" = "quit"`, `"j" = "none"` to unbind) onto this keymap:
    /// an action is bound in each of its scopes, `none` unbinds the key from the list.
    pub fn apply_overrides(&mut self, overrides: &BTreeMap<String, String>) -> Result<()> {
        for (key, action) in overrides {
            let chord = KeyChord::parse(key)?;
            match parse_action(key, action)? {
                None => self.unbind(Scope::Main, chord),
                Some(a) => {
                    for scope in a.scopes() {
                        self.bind_first(*scope, chord, a);
                    }
                }
            }
        }
        Ok(())
    }

    /// Applies the config's whole `[keys]` table: entries as [`Keymap::apply_overrides`],
    /// and a screen's table (`[keys.stats]`) binding or unbinding keys of that screen only.
    pub fn apply_config(&mut self, keys: &BTreeMap<String, KeyEntry>) -> Result<()> {
        let mut plain = BTreeMap::new();
        for (name, entry) in keys {
            match entry {
                KeyEntry::Action(a) => {
                    plain.insert(name.clone(), a.clone());
                }
                KeyEntry::Screen(table) => {
                    let Some(scope) = Scope::TABLES.into_iter().find(|s| s.name() == name) else {
                        let names: Vec<&str> = Scope::TABLES.iter().map(|s| s.name()).collect();
                        bail!("`[keys.{name}]`: no such screen ({})", names.join(", "));
                    };
                    for (key, action) in table {
                        let chord = KeyChord::parse(key)?;
                        match parse_action(key, action)? {
                            None => self.unbind(scope, chord),
                            Some(a) if a.scopes().contains(&scope) => {
                                self.bind_first(scope, chord, a)
                            }
                            Some(_) => bail!(
                                "[keys.{name}] key `{key}`: `{action}` is not an action of the {name} screen"
                            ),
                        }
                    }
                }
            }
        }
        self.apply_overrides(&plain)
    }

    /// The action bound to a key event on the list, if any. Shift is carried by the
    /// character itself (`G`), as terminals differ on reporting it.
    pub fn action_for(&self, event: &KeyEvent) -> Option<Action> {
        self.action_in(Scope::Main, event)
    }

    /// The action bound to a key event in `scope`.
    pub fn action_in(&self, scope: Scope, event: &KeyEvent) -> Option<Action> {
        let chord = KeyChord::from_event(event)?;
        self.bindings.get(&(scope, chord)).copied()
    }

    /// A line of key hints for `scope`, generated from the keymap in force: each item's
    /// actions' first keys, then what they do (`←→ run · s sort`). Items whose actions are
    /// all unbound are left out.
    pub fn hint(&self, scope: Scope, items: &[(&[Action], &str)]) -> String {
        let mut parts = Vec::new();
        for (actions, what) in items {
            let keys: Vec<String> = actions
                .iter()
                .filter_map(|a| self.keys_in(scope, *a).first().map(|k| k.to_string()))
                .collect();
            if keys.is_empty() {
                continue;
            }
            // Arrows run together (`↑↓`); named keys are spaced (`pgup pgdn`).
            let glyph = |k: &str| k.chars().count() == 1 && !k.chars().all(char::is_alphanumeric);
            let mut joined = String::new();
            for (i, k) in keys.iter().enumerate() {
                if i > 0 && !(glyph(k) && glyph(&keys[i - 1])) {
                    joined.push(' ');
                }
                joined.push_str(k);
            }
            let keys = joined;
            parts.push(if what.is_empty() {
                keys
            } else {
                format!("{keys} {what}")
            });
        }
        parts.join(" · ")
    }

    /// The first key of `action` in `scope` as the hints write it (`None`: unbound).
    pub fn key_in(&self, scope: Scope, action: Action) -> Option<String> {
        self.keys_in(scope, action).first().map(|k| k.to_string())
    }

    /// `"{key} {what}"` with the first key of `action` on the list, for a hint inside a
    /// sentence (`c clears them`); `None` when nothing runs it.
    pub fn says(&self, action: Action, what: &str) -> Option<String> {
        self.says_in(Scope::Main, action, what)
    }

    /// [`Keymap::says`] in `scope`.
    pub fn says_in(&self, scope: Scope, action: Action, what: &str) -> Option<String> {
        self.key_in(scope, action).map(|k| format!("{k} {what}"))
    }

    /// [`Keymap::says`] as an aside after a sentence (` (c clears them)`), or nothing.
    pub fn aside(&self, action: Action, what: &str) -> String {
        self.says(action, what)
            .map_or(String::new(), |s| format!(" ({s})"))
    }

    /// Digits, then lower-case letters, that no key of this map takes (unmodified): what
    /// label mode can give categories without hiding a key. Digits always count: label
    /// mode takes them over from the pane keys by design.
    pub fn free_chars(&self) -> Vec<char> {
        ('0'..='9')
            .chain('a'..='z')
            .filter(|c| {
                c.is_ascii_digit()
                    || self
                        .action_for(&KeyEvent::new(KeyCode::Char(*c), KeyModifiers::NONE))
                        .is_none()
            })
            .collect()
    }

    /// Keys bound to `action` on the list, in binding order.
    pub fn keys_for(&self, action: Action) -> Vec<KeyChord> {
        self.keys_in(Scope::Main, action)
    }

    /// Keys bound to `action` in `scope`, in binding order.
    pub fn keys_in(&self, scope: Scope, action: Action) -> Vec<KeyChord> {
        self.order
            .iter()
            .filter(|c| c.0 == scope && self.bindings.get(c) == Some(&action))
            .map(|c| c.1)
            .collect()
    }

    /// The help screen's rows: every bindable action with its keys and description.
    /// Every bindable action with its keys: the [`Action::ESSENTIAL`] ones first, then the
    /// rest in [`Action::BINDABLE`] order.
    /// The screens' own actions follow, with their keys there.
    pub fn help_rows(&self) -> Vec<(String, &'static str, Action)> {
        Action::ESSENTIAL
            .iter()
            .chain(
                Action::BINDABLE
                    .iter()
                    .filter(|a| !Action::ESSENTIAL.contains(a)),
            )
            .map(|a| {
                let scopes: &[Scope] = if a.scopes().contains(&Scope::Main) {
                    &[Scope::Main]
                } else {
                    a.scopes()
                };
                let mut keys: Vec<String> = Vec::new();
                for scope in scopes {
                    for k in self.keys_in(*scope, *a) {
                        let k = k.to_string();
                        if !keys.contains(&k) {
                            keys.push(k);
                        }
                    }
                }
                let keys = if keys.is_empty() {
                    "(unbound)".to_string()
                } else {
                    keys.join(" ")
                };
                (keys, a.description(), *a)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_rebind_and_unbind() {
        let mut map = Keymap::default();
        let mut o = BTreeMap::new();
        o.insert("x".to_string(), "quit".to_string());
        o.insert("q".to_string(), "none".to_string());
        map.apply_overrides(&o).expect("applies");
        let x = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
        let q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(map.action_for(&x), Some(Action::Quit));
        assert_eq!(map.action_for(&q), None);
        o.clear();
        o.insert("y".to_string(), "fly".to_string());
        assert!(map.apply_overrides(&o).is_err());
    }

    #[test]
    fn shifted_keys_match_however_the_terminal_reports_them() {
        let map = Keymap::default();
        for mods in [KeyModifiers::NONE, KeyModifiers::SHIFT] {
            let g = KeyEvent::new(KeyCode::Char('G'), mods);
            assert_eq!(map.action_for(&g), Some(Action::Bottom));
            let back = KeyEvent::new(KeyCode::BackTab, mods);
            assert_eq!(map.action_for(&back), Some(Action::PrevPane));
        }
        let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(map.action_for(&ctrl_d), Some(Action::ScrollDown));
        let d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::NONE);
        assert_eq!(map.action_for(&d), None);
    }

    #[test]
    fn config_names_round_trip() {
        for a in Action::BINDABLE {
            let mut map = Keymap::default();
            let mut o = BTreeMap::new();
            o.insert("f12".to_string(), a.config_name());
            map.apply_overrides(&o).expect("its own name binds");
            for scope in a.scopes() {
                assert_eq!(
                    map.keys_in(*scope, a).first(),
                    Some(&KeyChord::parse("f12").expect("f12")),
                    "the user's key leads"
                );
            }
        }
        assert_eq!(
            Action::CycleVerdictFilter.config_name(),
            "cycle_verdict_filter"
        );
    }

    #[test]
    fn every_bindable_action_has_a_default_key() {
        let map = Keymap::default();
        for a in Action::BINDABLE {
            for scope in a.scopes() {
                assert!(
                    !map.keys_in(*scope, a).is_empty(),
                    "{a:?} unbound in {scope:?}"
                );
            }
        }
    }
}
