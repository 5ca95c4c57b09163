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
//! Nor may it read the user's config (theme, keys, annotator, `sidecar_dir`) or be signed by
//! the user: a command gets `XDG_CONFIG_HOME`, `XDG_DATA_HOME` and `HOME` of its own under
//! the root, `USER` set to [`TEST_USER`] and no `$SEBX_ANNOTATOR`; an in-process explorer
//! ([`explore_args`]) an empty config file and the annotator [`TEST_USER`], given as
//! arguments (the process environment is never changed: tests run on threads).
//!
//! The Python runtime in the user's cache folder stays visible (`XDG_CACHE_HOME` names the
//! user's cache folder as it was). `tests/test_isolation.rs` checks that every test file
//! that starts sebx uses this (or names the cache itself).

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
/// The annotator variable sebx reads (removed: labels are signed [`TEST_USER`]).
pub const ANNOTATOR_ENV: &str = "SEBX_ANNOTATOR";
/// TRL runs' reward function names and weights: the user's, never a test's by accident.
pub const TRL_REWARDS_ENV: &str = "SEBX_TRL_REWARDS";
/// The user name a test's commands and explorers sign labels with.
pub const TEST_USER: &str = "sebx-test";

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
/// temp dir of the test: `root/scores`, `root/traces`, `root/data`), at an empty config,
/// data and home folder (`root/config`, `root/xdg-data`, `root/home`) with the user's cache
/// folder kept (the Python runtime), signs its labels [`TEST_USER`] and removes
/// `$SEBX_API_DOC` and `$SEBX_ANNOTATOR`.
pub fn isolate_in<'a, C: SetEnv>(cmd: &'a mut C, root: &Path) -> &'a mut C {
    let (cache, data) = (cache_of(root), data_of(root));
    std::fs::create_dir_all(&cache).expect("create the test's score cache folder");
    std::fs::create_dir_all(&data).expect("create the test's data folder");
    cmd.set_env(SCORE_CACHE_ENV, &cache);
    cmd.set_env(TRACE_CACHE_ENV, &root.join("traces"));
    cmd.set_env(DATA_DIR_ENV, &data);
    cmd.unset_env(API_DOC_ENV);
    // The runtime stays where the user installed it, whatever HOME becomes.
    if let Some(user_cache) = dirs::cache_dir() {
        cmd.set_env("XDG_CACHE_HOME", &user_cache);
    }
    for (var, dir) in [
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "xdg-data"),
        ("HOME", "home"),
    ] {
        let dir = root.join(dir);
        std::fs::create_dir_all(&dir).expect("create the test's own folder");
        cmd.set_env(var, &dir);
    }
    cmd.set_env("USER", Path::new(TEST_USER));
    cmd.unset_env(ANNOTATOR_ENV);
    cmd.unset_env(TRL_REWARDS_ENV);
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
/// those files) explored beside an empty score cache of its own, with an empty config file
/// (never the user's) and the annotator [`TEST_USER`].
pub fn explore_args() -> sebx::tui::explore::ExploreArgs {
    sebx::tui::explore::ExploreArgs {
        cache: cache_flags(),
        config: Some(empty_config()),
        annotator: Some(TEST_USER.to_string()),
        ..Default::default()
    }
}

/// An empty config file of its own: an in-process explorer given it reads no user config.
pub fn empty_config() -> PathBuf {
    let file = fresh_root().join("config.toml");
    std::fs::write(&file, "").expect("write the test's empty config");
    file
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

/// The harness's name of the test `name` in the test file whose `module_path!()` is
/// `module` (`grade::sandbox` → `sandbox::name`): the files are modules of one binary per
/// area, so a test that runs its own binary again for one test (`--exact`) names it so.
pub fn test_name(module: &str, name: &str) -> String {
    let file = module.split_once("::").map_or(module, |(_, file)| file);
    format!("{file}::{name}")
}
