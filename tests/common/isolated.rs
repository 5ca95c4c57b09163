//! Keeping tests off the user's sebx folders. A test that runs the sebx binary or opens the
//! explorer in-process must not read verdicts another sebx command remembered in the user's
//! score cache (`$SEBX_SCORE_CACHE`, else `<cache dir>/sebx/scores`) or trace cache, nor
//! leave its own there, nor write demo sidecars to `$SEBX_DATA_DIR` (else
//! `<data dir>/sebx/demo`), nor pick up an API doc from `$SEBX_API_DOC`: the suite then
//! passes whatever the machine's cache holds.
//!
//! - [`sebx`] / [`assert_sebx`]: the binary with its own score cache, trace cache and data
//!   folders;
//! - [`isolate`] / [`isolate_in`]: the same for a command built elsewhere (call it before
//!   setting any of these variables yourself: what the test sets afterwards wins);
//! - [`cache_flags`] / [`explore_args`]: an in-process explorer's own (empty) score cache
//!   folder.
//!
//! The Python runtime in the user's cache folder stays visible (HOME and XDG_CACHE_HOME are
//! left alone). `tests/test_isolation.rs` checks that every test file that starts sebx uses
//! this (or names the cache itself).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The score cache variable sebx reads.
pub const SCORE_CACHE_ENV: &str = "SEBX_SCORE_CACHE";
/// The trace cache variable sebx reads (traced runs: `y`, `analyze --confirm`).
pub const TRACE_CACHE_ENV: &str = "SEBX_TRACE_CACHE";
/// The demo sidecars' folder variable sebx reads.
pub const DATA_DIR_ENV: &str = "SEBX_DATA_DIR";
/// The API doc variable sebx reads (removed: tests name their API docs).
pub const API_DOC_ENV: &str = "SEBX_API_DOC";

/// A command whose environment can be set: `std::process::Command` and `assert_cmd::Command`.
pub trait SetEnv {
    fn set_env(&mut self, key: &str, value: &Path);
    fn unset_env(&mut self, key: &str);
}

impl SetEnv for std::process::Command {
    fn set_env(&mut self, key: &str, value: &Path) {
        self.env(key, value);
    }
    fn unset_env(&mut self, key: &str) {
        self.env_remove(key);
    }
}

impl SetEnv for assert_cmd::Command {
    fn set_env(&mut self, key: &str, value: &Path) {
        self.env(key, value);
    }
    fn unset_env(&mut self, key: &str) {
        self.env_remove(key);
    }
}

/// The score cache folder of an isolation root.
pub fn cache_of(root: &Path) -> PathBuf {
    root.join("scores")
}

/// The sebx data folder (demo sidecars) of an isolation root.
pub fn data_of(root: &Path) -> PathBuf {
    root.join("data")
}

/// Points `cmd` at a score cache, trace cache and data folder of its own under `root` (a
/// temp dir of the test: `root/scores`, `root/traces`, `root/data`) and removes
/// `$SEBX_API_DOC`.
pub fn isolate_in<'a, C: SetEnv>(cmd: &'a mut C, root: &Path) -> &'a mut C {
    let (cache, data) = (cache_of(root), data_of(root));
    std::fs::create_dir_all(&cache).expect("create the test's score cache folder");
    std::fs::create_dir_all(&data).expect("create the test's data folder");
    cmd.set_env(SCORE_CACHE_ENV, &cache);
    cmd.set_env(TRACE_CACHE_ENV, &root.join("traces"));
    cmd.set_env(DATA_DIR_ENV, &data);
    cmd.unset_env(API_DOC_ENV);
    cmd
}

/// [`isolate_in`] a fresh folder of its own ([`fresh_root`]).
pub fn isolate<C: SetEnv>(cmd: &mut C) -> &mut C {
    isolate_in(cmd, &fresh_root())
}

/// The sebx binary under test as a `std::process::Command`, [`isolate`]d.
pub fn sebx() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sebx"));
    isolate(&mut cmd);
    cmd
}

/// The sebx binary under test as an `assert_cmd::Command`, [`isolate`]d.
pub fn assert_sebx() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_sebx"));
    isolate(&mut cmd);
    cmd
}

/// Cache flags of an in-process explorer (`ExploreArgs::cache`) that name an empty score
/// cache folder of its own (traced runs are remembered in its `traces` folder): it behaves
/// as on a machine whose cache is empty.
pub fn cache_flags() -> sebx::session::CacheFlags {
    let dir = cache_of(&fresh_root());
    std::fs::create_dir_all(&dir).expect("create the test's score cache folder");
    sebx::session::CacheFlags {
        no_cache: false,
        cache_dir: Some(dir),
    }
}

/// `ExploreArgs::default()` with [`cache_flags`]: the bundled demo (or, with paths set,
/// those files) explored beside an empty score cache of its own.
pub fn explore_args() -> sebx::tui::explore::ExploreArgs {
    sebx::tui::explore::ExploreArgs {
        cache: cache_flags(),
        ..Default::default()
    }
}

/// A new empty folder no other call gets:
/// `$CARGO_TARGET_TMPDIR/sebx-isolated/<pid>/<n>`. Commands often outlive the helper that
/// builds them, so the folder is not removed when the call returns; instead the first call
/// of each test process removes the folders of test processes that are no longer running.
pub fn fresh_root() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    static SWEEP: Once = Once::new();
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sebx-isolated");
    SWEEP.call_once(|| sweep_finished(&base));
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let root = base
        .join(std::process::id().to_string())
        .join(n.to_string());
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("create the test's isolation folder");
    root
}

/// Removes `base/<pid>` folders whose process has ended (only where `/proc` says so).
fn sweep_finished(base: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ended = name
            .parse::<u32>()
            .is_ok_and(|pid| pid != std::process::id() && !Path::new("/proc").join(&name).exists());
        if ended {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
