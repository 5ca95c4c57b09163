//! Shared helpers for the tests that drive the real binary in tmux.

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux session, killed when dropped.
pub struct Session(pub String);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .output();
    }
}

pub fn tmux(args: &[&str]) -> std::process::Output {
    Command::new("tmux").args(args).output().expect("tmux runs")
}

/// The visible screen of session `name`.
pub fn capture(name: &str) -> String {
    String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", name]).stdout).into_owned()
}

/// Polls the screen until `ok` holds (the program draws asynchronously); panics with the
/// screen after 20 s.
pub fn wait_for(name: &str, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let screen = capture(name);
        if ok(&screen) {
            return screen;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}; screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
