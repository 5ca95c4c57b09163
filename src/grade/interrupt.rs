//! Ctrl-C during a long `sebx grade`: the first SIGINT (or SIGTERM) only asks the batch
//! runner to stop taking rollouts, so the command can write the verdicts done so far, say
//! how to resume and drop its pool (workers, folders, cgroups) on its normal way out; the
//! handler then gives the signal back its default, so a second Ctrl-C ends the process at
//! once. Only a command that [`install`]s it is stopped this way.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // An atomic store is async-signal-safe.
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Catches the next SIGINT and SIGTERM (once each: `SA_RESETHAND`).
pub fn install() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is valid; the handler only stores to an atomic.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Whether a caught signal asked the grading to stop.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
