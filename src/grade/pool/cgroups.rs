//! Per-worker pids cgroups (the process limit, and a way to kill everything a worker
//! started): found from `/proc/self/cgroup` (v1, or v2 with the pids controller
//! delegated), created per pool and worker, emptied with SIGKILL, and those left by sebx
//! processes that died removed.

use std::fs;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

/// Per-worker pids cgroups under `<own pids cgroup>/sebx-<pid>-<seq>/w<id>`.
pub(super) struct Cgroups {
    pool_dir: Option<PathBuf>,
    max_processes: u64,
    problem: Option<String>,
}

impl Cgroups {
    pub(super) fn new(seq: usize, max_processes: u64) -> Cgroups {
        match own_pids_cgroup() {
            Ok(base) => {
                remove_stale_cgroups(&base);
                let pool_dir = base.join(format!("sebx-{}-{seq}", std::process::id()));
                match fs::create_dir_all(&pool_dir) {
                    Ok(()) => Cgroups {
                        pool_dir: Some(pool_dir),
                        max_processes,
                        problem: None,
                    },
                    Err(err) => Cgroups {
                        pool_dir: None,
                        max_processes,
                        problem: Some(format!("cannot create {}: {err}", pool_dir.display())),
                    },
                }
            }
            Err(problem) => Cgroups {
                pool_dir: None,
                max_processes,
                problem: Some(problem),
            },
        }
    }

    pub(super) fn problem(&self) -> Option<String> {
        self.problem.clone()
    }

    pub(super) fn create(&self, id: usize) -> Option<PathBuf> {
        let dir = self.pool_dir.as_ref()?.join(format!("w{id}"));
        let _ = fs::create_dir(&dir);
        let ok = fs::write(dir.join("pids.max"), self.max_processes.to_string()).is_ok();
        if ok {
            Some(dir)
        } else {
            let _ = fs::remove_dir(&dir);
            None
        }
    }

    pub(super) fn remove_all(&self) {
        if let Some(dir) = &self.pool_dir {
            remove_pool_cgroups(dir);
        }
    }

    /// The pool's cgroup, when it has one.
    pub(super) fn pool_dir(&self) -> Option<&Path> {
        self.pool_dir.as_deref()
    }
}

/// Empties (SIGKILL) and removes a pool's worker cgroups and the pool's own.
pub(super) fn remove_pool_cgroups(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            kill_cgroup(&entry.path());
            let _ = fs::remove_dir(entry.path());
        }
    }
    let _ = fs::remove_dir(dir);
}

/// The pids cgroup this process is in, if it is cgroup v1 and writable, or v2
/// with the pids controller delegated.
fn own_pids_cgroup() -> Result<PathBuf, String> {
    let text = fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next(), parts.next(), parts.next());
        let (Some(controllers), Some(path)) = (controllers, path) else {
            continue;
        };
        if controllers.split(',').any(|c| c == "pids") {
            let dir = Path::new("/sys/fs/cgroup/pids").join(path.trim_start_matches('/'));
            return if dir.join("cgroup.procs").exists() {
                Ok(dir)
            } else {
                Err(format!("pids cgroup {} not mounted", dir.display()))
            };
        }
    }
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("0::") {
            let dir = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
            let subtree =
                fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
            if subtree.split_whitespace().any(|c| c == "pids") {
                return Ok(dir);
            }
            return Err(format!(
                "cgroup v2: the pids controller is not delegated to {}",
                dir.display()
            ));
        }
    }
    Err("no pids cgroup controller".to_string())
}

/// Removes empty `sebx-<pid>-*` cgroups left by sebx processes that died.
fn remove_stale_cgroups(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("sebx-") else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if let Ok(children) = fs::read_dir(entry.path()) {
            for child in children.flatten() {
                if child.path().is_dir() {
                    kill_cgroup(&child.path());
                    let _ = fs::remove_dir(child.path());
                }
            }
        }
        let _ = fs::remove_dir(entry.path());
    }
}

/// SIGKILLs every process in `cgroup` until it is empty (bounded).
pub(super) fn kill_cgroup(cgroup: &Path) {
    for _ in 0..200 {
        let procs = fs::read_to_string(cgroup.join("cgroup.procs")).unwrap_or_default();
        let pids: Vec<i32> = procs
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        if pids.is_empty() {
            return;
        }
        for pid in pids {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        thread::sleep(Duration::from_millis(5));
    }
}
