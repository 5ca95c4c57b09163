//! The detail pane as a component: the keys that are its own (the tabs, the Graph pane's
//! drawing or node list, scrolling sideways), answered from its state alone. What its
//! keys do with the rest (scrolling the Cases pane's cursor, the first failed case, the
//! what-if's cases, the raw line) and its drawing (`ui`, over the panes' `render`) read the
//! reports and caches `App` holds, and stay there.

use super::super::action::Action;
use super::super::component::{Component, Cx};
use super::super::effects::{Effects, Handled};
use super::super::state::{DetailView, Pane};

impl DetailView {
    /// Shows `pane`, from its top (a pane shown already keeps its place).
    pub fn show(&mut self, pane: Pane) {
        if self.pane != pane {
            self.pane = pane;
            self.scroll = 0;
            self.hscroll = 0;
        }
    }
}

impl Component for DetailView {
    fn update(&mut self, action: &Action, _cx: &Cx<'_>, _fx: &mut Effects) -> Handled {
        let n = Pane::ALL.len();
        match action {
            Action::NextPane => self.show(Pane::ALL[(self.pane.index() + 1) % n]),
            Action::PrevPane => self.show(Pane::ALL[(self.pane.index() + n - 1) % n]),
            Action::PaneResponse => self.show(Pane::Response),
            Action::PaneCode => self.show(Pane::Code),
            Action::PaneCases => self.show(Pane::Cases),
            Action::PaneOutput => self.show(Pane::Output),
            // Again on the Graph pane: the node list instead of the drawing, and back.
            Action::PaneGraph if self.pane == Pane::Graph => {
                self.graph_list = !self.graph_list;
                self.scroll = 0;
                self.hscroll = 0;
            }
            Action::PaneGraph => self.show(Pane::Graph),
            Action::PaneTask => self.show(Pane::Task),
            Action::ScrollLeft => self.hscroll = self.hscroll.saturating_sub(8),
            Action::ScrollRight => self.hscroll = self.hscroll.saturating_add(8),
            _ => return Handled::Passed,
        }
        Handled::Redraw
    }
}
