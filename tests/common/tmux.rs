//! Shared helpers for the tests that drive the real binary in tmux.

// Each test binary includes this file and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux session, killed when dropped.
pub struct Session(pub String);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = tmux_command()
            .args(["kill-session", "-t", &self.0])
            .output();
    }
}

/// `tmux` on a server of this test process's own, without the user's `~/.tmux.conf`: the
/// tests see the same terminal whoever runs them, and never touch the user's sessions.
fn tmux_command() -> Command {
    let mut c = Command::new("tmux");
    c.args(["-L", &format!("sebx-tests-{}", std::process::id())])
        .args(["-f", "/dev/null"]);
    c
}

pub fn tmux(args: &[&str]) -> std::process::Output {
    tmux_command().args(args).output().expect("tmux runs")
}

/// True (after saying so on stderr) when tmux is not installed: the test then returns early.
pub fn tmux_missing() -> bool {
    let missing = Command::new("tmux").arg("-V").output().is_err();
    if missing {
        eprintln!("tmux not installed: skipping");
    }
    missing
}

/// A session name no other test process uses: `prefix-<pid>`.
pub fn session_name(prefix: &str) -> String {
    format!("{prefix}-{}", std::process::id())
}

/// `path` single-quoted for the shell that runs a session's command line.
pub fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// The `env …` prefix of a command line that runs sebx with HOME, the XDG config, cache and
/// data folders, the sebx data folder (`home/data`) and the score cache (`home/scores`,
/// as `SEBX_SCORE_CACHE`, which would otherwise win over XDG_CACHE_HOME) all under `home`,
/// and without `SEBX_API_DOC`: the configuration, cache, labels and API doc of the user
/// running the tests are out of sight (other `SEBX_*` variables, such as `SEBX_PYTHON`,
/// pass through).
pub fn isolated_env(home: &Path) -> String {
    let h = quoted(home);
    let data = quoted(&home.join("data"));
    let scores = quoted(&home.join("scores"));
    format!(
        "env -u SEBX_API_DOC HOME={h} XDG_CONFIG_HOME={h} XDG_CACHE_HOME={h} XDG_DATA_HOME={h} SEBX_DATA_DIR={data} SEBX_SCORE_CACHE={scores}"
    )
}

/// The sebx binary under test, quoted for a command line.
pub fn sebx_bin() -> String {
    quoted(Path::new(env!("CARGO_BIN_EXE_sebx")))
}

/// The command line that runs sebx with `args` (shell text, paths [`quoted`]) isolated under
/// `home` (see [`isolated_env`]).
pub fn sebx_command(home: &Path, args: &str) -> String {
    format!("{} {} {args}", isolated_env(home), sebx_bin())
}

/// A path of the crate's demo folder (`samples/demo/<file>`).
pub fn demo_file(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(file)
}

