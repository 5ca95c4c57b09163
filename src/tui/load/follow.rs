//! Following training runs while they are written (`sebx` opens a run folder followed;
//! `--no-follow` reads it once): the run is read through a [`RunTail`], first what is there,
//! then every [`Follow::every`] what verl added, each step's new rows sent as batches like
//! the loaded ones (the app grades them as it grades those). One `RunReader` per run reads
//! every line, so GRPO groups and duplicate ids are numbered across old and new lines alike.

use std::sync::atomic::Ordering;

use crate::model::verl::{DumpRun, JoinIndex, RunReader, RunTail};
use crate::model::{Dataset, LoadIssue};

use super::{Follow, LoadEvent, Loader};

/// A run being followed: its index, its reader and how far its files have been read.
pub(super) struct Followed<'a> {
    index: usize,
    reader: RunReader<'a>,
    tail: RunTail,
    /// The folder could not be listed at the last look (said once).
    unreadable: bool,
}

impl Loader<'_> {
    /// Announces `run` and reads what its step files hold now (whole lines; an unfinished
    /// last line is said, and read when it is finished).
    pub(super) fn start_following<'a>(
        &mut self,
        run: &DumpRun,
        join: &'a JoinIndex,
        dataset: &'a Dataset,
    ) -> Followed<'a> {
        let mut followed = Followed {
            index: self.announce_run(&run.name, &run.dir),
            reader: RunReader::new(join, dataset),
            tail: RunTail::new(run),
            unreadable: false,
        };
        self.look(&mut followed);
        followed
    }

    /// Looks at every followed run every `follow.every` until `follow.stop` is set.
    pub(super) fn follow(&mut self, runs: &mut [Followed], follow: &Follow) {
        loop {
            // Short sleeps, so a stop is seen at once whatever the period.
            let mut slept = std::time::Duration::ZERO;
            while slept < follow.every {
                if follow.stop.load(Ordering::Relaxed) {
                    return;
                }
                let nap = (follow.every - slept).min(std::time::Duration::from_millis(50));
                std::thread::sleep(nap);
                slept += nap;
            }
            for run in runs.iter_mut() {
                self.look(run);
            }
        }
    }

    /// Sends the rows of what is new in one run's step files, and what the look noticed.
    fn look(&mut self, run: &mut Followed) {
        let Followed {
            index,
            reader,
            tail,
            unreadable,
        } = run;
        // Each file's new lines are sent before the next is read (a first look reads the
        // whole run: never all of it held at once).
        let looked = tail.look(&mut |lines| {
            self.send_step_lines(
                reader,
                *index,
                &lines.path,
                lines.step,
                &lines.bytes,
                lines.line_offset,
            );
        });
        match looked {
            Ok(notes) => {
                *unreadable = false;
                if !notes.issues.is_empty() {
                    (self.sink)(LoadEvent::Issues(notes.issues));
                }
                if !notes.finished.is_empty() {
                    (self.sink)(LoadEvent::Finished(notes.finished));
                }
            }
            // The folder gone or unreadable for a while: said once, tried again each look.
            Err(e) if !*unreadable => {
                *unreadable = true;
                (self.sink)(LoadEvent::Issues(vec![LoadIssue {
                    source: tail.dir().to_path_buf(),
                    line: 0,
                    reason: format!("cannot read the followed run's folder: {e}"),
                }]));
            }
            Err(_) => {}
        }
    }
}
