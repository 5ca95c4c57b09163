//! Where sidecars (labels, reruns, bookmarks) go, by one rule for every command that reads
//! or writes them: `--sidecar-dir DIR`, else `sidecar_dir` in the config file, else next to
//! each rollout file, falling back to sebx's data folder when that folder is read-only
//! ([`SidecarPlaces::locate`] says which, per file). The config file is read here too, so
//! the explorer and the subcommands see the same `sidecar_dir`.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

use crate::model::sidecar::SidecarPlaces;

/// The sidecar flag every command that reads or writes sidecars takes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SidecarFlags {
    /// Keep label, rerun and bookmark sidecars in DIR (named after the rollout file and a
    /// hash of its path) instead of next to each rollout file; default: `sidecar_dir` in the
    /// config, else beside the file (sebx's data folder when that folder is read-only). A
    /// sidecar already beside the file is always used.
    #[arg(long, value_name = "DIR")]
    pub sidecar_dir: Option<PathBuf>,
}

impl SidecarFlags {
    /// The places in force: the flag, else the config's `sidecar_dir` (`config_value`,
    /// already resolved by [`ConfigFile::sidecar_dir`]).
    pub fn places_with(&self, config_value: Option<PathBuf>) -> SidecarPlaces {
        SidecarPlaces::new(self.sidecar_dir.clone().or(config_value))
    }

    /// The places in force for a command without a `--config` flag: the flag, else the
    /// default config file's `sidecar_dir`.
    pub fn places(&self) -> Result<SidecarPlaces> {
        if self.sidecar_dir.is_some() {
            return Ok(self.places_with(None));
        }
        Ok(self.places_with(ConfigFile::read(None)?.sidecar_dir()?))
    }
}

/// The config folder: `<config dir>/sebx`.
pub fn config_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("sebx"))
}

/// The config file as read (`<config dir>/sebx/config.toml`, or a file given): its table,
/// whose keys each front end reads (the explorer all of them, the subcommands theirs).
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    /// The file read (`None`: there was none).
    pub path: Option<PathBuf>,
    pub table: toml::Table,
}

impl ConfigFile {
    /// Reads `explicit`, else the default file; a missing default file is an empty config.
    pub fn read(explicit: Option<&Path>) -> Result<ConfigFile> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => match config_dir() {
                Some(d) => d.join("config.toml"),
                None => return Ok(ConfigFile::default()),
            },
        };
        if !path.is_file() {
            if explicit.is_some() {
                bail!("no config file {}", path.display());
            }
            return Ok(ConfigFile::default());
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let table = text
            .parse::<toml::Table>()
            .with_context(|| format!("in {}", path.display()))?;
        Ok(ConfigFile {
            path: Some(path),
            table,
        })
    }

    /// `sidecar_dir = "..."`: `~/` is the home folder, a relative path is relative to the
    /// config file's folder.
    pub fn sidecar_dir(&self) -> Result<Option<PathBuf>> {
        let Some(value) = self.table.get("sidecar_dir") else {
            return Ok(None);
        };
        let Some(text) = value.as_str() else {
            bail!(
                "in {}: sidecar_dir must be a string (a folder)",
                self.path
                    .as_deref()
                    .unwrap_or(Path::new("the config"))
                    .display()
            );
        };
        let dir = match text.strip_prefix("~/") {
            Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
            None => PathBuf::from(text),
        };
        Ok(Some(match (&self.path, dir.is_relative()) {
            (Some(file), true) => file.parent().unwrap_or(Path::new(".")).join(dir),
            _ => dir,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_sidecar_dir_is_relative_to_the_config_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "sidecar_dir = \"labels\"\n").expect("write");
        let config = ConfigFile::read(Some(&file)).expect("reads");
        assert_eq!(
            config.sidecar_dir().expect("a folder"),
            Some(dir.path().join("labels"))
        );
        std::fs::write(&file, "sidecar_dir = 3\n").expect("write");
        let config = ConfigFile::read(Some(&file)).expect("reads");
        assert!(config.sidecar_dir().is_err(), "a number is not a folder");
    }

    #[test]
    fn the_flag_beats_the_config() {
        let flags = SidecarFlags {
            sidecar_dir: Some(PathBuf::from("/flag")),
        };
        let places = flags.places_with(Some(PathBuf::from("/config")));
        assert_eq!(places.dir, Some(PathBuf::from("/flag")));
        let places = SidecarFlags::default().places_with(Some(PathBuf::from("/config")));
        assert_eq!(places.dir, Some(PathBuf::from("/config")));
    }
}
