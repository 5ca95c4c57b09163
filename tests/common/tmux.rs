//! Shared helpers for the tests that drive the real binary in tmux.

use std::path::Path;
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

/// The status bar: the screen's last line.
#[allow(dead_code)]
pub fn status_line(screen: &str) -> &str {
    screen.lines().last().unwrap_or("")
}

/// Starts sebx on `file` (a temp copy of the demo with `total` rollouts) in a new tmux
/// session and waits for the loaded list. HOME and the XDG folders are `home`, so no Python
/// runtime or cache is visible and the list does not change under the keys.
#[allow(dead_code)]
pub fn open_demo_copy(name: &str, home: &Path, file: &Path, total: usize) -> Session {
    let root = env!("CARGO_MANIFEST_DIR");
    let cmd = format!(
        "env HOME={h} XDG_CONFIG_HOME={h} XDG_CACHE_HOME={h} XDG_DATA_HOME={h} SEBX_DATA_DIR={h}/data SEBX_ANNOTATOR=tester {bin} {file} --api-doc {root}/samples/demo/api_doc.jsonl",
        h = home.display(),
        bin = env!("CARGO_BIN_EXE_sebx"),
        file = file.display(),
    );
    let out = tmux(&[
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        "110",
        "-y",
        "34",
        &cmd,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let session = Session(name.to_string());
    wait_for(name, "the loaded list", |s| {
        s.contains(&format!("{total} rollouts")) && !status_line(s).contains("loading")
    });
    session
}
