//! deploy/k8s/*.yaml against the Kubernetes API schemas, offline: `kubernetes-validate`
//! (PyPI; it ships the schemas of many Kubernetes versions) in strict mode, so a wrong type,
//! a missing required field, an unknown field and an unknown kind or apiVersion all fail,
//! naming the file and the validator's message. No cluster is needed or contacted.
//!
//! Needs kubernetes-validate: `.ci/run` installs it into a venv in sebx's cache dir and
//! points `SEBX_KUBERNETES_VALIDATE` at it. Outside CI a machine without it skips these
//! tests with a note; under CI=true a missing validator fails them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Kubernetes version every manifest is validated against. kubernetes-validate 1.37.0
/// (the version `.ci/run` installs) ships schemas for 1.25 to 1.37; the newest is the one
/// that rejects API versions Kubernetes has removed.
const KUBERNETES_VERSION: &str = "1.37.0";

const INSTALL: &str = "python3 -m venv ~/.cache/sebx/kubernetes-validate && \
     ~/.cache/sebx/kubernetes-validate/bin/pip install kubernetes-validate==1.37.0 \
     (.ci/run does this), or set SEBX_KUBERNETES_VALIDATE to its executable";

/// `SEBX_KUBERNETES_VALIDATE`, else the venv `.ci/run` makes in sebx's cache dir, else
/// `kubernetes-validate` on PATH.
fn validator() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SEBX_KUBERNETES_VALIDATE").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let venv =
        sebx::grade::runtime::cache_dir().join("kubernetes-validate/bin/kubernetes-validate");
    if venv.is_file() {
        return Some(venv);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("kubernetes-validate"))
            .find(|p| p.is_file())
    })
}

/// The validator, or `None` after a skip note (outside CI only).
fn validator_or_skip(test: &str) -> Option<PathBuf> {
    let found = validator();
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "kubernetes-validate is not installed; install it with: {INSTALL}"
        );
        eprintln!("SKIPPED {test}: kubernetes-validate is not installed ({INSTALL})");
    }
    found
}

/// Validates one file: the number of resources in it, or the validator's message.
fn validate(tool: &Path, file: &Path) -> Result<usize, String> {
    let out = Command::new(tool)
        .args(["--strict", "--kubernetes-version", KUBERNETES_VERSION])
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e} ({INSTALL})", tool.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    // It falls back to the newest schemas not newer than the version asked for; the line
    // names the version it used.
    let major_minor = KUBERNETES_VERSION
        .rsplit_once('.')
        .map_or(KUBERNETES_VERSION, |(mm, _)| mm);
    let passed = lines
        .iter()
        .filter(|l| {
            l.starts_with("INFO ")
                && l.contains(" passed for resource ")
                && l.ends_with(&format!("against version {major_minor}"))
        })
        .count();
    // Exit 0 is not enough: a kind or apiVersion it has no schema for (a typo, an API
    // removed by this version) is only a WARN, and a file with no resource prints nothing.
    if out.status.success() && passed > 0 && passed == lines.len() {
        return Ok(passed);
    }
    let mut message = format!("{stdout}\n{stderr}").trim().to_string();
    if message.is_empty() {
        message = "no Kubernetes resource in the file".to_string();
    }
    Err(format!("{message} ({})", out.status))
}

fn manifests() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("deploy/k8s");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_manifest_is_valid_against_the_kubernetes_schemas() {
    let Some(tool) = validator_or_skip("every_manifest_is_valid_against_the_kubernetes_schemas")
    else {
        return;
    };
    let files = manifests();
    assert!(files.len() >= 5, "manifests in deploy/k8s: {files:?}");
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().expect("name").to_string_lossy();
        match validate(&tool, file) {
            Ok(n) => eprintln!(
                "deploy/k8s/{name}: {n} resource(s) valid for Kubernetes {KUBERNETES_VERSION}"
            ),
            Err(message) => failures.push(format!("deploy/k8s/{name}: {message}")),
        }
    }
    assert!(
        failures.is_empty(),
        "manifests invalid against the Kubernetes {KUBERNETES_VERSION} schemas (strict):\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_validator_rejects_broken_manifests() {
    let Some(tool) = validator_or_skip("the_validator_rejects_broken_manifests") else {
        return;
    };
    let real = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("deploy/k8s/deployment.yaml");
    let text = std::fs::read_to_string(&real).expect("deployment.yaml");
    // The real Deployment with one thing broken.
    let broken = |from: &str, to: &str| {
        assert!(text.contains(from), "deployment.yaml has no {from:?}");
        text.replacen(from, to, 1)
    };
    // (file name, manifest, part of the expected message; None: it must pass).
    let cases = [
        ("unchanged", text.clone(), None),
        (
            "string-replicas",
            broken("replicas: 2", "replicas: \"two\""),
            Some("spec.replicas: 'two' is not of type 'integer'"),
        ),
        (
            "unknown-field",
            broken(
                "terminationGracePeriodSeconds:",
                "terminationGracePeriodSecond:",
            ),
            Some("'terminationGracePeriodSecond' was unexpected"),
        ),
        (
            "missing-container-name",
            broken("- name: sebx\n          image:", "- image:"),
            Some("'name' is a required property"),
        ),
        (
            "unknown-kind",
            broken("kind: Deployment", "kind: Deploymnet"),
            Some("Couldn't find schema for kind Deploymnet"),
        ),
        (
            "no-resource",
            "# only a comment\n".to_string(),
            Some("no Kubernetes resource"),
        ),
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, manifest, expected) in cases {
        let file = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&file, manifest).expect("write manifest");
        match (validate(&tool, &file), expected) {
            (Ok(_), None) => {}
            (Ok(n), Some(want)) => {
                panic!("{name}: accepted ({n} resource(s)), expected a rejection with {want:?}")
            }
            (Err(message), None) => panic!("{name}: rejected: {message}"),
            (Err(message), Some(want)) => {
                assert!(
                    message.contains(want),
                    "{name}: expected {want:?} in: {message}"
                );
            }
        }
    }
}
