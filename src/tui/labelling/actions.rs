//! Labelling's keys and actions: category keys, the note, accepting the suggestion, "next
//! unlabelled failure", the label filter and order, and its two popups (the category picker
//! and the agreement view). Changes are only queued here; the I/O step (`sidecars`) writes
//! them.

use ratatui::crossterm::event::KeyEvent;

use crate::model::labels::LabelRecord;
use crate::model::sampling::{LabelOrder, label_order_key};
use crate::model::taxonomy::CategoryId;

use super::super::action::{Action, typed_char};
use super::super::component::Cx;
use super::super::effects::{Effects, Handled};
use super::super::state::{Corpus, ListView, Popup, ViewRow};
use super::super::textbox::Typed;
use super::{LabelFilter, Labelling, PendingLabel, UNDO_LEVELS, Undo, describe_change};

/// Where a rollout is, as the status line says it: `line 2 of run_a`.
fn where_is(corpus: &Corpus, entry: &super::super::entry::Entry) -> String {
    let file = corpus
        .runs
        .get(entry.run)
        .map_or(String::new(), |r| format!(" of {}", r.name));
    format!("line {}{file}", entry.rollout.line)
}

impl Labelling {
    /// Keys this module takes before the keymap: category keys (the taxonomy's) in label
    /// mode and in the picker. A popup's other keys are the keymap's (`Scope::Popup`).
    pub fn action_for_key(&self, popup: Option<Popup>, key: &KeyEvent) -> Option<Action> {
        let category_key = typed_char(key).filter(|c| self.taxonomy.by_key(*c).is_some());
        match popup {
            Some(Popup::CategoryPicker) => category_key.map(Action::ToggleCategory),
            Some(_) => None,
            None if self.mode => category_key.map(Action::ToggleCategory),
            None => None,
        }
    }

