//! Finding or installing the Python that runs programs: Python 3.11 with NumPy 2.3.0,
//! the versions SE-Bench's official grader uses.
//!
//! Lookup order ([`find_runtime`]):
//! 1. `SEBX_PYTHON`, if set (it must be 3.11 with NumPy 2.3.0, or lookup fails);
//! 2. the sebx-managed venv `<cache>/sebx/py311-numpy2.3.0/bin/python`, where
//!    `<cache>` is `SEBX_CACHE_DIR` or the platform cache dir;
//! 3. `python3.11`, then `python3`, on `PATH`, if it is 3.11.x and has NumPy 2.3.0.
//!
//! [`install_runtime`] creates the managed venv from a Python 3.11 on `PATH`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

/// The Python minor version the official grader uses.
pub const PYTHON_SERIES: &str = "3.11";
/// The NumPy version the official grader uses.
pub const NUMPY_VERSION: &str = "2.3.0";
/// Name of the managed venv directory under `<cache>/sebx/`.
pub const MANAGED_VENV: &str = "py311-numpy2.3.0";

/// A Python interpreter able to run graded programs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonRuntime {
    /// The interpreter to execute.
    pub python: PathBuf,
    /// `sys.version` up to the first space, e.g. `3.11.7`.
    pub python_version: String,
    /// `numpy.__version__`.
    pub numpy_version: String,
    /// Why this interpreter was chosen.
    pub origin: RuntimeOrigin,
}

/// Where a [`PythonRuntime`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeOrigin {
    /// The `SEBX_PYTHON` environment variable.
    EnvVar,
    /// The venv sebx manages in its cache dir.
    ManagedVenv,
    /// `python3.11` or `python3` found on `PATH`.
    Path,
}

impl fmt::Display for RuntimeOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuntimeOrigin::EnvVar => "from SEBX_PYTHON",
            RuntimeOrigin::ManagedVenv => "sebx-managed venv",
            RuntimeOrigin::Path => "found on PATH",
        })
    }
}

/// What one candidate interpreter turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The path or command tried.
    pub python: PathBuf,
    /// How it was found.
    pub origin: RuntimeOrigin,
    /// Why it was rejected.
    pub problem: String,
}

/// No usable runtime: every candidate tried and why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeError {
    /// `SEBX_PYTHON` names an interpreter that is not usable.
    EnvVarUnusable(Candidate),
    /// Neither the managed venv nor `PATH` has Python 3.11 with NumPy 2.3.0.
    NotFound {
        /// Every interpreter tried, in order.
        tried: Vec<Candidate>,
        /// Where the managed venv is (or would be) installed.
        managed_venv: PathBuf,
    },
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::EnvVarUnusable(c) => write!(
                f,
                "SEBX_PYTHON={} cannot run programs: {}.\n\
                 Grading needs Python {PYTHON_SERIES} with NumPy {NUMPY_VERSION}. Point SEBX_PYTHON \
                 at such an interpreter, or unset it and run `sebx runtime install`.",
                c.python.display(),
                c.problem
            ),
            RuntimeError::NotFound {
                tried,
                managed_venv,
            } => {
                writeln!(
                    f,
                    "no Python {PYTHON_SERIES} with NumPy {NUMPY_VERSION} found; grading needs one."
                )?;
                for c in tried {
                    writeln!(f, "  {} ({}): {}", c.python.display(), c.origin, c.problem)?;
                }
                write!(
                    f,
                    "Fix: run `sebx runtime install` (creates {} from a python3.11 on PATH and \
                     installs numpy=={NUMPY_VERSION}), or set SEBX_PYTHON to a Python \
                     {PYTHON_SERIES} that has NumPy {NUMPY_VERSION}.",
                    managed_venv.display()
                )
            }
        }
    }
}

impl std::error::Error for RuntimeError {}

/// `<cache>/sebx`: `SEBX_CACHE_DIR` if set, else the platform cache dir
/// (`~/.cache/sebx` on Linux), else the temp dir.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SEBX_CACHE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::cache_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("sebx")
}

/// Where the managed venv lives.
pub fn managed_venv_dir() -> PathBuf {
    cache_dir().join(MANAGED_VENV)
}

fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// Finds the interpreter to use; see the module docs for the order.
pub fn find_runtime() -> Result<PythonRuntime, RuntimeError> {
    if let Some(python) = std::env::var_os("SEBX_PYTHON").filter(|p| !p.is_empty()) {
        let python = PathBuf::from(python);
        return check_candidate(&python, RuntimeOrigin::EnvVar).map_err(|problem| {
            RuntimeError::EnvVarUnusable(Candidate {
                python,
                origin: RuntimeOrigin::EnvVar,
                problem,
            })
        });
    }
    let mut tried = Vec::new();
    let managed = venv_python(&managed_venv_dir());
    if managed.exists() {
        match check_candidate(&managed, RuntimeOrigin::ManagedVenv) {
            Ok(runtime) => return Ok(runtime),
            Err(problem) => tried.push(Candidate {
                python: managed,
                origin: RuntimeOrigin::ManagedVenv,
                problem,
            }),
        }
    } else {
        tried.push(Candidate {
            python: managed,
            origin: RuntimeOrigin::ManagedVenv,
            problem: "not installed".to_string(),
        });
    }
    for name in ["python3.11", "python3"] {
        let python = PathBuf::from(name);
        match check_candidate(&python, RuntimeOrigin::Path) {
            Ok(runtime) => return Ok(runtime),
            Err(problem) => tried.push(Candidate {
                python,
                origin: RuntimeOrigin::Path,
                problem,
            }),
        }
    }
    Err(RuntimeError::NotFound {
        tried,
        managed_venv: managed_venv_dir(),
    })
}

/// Python and NumPy versions of one interpreter (NumPy `None` when not importable).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Probe {
    python_version: String,
    numpy_version: Option<String>,
    executable: PathBuf,
}

const PROBE_SCRIPT: &str = "import sys\n\
print(sys.version.split()[0])\n\
print(sys.executable)\n\
try:\n    import numpy\n    print(numpy.__version__)\n\
except Exception as e:\n    print('-')\n";

fn probe(python: &Path) -> Result<Probe, String> {
    let output = Command::new(python)
        .args(["-c", PROBE_SCRIPT])
        .env("OPENBLAS_NUM_THREADS", "1")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME")
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "not found".to_string(),
            _ => format!("cannot run it: {e}"),
        })?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines();
    let (Some(version), Some(executable), Some(numpy)) = (lines.next(), lines.next(), lines.next())
    else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("no output");
        return Err(format!("does not run Python ({last})"));
    };
    Ok(Probe {
        python_version: version.trim().to_string(),
        numpy_version: (numpy.trim() != "-").then(|| numpy.trim().to_string()),
        executable: PathBuf::from(executable.trim()),
    })
}

fn is_series(version: &str) -> bool {
    version
        .strip_prefix(PYTHON_SERIES)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

fn check_candidate(python: &Path, origin: RuntimeOrigin) -> Result<PythonRuntime, String> {
    let found = probe(python)?;
    if !is_series(&found.python_version) {
        return Err(format!(
            "is Python {}, not {PYTHON_SERIES}",
            found.python_version
        ));
    }
    match found.numpy_version.as_deref() {
        None => Err(format!(
            "Python {} has no NumPy (needs {NUMPY_VERSION})",
            found.python_version
        )),
        Some(v) if v != NUMPY_VERSION => Err(format!(
            "has NumPy {v}, not {NUMPY_VERSION} (results and error texts differ between versions)"
        )),
        Some(v) => Ok(PythonRuntime {
            // Resolved (PATH commands, pyenv shims) so later runs use this very
            // interpreter even with a scrubbed environment.
            python: if found.executable.as_os_str().is_empty() {
                python.to_path_buf()
            } else {
                found.executable
            },
            python_version: found.python_version,
            numpy_version: v.to_string(),
            origin,
        }),
    }
}

/// One step of [`install_runtime`], for a progress display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallStep {
    /// The managed venv already works; nothing to do.
    AlreadyInstalled(PathBuf),
    /// Looking for a Python 3.11 on `PATH`.
    FindingPython,
    /// Found the base interpreter (path, version).
    FoundPython(PathBuf, String),
    /// Removing a broken earlier install.
    RemovingBroken(PathBuf),
    /// `python3.11 -m venv <dir>`.
    CreatingVenv(PathBuf),
    /// `pip install numpy==2.3.0` (needs the package index).
    InstallingNumpy,
    /// Checking the result.
    Verifying,
    /// Ready to use.
    Done(PathBuf),
}

