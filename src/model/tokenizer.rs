//! A user's HuggingFace tokenizer (`tokenizer.json`, `--tokenizer FILE`): what the training
//! step figures count response tokens with (issue 30), so the lengths read in the unit the
//! run's response length limit is set in. Read from the file alone: nothing is downloaded.
//!
//! A response is counted as generated text: no special tokens are added (no BOS, no chat
//! template), and truncation or padding the file configures is switched off, so a long
//! response is counted whole.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};

/// A loaded tokenizer that counts the tokens of a text.
pub struct TokenCounter {
    tokenizer: tokenizers::Tokenizer,
    path: PathBuf,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCounter")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl TokenCounter {
    /// Loads `path`, a HuggingFace `tokenizer.json`; the error names the file and what was
    /// wrong with it (missing, unreadable, not a tokenizer, or unable to encode a probe).
    pub fn load(path: &Path) -> Result<TokenCounter> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("cannot read the tokenizer {}", path.display()))?;
        let mut tokenizer = tokenizers::Tokenizer::from_bytes(&bytes).map_err(|e| {
            anyhow!(
                "{} is not a HuggingFace tokenizer.json (--tokenizer): {e}",
                path.display()
            )
        })?;
        tokenizer
            .with_truncation(None)
            .map_err(|e| anyhow!("{}: cannot switch truncation off: {e}", path.display()))?;
        tokenizer.with_padding(None);
        let counter = TokenCounter {
            tokenizer,
            path: path.to_path_buf(),
        };
        // A model that cannot encode plain text (a word-level vocabulary without an unknown
        // token, say) would leave every response uncounted: said now, not as empty figures.
        counter
            .try_count("def solve(values):\n    return 1\n")
            .map_err(|e| {
                anyhow!(
                    "{}: the tokenizer cannot encode plain text: {e}",
                    path.display()
                )
            })?;
        Ok(counter)
    }

    /// The file it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Tokens of `text` (`None`: the tokenizer failed on it).
    pub fn count(&self, text: &str) -> Option<u32> {
        self.try_count(text).ok()
    }

    fn try_count(&self, text: &str) -> Result<u32, String> {
        self.tokenizer
            .encode_fast(text, false)
            .map(|e| u32::try_from(e.len()).unwrap_or(u32::MAX))
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word-level tokenizer splitting on whitespace, written by hand (`unk`: its unknown
    /// token is in the vocabulary, so any word can be encoded).
    fn words(dir: &Path, unk: bool) -> PathBuf {
        let path = dir.join("tokenizer.json");
        let unk = if unk { "[UNK]" } else { "[NOT IN VOCAB]" };
        let text = format!(
            r#"{{"version": "1.0", "truncation": {{"direction": "Right", "max_length": 2, "strategy": "LongestFirst", "stride": 0}}, "padding": null, "added_tokens": [], "normalizer": null,
"pre_tokenizer": {{"type": "WhitespaceSplit"}}, "post_processor": null, "decoder": null,
"model": {{"type": "WordLevel", "vocab": {{"[UNK]": 0, "def": 1}}, "unk_token": "{unk}"}}}}"#
        );
        std::fs::write(&path, text).expect("write");
        path
    }

    #[test]
    fn counts_whole_texts_without_truncation() {
        let dir = tempfile::tempdir().expect("tempdir");
        let t = TokenCounter::load(&words(dir.path(), true)).expect("loads");
        // The file truncates at 2; the count is of the whole text.
        assert_eq!(t.count("def a b\n c  d"), Some(5));
        assert_eq!(t.count(""), Some(0));
    }

    #[test]
    fn bad_files_are_named_with_what_is_wrong() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("nope.json");
        let e = format!("{:#}", TokenCounter::load(&missing).expect_err("missing"));
        assert!(e.contains("nope.json") && e.contains("cannot read"), "{e}");
        let junk = dir.path().join("junk.json");
        std::fs::write(&junk, "{\"model\": 3}").expect("write");
        let e = format!("{:#}", TokenCounter::load(&junk).expect_err("junk"));
        assert!(
            e.contains("junk.json") && e.contains("not a HuggingFace tokenizer.json"),
            "{e}"
        );
        let e = format!(
            "{:#}",
            TokenCounter::load(&words(dir.path(), false)).expect_err("no unk")
        );
        assert!(e.contains("cannot encode plain text"), "{e}");
    }
}