    /// Handles the labelling actions (keys, note typing, filter, agreement).
    pub(super) fn handle(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        let (corpus, list) = (cx.corpus, cx.list);
        match self.note.update(action) {
            Typed::Edited => return Handled::Redraw,
            Typed::Submitted(text) if self.naming => {
                self.naming = false;
                let awaiting = self.awaiting.take();
                let name = text.trim();
                if name.is_empty() {
                    fx.say("not labelled: labels are signed, type a name");
                    return Handled::Redraw;
                }
                self.annotator = name.to_string();
                self.progress_dirty = true;
                fx.say(format!("labels are signed {name}"));
                // The label that waited for the name.
                return match awaiting {
                    Some(a) => self.handle(&a, cx, fx),
                    None => Handled::Redraw,
                };
            }
            Typed::Submitted(text) => {
                self.set_note(corpus, self.note.row, text.trim());
                return Handled::Redraw;
            }
            Typed::Cancelled if self.naming => {
                self.naming = false;
                self.awaiting = None;
                fx.say("not labelled: labels are signed, and no name was given");
                return Handled::Redraw;
            }
            Typed::Cancelled => {
                fx.say("note not changed");
                return Handled::Redraw;
            }
            Typed::Other => {}
        }
        let row = list.selected;
        let labels = matches!(
            action,
            Action::ToggleCategory(_)
                | Action::AcceptSuggestion
                | Action::EditNote
                | Action::CategoryPicker
        );
        if labels && self.annotator.is_empty() {
            // Never signed by nobody: the name is asked for once, then the label is made.
            if let Some(row) = row {
                self.awaiting = Some(*action);
                self.naming = true;
                self.note.open(row, "", false);
                fx.say(format!("who labels? type your name, {} (asked once; --annotator NAME, annotator = \"NAME\" in config.toml or $SEBX_ANNOTATOR set it)", super::super::textbox::SUBMIT_KEY));
                return Handled::Redraw;
            }
        }
        match action {
            Action::LabelMode => {
                // Off → label → label and advance → off.
                (self.mode, self.advance) = match (self.mode, self.advance) {
                    (false, _) => (true, false),
                    (true, false) => (true, true),
                    (true, true) => (false, false),
                };
                let (keys, again) = &self.mode_keys;
                fx.say(match (self.mode, self.advance) {
                    (true, false) => format!(
                        "label mode: category keys toggle · {keys} · {again} again: label and advance"
                    ),
                    (true, true) => format!(
                        "label and advance: a category key labels and moves to the next unlabelled failure · {again} leaves"
                    ),
                    _ => "label mode off: digits switch panes again".to_string(),
                });
            }
            Action::ToggleCategory(key) => {
                let id = self.taxonomy.by_key(*key).map(|c| c.id.clone());
                match (id, row) {
                    (Some(id), Some(row)) => {
                        self.toggle(corpus, row, &id);
                        self.advance_after_label(corpus, list, row, fx);
                    }
                    (None, _) => fx.say(format!("no category on key {key}")),
                    (_, None) => {}
                }
            }
            Action::CategoryPicker => fx.open(Popup::CategoryPicker),
            Action::UndoLabel => self.undo_label(corpus, fx),
            Action::AcceptSuggestion => {
                let Some(row) = row else {
                    return Handled::Unchanged;
                };
                match self
                    .suggestion(corpus, row)
                    .map(|c| (c.id.clone(), c.label.clone()))
                {
                    Some((id, label)) => {
                        let has = corpus
                            .entries
                            .get(row)
                            .and_then(|e| self.effective(e.run, &e.rollout.id))
                            .is_some_and(|l| l.categories.contains(&id));
                        if has {
                            fx.say(format!("already labelled {label}"));
                        } else {
                            self.toggle(corpus, row, &id);
                            self.advance_after_label(corpus, list, row, fx);
                        }
                    }
                    None => fx.say("no suggestion for this rollout"),
                }
            }
            Action::EditNote => {
                let Some(row) = row else {
                    return Handled::Unchanged;
                };
                let text = corpus
                    .entries
                    .get(row)
                    .and_then(|e| self.effective(e.run, &e.rollout.id))
                    .map(|l| l.note)
                    .unwrap_or_default();
                self.note.open(row, &text, false);
            }
            Action::NextUnlabelledFailure => self.next_unlabelled_failure(corpus, list, fx),
            Action::ToggleLabelOrder => {
                self.order = match self.order {
                    LabelOrder::File => LabelOrder::Random,
                    LabelOrder::Random => LabelOrder::File,
                };
                // Named by the key that walks them, as bound (none when unbound).
                let order = match self.order {
                    LabelOrder::File => "in list order".to_string(),
                    LabelOrder::Random => format!(
                        "in a seeded random order (seed {}): the labelled failures stay a random sample",
                        self.order_seed
                    ),
                };
                fx.say(
                    cx.keys
                        .says(
                            Action::NextUnlabelledFailure,
                            &format!("walks the unlabelled failures {order}"),
                        )
                        .unwrap_or_else(|| format!("unlabelled failures {order}")),
                );
            }
            Action::CycleLabelFilter => {
                let mut options = vec![LabelFilter::Unlabelled, LabelFilter::Labelled];
                options.extend(self.taxonomy.ids().into_iter().map(LabelFilter::Category));
                self.filter = match &self.filter {
                    None => options.first().cloned(),
                    Some(f) => options
                        .iter()
                        .position(|o| o == f)
                        .and_then(|p| options.get(p + 1).cloned()),
                };
                fx.refresh_view = true;
            }
            Action::Agreement => {
                self.agreement_cursor = 0;
                let names = self.annotators();
                if names.len() < 2 {
                    fx.say(match names.first() {
                        Some(one) => {
                            format!("agreement needs two annotators: only {one} has labels here")
                        }
                        None => "agreement needs two annotators: no labels here yet".to_string(),
                    });
                } else {
                    fx.open(Popup::Agreement);
                }
            }
            Action::PopupChoose | Action::Edit(_) => return Handled::Unchanged,
            _ => return Handled::Passed,
        }
        Handled::Redraw
    }

