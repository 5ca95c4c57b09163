//! Playlist files: which rollouts a reading group looks at, in order, with a caption each.
//!
//! One rollout per line: a reference, then optionally a caption after whitespace.
//! A reference is `FILE:LINE` (the rollout on that 1-based line; a relative FILE is
//! relative to the playlist's folder) or a rollout id (`3f2a9c1b0e4d5a6f`, as `sebx`
//! shows and label sidecars store). Blank lines and lines starting with `#` are skipped.
//!
//! ```text
//! # SE-Bench in six rollouts
//! rollouts.jsonl:1   A pass: zwc.kocito is np.mean
//! rollouts.jsonl:16  A NumPy name on zwc
//! 9c0e5a1f2b3d4e6a   the same rollout, by id
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use super::rollout::{LoadIssue, RolloutId};

/// What a playlist line points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlaylistRef {
    /// The rollout on `line` (1-based) of `file` (resolved against the playlist's folder).
    FileLine {
        file: PathBuf,
        line: usize,
    },
    Id(RolloutId),
}

impl fmt::Display for PlaylistRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaylistRef::FileLine { file, line } => write!(f, "{}:{line}", file.display()),
            PlaylistRef::Id(id) => write!(f, "{id}"),
        }
    }
}

/// One playlist line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaylistItem {
    pub target: PlaylistRef,
    pub caption: String,
    /// 1-based line in the playlist file.
    pub line: usize,
}

/// A parsed playlist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Playlist {
    /// Where it came from (for messages).
    pub source: PathBuf,
    pub items: Vec<PlaylistItem>,
}

impl Playlist {
    /// Reads a playlist file; lines that are not references are reported with file and line.
    pub fn load(path: &Path) -> anyhow::Result<(Playlist, Vec<LoadIssue>)> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read playlist {}: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new(""));
        Ok(Playlist::parse(&text, path, base))
    }

    /// Parses playlist text; relative files are resolved against `base`.
    pub fn parse(text: &str, source: &Path, base: &Path) -> (Playlist, Vec<LoadIssue>) {
        let mut items = Vec::new();
        let mut issues = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (reference, caption) = match line.find(char::is_whitespace) {
                Some(at) => (&line[..at], line[at..].trim()),
                None => (line, ""),
            };
            match parse_ref(reference, base) {
                Ok(target) => items.push(PlaylistItem {
                    target,
                    caption: caption.to_string(),
                    line: k + 1,
                }),
                Err(reason) => issues.push(LoadIssue {
                    source: source.to_path_buf(),
                    line: k + 1,
                    reason,
                }),
            }
        }
        (
            Playlist {
                source: source.to_path_buf(),
                items,
            },
            issues,
        )
    }

    /// Rollout files the playlist names, in first-mention order.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for item in &self.items {
            if let PlaylistRef::FileLine { file, .. } = &item.target
                && !out.contains(file)
            {
                out.push(file.clone());
            }
        }
        out
    }

    /// The playlist as text (`FILE:LINE caption` lines), e.g. to save bookmarks as a playlist.
    pub fn to_text(&self) -> String {
        let mut out = String::from("# sebx playlist: FILE:LINE or rollout id, then a caption\n");
        for item in &self.items {
            out.push_str(&item.target.to_string());
            if !item.caption.is_empty() {
                out.push_str("  ");
                out.push_str(&item.caption);
            }
            out.push('\n');
        }
        out
    }
}

fn parse_ref(reference: &str, base: &Path) -> Result<PlaylistRef, String> {
    if let Some((file, line)) = reference.rsplit_once(':')
        && !file.is_empty()
    {
        let line: usize =
            line.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                format!("`{reference}`: the line after `:` must be a number from 1")
            })?;
        let file = Path::new(file);
        let file = if file.is_absolute() {
            file.to_path_buf()
        } else {
            base.join(file)
        };
        return Ok(PlaylistRef::FileLine { file, line });
    }
    let id_part = reference.split('~').next().unwrap_or("");
    if id_part.len() >= 8 && id_part.chars().all(|c| c.is_ascii_hexdigit()) {
        return Ok(PlaylistRef::Id(RolloutId(reference.to_string())));
    }
    Err(format!(
        "`{reference}` is neither FILE:LINE nor a rollout id (hex, as sebx shows it)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_refs_captions_comments_and_reports_bad_lines() {
        let text = "# title\n\nruns/a.jsonl:3   A pass:  zwc.kocito\n/abs/b.jsonl:12\n3f2a9c1b0e4d5a6f~2 by id\nnonsense here\nx.jsonl:0\n";
        let (p, issues) = Playlist::parse(text, Path::new("pl.txt"), Path::new("/home/rg"));
        assert_eq!(
            p.items,
            vec![
                PlaylistItem {
                    target: PlaylistRef::FileLine {
                        file: PathBuf::from("/home/rg/runs/a.jsonl"),
                        line: 3
                    },
                    caption: "A pass:  zwc.kocito".to_string(),
                    line: 3,
                },
                PlaylistItem {
                    target: PlaylistRef::FileLine {
                        file: PathBuf::from("/abs/b.jsonl"),
                        line: 12
                    },
                    caption: String::new(),
                    line: 4,
                },
                PlaylistItem {
                    target: PlaylistRef::Id(RolloutId("3f2a9c1b0e4d5a6f~2".to_string())),
                    caption: "by id".to_string(),
                    line: 5,
                },
            ]
        );
        assert_eq!(
            issues.iter().map(|i| i.line).collect::<Vec<_>>(),
            vec![6, 7]
        );
        assert_eq!(
            p.files(),
            vec![
                PathBuf::from("/home/rg/runs/a.jsonl"),
                PathBuf::from("/abs/b.jsonl")
            ]
        );
        let (again, none) = Playlist::parse(&p.to_text(), Path::new("x"), Path::new("/"));
        assert!(none.is_empty());
        assert_eq!(again.items.len(), 3);
        assert_eq!(again.items[0].caption, "A pass:  zwc.kocito");
    }
}