/// Runs the command line `cmd` in a new detached session `name` of `width`×`height` cells,
/// started in `cwd` when given; the session is killed when the returned guard drops.
pub fn start_session(
    name: &str,
    (width, height): (u16, u16),
    cwd: Option<&Path>,
    cmd: &str,
) -> Session {
    let session = Session(name.to_string());
    let (width, height) = (width.to_string(), height.to_string());
    let cwd = cwd.map(|c| c.display().to_string());
    let mut args = vec!["new-session", "-d", "-s", name, "-x", &width, "-y", &height];
    if let Some(cwd) = &cwd {
        args.extend(["-c", cwd]);
    }
    args.push(cmd);
    let out = tmux(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    session
}

/// Starts sebx on the training run `run` with the demo's dataset and API doc and the
/// grader's Python runtime (`SEBX_PYTHON`: the isolated home hides the installed one), in a
/// new 120×40 session `name` started in `cwd`, isolated under `home`.
pub fn start_graded_training(name: &str, cwd: &Path, home: &Path, run: &Path) -> Session {
    let python = sebx::grade::runtime::find_runtime()
        .expect("the runtime is installed (sebx runtime install)")
        .python;
    let args = format!(
        "{} {} --api-doc {}",
        quoted(run),
        quoted(&demo_file("tasks.jsonl")),
        quoted(&demo_file("api_doc.jsonl"))
    );
    let cmd = format!(
        "env SEBX_PYTHON={} {}",
        quoted(&python),
        sebx_command(home, &args)
    );
    start_session(name, (120, 40), Some(cwd), &cmd)
}

/// Sends `keys` (tmux key names) to session `name`, one at a time.
pub fn send(name: &str, keys: &[&str]) {
    for k in keys {
        tmux(&["send-keys", "-t", name, k]);
    }
}

/// Types `text` literally into session `name`.
pub fn send_text(name: &str, text: &str) {
    tmux(&["send-keys", "-t", name, "-l", text]);
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

/// Waits for session `name` to close (its program has exited); panics with `what` and the
/// last screen after 5 s.
pub fn wait_closed(name: &str, what: &str) {
    let start = Instant::now();
    while tmux(&["has-session", "-t", name]).status.success() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{what}:\n{}",
            capture(name)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills the program of session `name` with `kill -9` (no chance to save anything on the
/// way out) and waits for the session to close.
pub fn kill_9(name: &str) {
    let pid = String::from_utf8_lossy(
        &tmux(&["display-message", "-p", "-t", name, "#{pane_pid}"]).stdout,
    )
    .trim()
    .to_string();
    assert!(pid.parse::<u32>().is_ok(), "pane pid: {pid:?}");
    let killed = Command::new("kill")
        .args(["-9", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    wait_closed(name, "still running after kill -9");
}

/// The status bar: the screen's last line.
pub fn status_line(screen: &str) -> &str {
    screen.lines().last().unwrap_or("")
}

/// Whether the status bar no longer says the rollouts are loading.
pub fn loaded(screen: &str) -> bool {
    !status_line(screen).contains("loading")
}

/// A temp folder with an empty `home` inside: the test's HOME, XDG and sebx data folders.
pub fn temp_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    (dir, home)
}

/// A temp copy of the demo rollouts (`dir/rollouts.jsonl`, so sidecars are written beside
/// it, not in the crate) with an empty home beside it.
pub struct DemoCopy {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub file: PathBuf,
    /// The copy's bytes as made, to check the rollout file is left untouched.
    pub original: Vec<u8>,
    /// Its number of rollouts (non-blank lines).
    pub total: usize,
}

impl DemoCopy {
    pub fn new() -> DemoCopy {
        let (dir, home) = temp_home();
        let file = dir.path().join("rollouts.jsonl");
        std::fs::copy(demo_file("rollouts.jsonl"), &file).expect("copy the demo rollouts");
        let original = std::fs::read(&file).expect("read the copy");
        let total = String::from_utf8_lossy(&original)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count();
        DemoCopy {
            dir,
            home,
            file,
            original,
            total,
        }
    }

    /// [`open_demo_copy`] on this copy.
    pub fn open(&self, name: &str) -> Session {
        open_demo_copy(name, &self.home, &self.file, self.total)
    }

    /// A file of the temp folder (a sidecar written beside the copy, say).
    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }
}

/// Starts sebx on `file` (a temp copy of the demo with `total` rollouts) in a new tmux
/// session and waits for the loaded list. HOME and the XDG folders are `home`, so no Python
/// runtime or cache is visible and the list does not change under the keys.
pub fn open_demo_copy(name: &str, home: &Path, file: &Path, total: usize) -> Session {
    let cmd = format!(
        "{env} SEBX_ANNOTATOR=tester {bin} {file} --api-doc {api}",
        env = isolated_env(home),
        bin = sebx_bin(),
        file = quoted(file),
        api = quoted(&demo_file("api_doc.jsonl")),
    );
    let session = start_session(name, (110, 34), None, &cmd);
    wait_for(name, "the loaded list", |s| {
        s.contains(&format!("{total} rollouts")) && loaded(s)
    });
    session
}