    /// Handles an action in one of labelling's popups (the category picker, agreement).
    pub(super) fn handle_popup(
        &mut self,
        popup: Popup,
        action: &Action,
        cx: &Cx<'_>,
        fx: &mut Effects,
    ) -> Handled {
        let (corpus, list) = (cx.corpus, cx.list);
        match popup {
            Popup::CategoryPicker => {
                let n = self.taxonomy.categories.len();
                match action {
                    Action::Up => self.picker_cursor = self.picker_cursor.saturating_sub(1),
                    Action::Down => self.picker_cursor = (self.picker_cursor + 1).min(n - 1),
                    Action::PopupChoose => {
                        let id = self
                            .taxonomy
                            .categories
                            .get(self.picker_cursor)
                            .map(|c| c.id.clone());
                        if let (Some(id), Some(row)) = (id, list.selected) {
                            self.toggle(corpus, row, &id);
                        }
                    }
                    Action::ToggleCategory(_) => return self.handle(action, cx, fx),
                    Action::CategoryPicker | Action::Cancel => fx.close(),
                    _ => return Handled::Passed,
                }
                Handled::Redraw
            }
            Popup::Agreement => match action {
                Action::NextPane | Action::PrevPane => {
                    self.agreement_with += 1;
                    self.agreement_cursor = 0;
                    // Reopened on the next pair, scrolled to its top.
                    fx.open(Popup::Agreement);
                    Handled::Redraw
                }
                Action::Up => {
                    self.agreement_cursor = self.agreement_cursor.saturating_sub(1);
                    Handled::Redraw
                }
                Action::Down => {
                    let n = self.agreement().map_or(0, |a| a.disagreements.len());
                    self.agreement_cursor = (self.agreement_cursor + 1).min(n.saturating_sub(1));
                    Handled::Redraw
                }
                Action::PopupChoose => {
                    self.open_disagreement(corpus, list, fx);
                    Handled::Redraw
                }
                Action::Agreement => {
                    fx.close();
                    Handled::Redraw
                }
                _ => Handled::Passed,
            },
            _ => Handled::Passed,
        }
    }

    /// Closes the agreement view on the highlighted disagreement's rollout.
    fn open_disagreement(&mut self, corpus: &Corpus, list: &ListView, fx: &mut Effects) {
        let Some(agreement) = self.agreement() else {
            return;
        };
        let Some(d) = agreement.disagreements.get(self.agreement_cursor) else {
            return;
        };
        let Some(row) = corpus
            .entries
            .iter()
            .position(|e| e.rollout.id == d.rollout)
        else {
            fx.say(format!("rollout {} is not loaded", d.rollout));
            return;
        };
        fx.close();
        if !list.view.contains(&ViewRow::Row(row)) {
            self.filter = None;
            fx.clear_filters = true;
            fx.say("filters cleared to show the disagreement");
        }
        fx.jump_to = Some(row);
    }

    /// Queues a label change for `row` (written by the I/O step (`Component::service`)); it can
    /// be taken back (`undo_label`).
    fn queue(&mut self, corpus: &Corpus, row: usize, categories: Vec<CategoryId>, note: &str) {
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        let before = self.effective(entry.run, &entry.rollout.id);
        let record = LabelRecord::now(entry.rollout.id.clone(), categories, note, &self.annotator);
        let change = format!(
            "{}: {}",
            where_is(corpus, entry),
            describe_change(&self.taxonomy, before.as_ref(), &record)
        );
        if self.undo.len() == UNDO_LEVELS {
            self.undo.remove(0);
        }
        self.undo.push(Undo { row, before });
        self.pending.push(PendingLabel {
            run: entry.run,
            record,
            undoes: None,
            change,
        });
    }

