//! Editing code in the user's `$EDITOR` for a what-if: the screen is left, the editor
//! runs on a temporary copy, and the screen is restored.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context as _, Result, bail};
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{EnterAlternateScreen, enable_raw_mode};

/// The editor command: `$VISUAL`, else `$EDITOR`, else `vi`.
pub fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

/// Runs `editor` (a command line; words split on spaces, the file appended) on a
/// temporary file holding `code`; returns the edited text, or `None` when it is unchanged.
pub fn edit_text(editor: &str, code: &str) -> Result<Option<String>> {
    let path = temp_path();
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(code.as_bytes()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut words = editor.split_whitespace();
    let Some(program) = words.next() else {
        bail!("no editor: set $EDITOR");
    };
    let status = Command::new(program).args(words).arg(&path).status();
    let edited = std::fs::read_to_string(&path);
    let _ = std::fs::remove_file(&path);
    let status = status.with_context(|| format!("cannot run the editor `{editor}`"))?;
    if !status.success() {
        bail!("the editor `{editor}` exited with {status}");
    }
    let edited = edited.context("cannot read the edited code back")?;
    Ok((edited != code).then_some(edited))
}

fn temp_path() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("sebx-what-if-{}-{n}.py", std::process::id()))
}

/// Leaves the explorer's screen, edits `code` in the user's editor, and restores the screen.
pub fn edit_in_terminal<B: Backend>(
    terminal: &mut Terminal<B>,
    code: &str,
) -> Result<Option<String>> {
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    let result = edit_text(&editor_command(), code);
    let restored = enable_raw_mode()
        .and_then(|()| execute!(std::io::stdout(), EnterAlternateScreen, EnableMouseCapture))
        .map_err(anyhow::Error::from)
        .and_then(|()| terminal.clear().map_err(|e| anyhow::anyhow!("{e}")));
    restored.context("cannot restore the screen after the editor")?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_editor_that_changes_the_file_returns_the_edit() {
        // `sed -i` stands in for the user: it edits the file in place and exits.
        let edited =
            edit_text("sed -i s/zwc.mean/zwc.kocito/", "y = zwc.mean(x)\n").expect("sed runs");
        assert_eq!(edited.as_deref(), Some("y = zwc.kocito(x)\n"));
        let unchanged = edit_text("true", "y = 1\n").expect("true runs");
        assert_eq!(unchanged, None);
        assert!(edit_text("false", "y = 1\n").is_err());
    }
}
