//! Work a client gave up on. A request's grading runs on a blocking thread that outlives the
//! request's future: when the client closes the connection (a reward function that timed
//! out, a trainer that was stopped) or the request passes `--request-timeout`, the future is
//! dropped and [`Abandon`] raises the request's flag. The programs of the request not yet
//! started are then skipped ([`Abandonable`] answers them with an error instead of running
//! them), so a batch nobody waits for does not hold the pool's workers, and the log says how
//! many were dropped.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Result, anyhow};

use crate::grade::grader::{ProgramRunner, RunOutput, RunSession};

/// One request's flag: raised when nobody waits for the answer any more.
#[derive(Debug, Default)]
pub struct Flag {
    gone: AtomicBool,
    skipped: AtomicUsize,
}

impl Flag {
    /// Whether the client gave up.
    pub fn abandoned(&self) -> bool {
        self.gone.load(Ordering::SeqCst)
    }

    /// Programs skipped because the client gave up.
    pub fn skipped(&self) -> usize {
        self.skipped.load(Ordering::SeqCst)
    }
}

/// Raises the flag when dropped before [`Abandon::finish`]: the request's future went away.
pub struct Abandon {
    flag: Arc<Flag>,
    finished: bool,
}

impl Abandon {
    pub fn new(flag: Arc<Flag>) -> Abandon {
        Abandon {
            flag,
            finished: false,
        }
    }

    /// The answer was produced: nothing is abandoned.
    pub fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        if !self.finished {
            self.flag.gone.store(true, Ordering::SeqCst);
        }
    }
}

/// A runner that stops starting programs once its request is abandoned.
pub struct Abandonable<'a> {
    pub inner: &'a dyn ProgramRunner,
    pub flag: &'a Flag,
}

fn skipped(flag: &Flag) -> anyhow::Error {
    flag.skipped.fetch_add(1, Ordering::SeqCst);
    anyhow!("not run: the client gave up on the request")
}

impl ProgramRunner for Abandonable<'_> {
    fn run_program(&self, program: &str, timeout: Duration) -> Result<RunOutput> {
        if self.flag.abandoned() {
            return Err(skipped(self.flag));
        }
        self.inner.run_program(program, timeout)
    }

    fn session(&self) -> Option<Box<dyn RunSession + '_>> {
        Some(Box::new(AbandonableSession {
            inner: self.inner.session(),
            runner: self.inner,
            flag: self.flag,
            queued: VecDeque::new(),
        }))
    }
}

/// What a submitted program became: queued in the inner session, run at once (the inner
/// runner has no session), or skipped.
enum Queued {
    Inner,
    Done(Result<RunOutput>),
}

struct AbandonableSession<'a> {
    inner: Option<Box<dyn RunSession + 'a>>,
    runner: &'a dyn ProgramRunner,
    flag: &'a Flag,
    queued: VecDeque<Queued>,
}

impl RunSession for AbandonableSession<'_> {
    fn submit(&mut self, program: &str, timeout: Duration) {
        let q = if self.flag.abandoned() {
            Queued::Done(Err(skipped(self.flag)))
        } else {
            match self.inner.as_mut() {
                Some(s) => {
                    s.submit(program, timeout);
                    Queued::Inner
                }
                None => Queued::Done(self.runner.run_program(program, timeout)),
            }
        };
        self.queued.push_back(q);
    }

    fn next_result(&mut self) -> Option<Result<RunOutput>> {
        match self.queued.pop_front()? {
            Queued::Done(r) => Some(r),
            Queued::Inner => self.inner.as_mut()?.next_result(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counting(AtomicUsize);

    impl ProgramRunner for Counting {
        fn run_program(&self, _: &str, _: Duration) -> Result<RunOutput> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(RunOutput::default())
        }
    }

    #[test]
    fn an_abandoned_request_starts_no_more_programs() {
        let inner = Counting(AtomicUsize::new(0));
        let flag = Arc::new(Flag::default());
        let runner = Abandonable {
            inner: &inner,
            flag: &flag,
        };
        let guard = Abandon::new(flag.clone());
        let mut session = runner.session().expect("a session");
        session.submit("a", Duration::from_secs(1));
        drop(guard);
        assert!(flag.abandoned());
        session.submit("b", Duration::from_secs(1));
        assert!(runner.run_program("c", Duration::from_secs(1)).is_err());
        // In order: the first ran, the others were skipped.
        assert!(session.next_result().expect("first").is_ok());
        assert!(session.next_result().expect("second").is_err());
        assert!(session.next_result().is_none());
        assert_eq!(inner.0.load(Ordering::SeqCst), 1);
        assert_eq!(flag.skipped(), 2);
        // A finished request raises nothing.
        let other = Arc::new(Flag::default());
        Abandon::new(other.clone()).finish();
        assert!(!other.abandoned());
    }
}