    /// Takes back the last label change: the rollout's label as it was before (cleared when
    /// it had none), written as a new record, like every change.
    fn undo_label(&mut self, corpus: &Corpus, fx: &mut Effects) {
        let Some(Undo { row, before }) = self.undo.pop() else {
            fx.say("no label change to undo");
            return;
        };
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        let (categories, note) =
            before.map_or((Vec::new(), String::new()), |l| (l.categories, l.note));
        let record = LabelRecord::now(entry.rollout.id.clone(), categories, &note, &self.annotator);
        let now = self.effective(entry.run, &entry.rollout.id);
        let change = describe_change(&self.taxonomy, now.as_ref(), &record);
        self.pending.push(PendingLabel {
            run: entry.run,
            record,
            undoes: Some(where_is(corpus, entry)),
            change,
        });
        fx.jump_to = Some(row);
    }

    /// Toggles one category on `row`'s label (keeping the note).
    fn toggle(&mut self, corpus: &Corpus, row: usize, id: &CategoryId) {
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        let current = self.effective(entry.run, &entry.rollout.id);
        let mut categories = current
            .as_ref()
            .map(|l| l.categories.clone())
            .unwrap_or_default();
        if let Some(p) = categories.iter().position(|c| c == id) {
            categories.remove(p);
        } else {
            categories.push(id.clone());
        }
        // Taxonomy order, so records read the same whatever order keys were pressed in.
        let order = self.taxonomy.ids();
        categories.sort_by_key(|c| order.iter().position(|o| o == c).unwrap_or(usize::MAX));
        let note = current.map(|l| l.note).unwrap_or_default();
        self.queue(corpus, row, categories, &note);
    }

    fn set_note(&mut self, corpus: &Corpus, row: usize, note: &str) {
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        let categories = self
            .effective(entry.run, &entry.rollout.id)
            .map(|l| l.categories)
            .unwrap_or_default();
        self.queue(corpus, row, categories, note);
    }

    /// In label-and-advance mode, after a key labelled `row`: on to the next unlabelled
    /// failure (a key that cleared the label stays, to label it again).
    fn advance_after_label(&self, corpus: &Corpus, list: &ListView, row: usize, fx: &mut Effects) {
        let labelled = corpus
            .entries
            .get(row)
            .is_some_and(|e| self.effective(e.run, &e.rollout.id).is_some());
        if self.advance && labelled {
            self.next_unlabelled_failure(corpus, list, fx);
        }
    }

    /// The first unlabelled failure from the selected row on (the selected row itself
    /// first: `N` never skips the failure one is looking at).
    fn next_unlabelled_failure(&self, corpus: &Corpus, list: &ListView, fx: &mut Effects) {
        let rows: Vec<usize> = list.rows().collect();
        let start = list
            .selected
            .and_then(|s| rows.iter().position(|r| *r == s))
            .unwrap_or(0);
        let n = rows.len();
        let unlabelled_failure = |i: &usize| {
            corpus.shown(*i).is_failure()
                && corpus
                    .entries
                    .get(*i)
                    .is_some_and(|e| self.effective(e.run, &e.rollout.id).is_none())
        };
        let found = match self.order {
            LabelOrder::File => (0..n)
                .map(|d| rows[(start + d) % n])
                .find(unlabelled_failure),
            // The first unlabelled failure of the random order, wherever the cursor is.
            LabelOrder::Random => rows
                .iter()
                .copied()
                .filter(unlabelled_failure)
                .min_by_key(|i| label_order_key(self.order_seed, &corpus.entries[*i].rollout.id)),
        };
        match found {
            Some(i) if Some(i) == list.selected => {
                fx.say(format!(
                    "this failure is not labelled yet{}",
                    self.skip_hint
                ));
            }
            Some(i) => fx.jump_to = Some(i),
            None => fx.say("every failure shown is labelled"),
        }
    }
}