impl fmt::Display for InstallStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstallStep::AlreadyInstalled(p) => write!(f, "already installed: {}", p.display()),
            InstallStep::FindingPython => write!(f, "looking for Python {PYTHON_SERIES} on PATH"),
            InstallStep::FoundPython(p, v) => write!(f, "using Python {v} at {}", p.display()),
            InstallStep::RemovingBroken(p) => {
                write!(f, "removing broken install {}", p.display())
            }
            InstallStep::CreatingVenv(p) => write!(f, "creating venv {}", p.display()),
            InstallStep::InstallingNumpy => write!(f, "installing numpy=={NUMPY_VERSION} (pip)"),
            InstallStep::Verifying => write!(f, "verifying"),
            InstallStep::Done(p) => write!(f, "ready: {}", p.display()),
        }
    }
}

/// Creates (or confirms) the managed venv: Python 3.11 from `PATH` plus
/// `numpy==2.3.0` from the package index. A working install is a fast no-op.
pub fn install_runtime(progress: &mut dyn FnMut(InstallStep)) -> Result<PythonRuntime> {
    let venv = managed_venv_dir();
    let python = venv_python(&venv);
    if python.exists()
        && let Ok(runtime) = check_candidate(&python, RuntimeOrigin::ManagedVenv)
    {
        progress(InstallStep::AlreadyInstalled(python));
        return Ok(runtime);
    }
    progress(InstallStep::FindingPython);
    let mut rejected = Vec::new();
    let mut base = None;
    for name in ["python3.11", "python3"] {
        match probe(Path::new(name)) {
            Ok(found) if is_series(&found.python_version) => {
                base = Some(found);
                break;
            }
            Ok(found) => rejected.push(format!("{name}: Python {}", found.python_version)),
            Err(problem) => rejected.push(format!("{name}: {problem}")),
        }
    }
    let Some(base) = base else {
        bail!(
            "no Python {PYTHON_SERIES} on PATH ({}). Install Python {PYTHON_SERIES} \
             (e.g. `apt install python3.11 python3.11-venv`, `pyenv install 3.11`, or \
             `uv python install 3.11`) and run `sebx runtime install` again, or set \
             SEBX_PYTHON to a Python {PYTHON_SERIES} that has NumPy {NUMPY_VERSION}.",
            rejected.join("; ")
        );
    };
    progress(InstallStep::FoundPython(
        base.executable.clone(),
        base.python_version.clone(),
    ));
    if venv.exists() {
        progress(InstallStep::RemovingBroken(venv.clone()));
        std::fs::remove_dir_all(&venv)
            .with_context(|| format!("cannot remove {}", venv.display()))?;
    }
    if let Some(parent) = venv.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    progress(InstallStep::CreatingVenv(venv.clone()));
    run_step(
        Command::new(&base.executable)
            .args(["-m", "venv"])
            .arg(&venv),
        "creating the venv failed (on Debian/Ubuntu install python3.11-venv)",
    )?;
    progress(InstallStep::InstallingNumpy);
    run_step(
        Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            &format!("numpy=={NUMPY_VERSION}"),
        ]),
        "pip could not install NumPy (is the package index reachable?)",
    )?;
    progress(InstallStep::Verifying);
    let runtime = check_candidate(&python, RuntimeOrigin::ManagedVenv)
        .map_err(|problem| anyhow::anyhow!("the new venv {}: {problem}", venv.display()))?;
    progress(InstallStep::Done(python));
    Ok(runtime)
}

fn run_step(command: &mut Command, what: &str) -> Result<()> {
    let output = command
        .output()
        .with_context(|| format!("{what}: cannot start {command:?}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "{what}: {} exited with {}\n{}",
            command.get_program().to_string_lossy(),
            output.status,
            tail.join("\n")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_series_match_is_exact_on_the_minor() {
        assert!(is_series("3.11.7"));
        assert!(is_series("3.11"));
        assert!(!is_series("3.110.1"));
        assert!(!is_series("3.12.1"));
    }

    #[test]
    fn not_found_error_names_the_fix() {
        let err = RuntimeError::NotFound {
            tried: vec![Candidate {
                python: PathBuf::from("python3"),
                origin: RuntimeOrigin::Path,
                problem: "is Python 3.12.1, not 3.11".to_string(),
            }],
            managed_venv: PathBuf::from("/c/sebx/py311-numpy2.3.0"),
        };
        let text = err.to_string();
        assert!(text.contains("sebx runtime install"), "{text}");
        assert!(
            text.contains("python3 (found on PATH): is Python 3.12.1"),
            "{text}"
        );
        assert!(text.contains("NumPy 2.3.0"), "{text}");
    }
}
