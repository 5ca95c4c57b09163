//! A user's HuggingFace tokenizer (`tokenizer.json`, `--tokenizer FILE`): what the training
//! step figures count response tokens with (issue 30), so the lengths read in the unit the
//! run's response length limit is set in. Read from the file alone: nothing is downloaded.
//!
//! A response is counted as generated text: no special tokens are added (no BOS, no chat
//! template), and truncation or padding the file configures is switched off, so a long
//! response is counted whole.
//!
//! Counting takes the crate's `encode` pipeline apart where the file has the common shape of
//! a byte-level BPE ([`FastPath`]: no normalizer or NFC, a split regex then the byte-level
//! mapping, a BPE model): the regex's pieces go straight to the BPE model, each piece's
//! count remembered, without the offsets, strings and alignments `encode` builds
//! (benches/README.md). Added tokens matched as written are split out first, as `encode`
//! does; a text holding another added token, and any other shape, takes `encode`; tests
//! check both give the same counts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};

/// A loaded tokenizer that counts the tokens of a text.
pub struct TokenCounter {
    tokenizer: tokenizers::Tokenizer,
    path: PathBuf,
    /// Counting without `encode` (`None`: the file's shape is not one it covers).
    fast: Option<FastPath>,
}

/// What counting a byte-level BPE without `encode` needs: the file's split regex, whether it
/// normalizes to NFC, and its added tokens.
struct FastPath {
    split: fancy_regex::Regex,
    nfc: bool,
    /// The added tokens matched as written, each one token.
    added: Option<aho_corasick::AhoCorasick>,
    /// The other added tokens' texts (normalized, stripping, single words): a text holding
    /// one takes `encode`.
    others: Vec<String>,
    /// Each byte's character in the byte-level alphabet.
    bytes: [char; 256],
}

/// Pieces remembered per [`Counting`] at most (then forgotten, and remembered anew).
const REMEMBERED_PIECES: usize = 200_000;

/// Counts texts one after another, remembering each piece's tokens (one per thread).
pub struct Counting<'a> {
    counter: &'a TokenCounter,
    pieces: HashMap<String, u32>,
    buf: String,
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
        let fast = FastPath::of(&bytes, &tokenizer);
        let counter = TokenCounter {
            tokenizer,
            path: path.to_path_buf(),
            fast,
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
        self.counting().count(text)
    }

    /// A counter of many texts, remembering the pieces it has counted (one per thread).
    pub fn counting(&self) -> Counting<'_> {
        Counting {
            counter: self,
            pieces: HashMap::new(),
            buf: String::new(),
        }
    }

    /// Whether the file's shape is counted without `encode`.
    pub fn is_fast(&self) -> bool {
        self.fast.is_some()
    }

    /// Tokens of `text` by the crate's whole `encode` (what the fast path must equal).
    pub fn count_by_encode(&self, text: &str) -> Option<u32> {
        self.try_count(text).ok()
    }

    fn try_count(&self, text: &str) -> Result<u32, String> {
        self.tokenizer
            .encode_fast(text, false)
            .map(|e| u32::try_from(e.len()).unwrap_or(u32::MAX))
            .map_err(|e| e.to_string())
    }
}

impl Counting<'_> {
    /// Tokens of `text` (`None`: the tokenizer failed on it).
    pub fn count(&mut self, text: &str) -> Option<u32> {
        let counter = self.counter;
        let Some(fast) = &counter.fast else {
            return counter.count_by_encode(text);
        };
        if fast.others.iter().any(|a| text.contains(a.as_str())) {
            return counter.count_by_encode(text);
        }
        // The added tokens are split out first, one token each (leftmost, longest, as the
        // crate's added vocabulary finds them); the text between them is counted piece by
        // piece.
        let mut total: u32 = 0;
        let mut at = 0;
        if let Some(added) = &fast.added {
            for m in added.find_iter(text) {
                total = total.saturating_add(self.count_plain(fast, &text[at..m.start()])?);
                total = total.saturating_add(1);
                at = m.end();
            }
        }
        let rest = self.count_plain(fast, &text[at..]);
        match rest {
            Some(n) => Some(total.saturating_add(n)),
            // An added token normalization made (or a failure): as `encode` counts it.
            None => counter.count_by_encode(text),
        }
    }

    /// Tokens of a text without added tokens: normalized, cut by the split regex, each
    /// piece mapped to the byte-level alphabet and merged by the BPE model (`None`: a
    /// normalized added token appeared, or the model failed; `encode` decides).
    fn count_plain(&mut self, fast: &FastPath, text: &str) -> Option<u32> {
        if text.is_empty() {
            return Some(0);
        }
        let normalized;
        let text = if fast.nfc && !unicode_normalization_alignments::is_nfc(text) {
            use unicode_normalization_alignments::UnicodeNormalization;
            normalized = text.nfc().map(|(c, _)| c).collect::<String>();
            normalized.as_str()
        } else {
            text
        };
        if fast.others.iter().any(|a| text.contains(a.as_str())) {
            return None;
        }
        let tokenizers::ModelWrapper::BPE(bpe) = self.counter.tokenizer.get_model() else {
            return None;
        };
        // The regex's matches and the text between them, each a piece, as the crate's
        // split (`Isolated`) cuts them; a match that errors ends the matches there.
        let mut total: u32 = 0;
        let mut at = 0;
        let mut matches = fast.split.find_iter(text);
        loop {
            let (start, end) = match matches.next() {
                Some(Ok(m)) => (m.start(), m.end()),
                Some(Err(_)) | None => (text.len(), text.len()),
            };
            for piece in [&text[at..start], &text[start..end]] {
                if piece.is_empty() {
                    continue;
                }
                let n = match self.pieces.get(piece) {
                    Some(&n) => n,
                    None => {
                        self.buf.clear();
                        self.buf
                            .extend(piece.bytes().map(|b| fast.bytes[usize::from(b)]));
                        let n = {
                            use tokenizers::Model;
                            let tokens = bpe.tokenize(&self.buf).ok()?;
                            u32::try_from(tokens.len()).unwrap_or(u32::MAX)
                        };
                        if self.pieces.len() >= REMEMBERED_PIECES {
                            self.pieces.clear();
                        }
                        self.pieces.insert(piece.to_string(), n);
                        n
                    }
                };
                total = total.saturating_add(n);
            }
            if start == text.len() {
                return Some(total);
            }
            at = end;
        }
    }
}

impl FastPath {
    /// The fast path for the tokenizer.json `bytes` holds, when it has the shape covered:
    /// no normalizer or NFC; a `Split` by a regex (`Isolated`, not inverted) then
    /// `ByteLevel` without its own regex or a prefix space; no post-processor or the
    /// byte-level one (offsets only); a BPE model without dropout.
    fn of(bytes: &[u8], tokenizer: &tokenizers::Tokenizer) -> Option<FastPath> {
        use serde_json::Value;
        let json: Value = serde_json::from_slice(bytes).ok()?;
        let kind = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_string);
        let nfc = match json.get("normalizer") {
            None | Some(Value::Null) => false,
            Some(n) if kind(n).as_deref() == Some("NFC") => true,
            Some(_) => return None,
        };
        let pre = json.get("pre_tokenizer")?;
        if kind(pre).as_deref() != Some("Sequence") {
            return None;
        }
        let [split, byte_level] = pre.get("pretokenizers")?.as_array()?.as_slice() else {
            return None;
        };
        let pattern = split.pointer("/pattern/Regex")?.as_str()?;
        let split_ok = kind(split).as_deref() == Some("Split")
            && split.get("behavior")?.as_str()? == "Isolated"
            && !split.get("invert")?.as_bool()?;
        let byte_level_ok = kind(byte_level).as_deref() == Some("ByteLevel")
            && !byte_level.get("add_prefix_space")?.as_bool()?
            && !byte_level.get("use_regex")?.as_bool()?;
        let post_ok = match json.get("post_processor") {
            None | Some(Value::Null) => true,
            Some(p) => kind(p).as_deref() == Some("ByteLevel"),
        };
        let model = json.get("model")?;
        let bpe_ok = kind(model).as_deref() == Some("BPE")
            && model.get("dropout").is_none_or(Value::is_null)
            && matches!(tokenizer.get_model(), tokenizers::ModelWrapper::BPE(_));
        if !(split_ok && byte_level_ok && post_ok && bpe_ok) {
            return None;
        }
        // Added tokens, special or not, as `encode` splits them out: those matched as
        // written (not normalized, no stripping or word bounds) split here, the others
        // send a text holding them to `encode`.
        let (plain, others): (Vec<_>, Vec<_>) = tokenizer
            .get_added_tokens_decoder()
            .into_values()
            .filter(|t| !t.content.is_empty())
            .partition(|t| !(t.normalized || t.lstrip || t.rstrip || t.single_word));
        let added = if plain.is_empty() {
            None
        } else {
            let contents = plain.iter().map(|t| t.content.as_str());
            Some(
                aho_corasick::AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(contents)
                    .ok()?,
            )
        };
        Some(FastPath {
            split: fancy_regex::Regex::new(pattern).ok()?,
            nfc,
            added,
            others: others.into_iter().map(|t| t.content).collect(),
            bytes: byte_level_chars(),
        })
    }
}

/// The byte-level alphabet (GPT-2's): printable Latin-1 bytes stand for themselves, the
/// others, in order, for the characters from U+0100 on.
fn byte_level_chars() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut next = 256u32;
    for (b, slot) in table.iter_mut().enumerate() {
        let printable = matches!(b, 33..=126 | 161..=172 | 174..=255);
        let code = if printable {
            b as u32
        } else {
            next += 1;
            next - 1
        };
        *slot = char::from_u32(code).unwrap_or('\0');
    }
    table
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

    /// Texts of the kinds responses hold: code, prose, numbers, runs of spaces and newlines,
    /// accents written decomposed (not NFC), CJK, emoji, an added token's text.
    fn generated_texts(n: usize) -> Vec<String> {
        let parts = [
            "def solve(values):\n",
            "    return zwc.sum(values, axis=0)\n",
            "Let's think: the array's shape is (3, 4)",
            "   \n\n\t",
            "caf\u{65}\u{301} na\u{ef}ve ",
            "数组的形状 ",
            "🙂🙂 ",
            "x_1 = 12345678 + 0.5e-3;",
            "```python\nimport zwc as np\n```",
            "I'm sure they'll've done",
            "<|im_end|>",
            "<think>ok</think>",
            "<|im_start|",
            " [MASK] ",
            "\r\n  ",
        ];
        let mut state = 7u64;
        (0..n)
            .map(|_| {
                let mut text = String::new();
                for _ in 0..8 {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    text.push_str(parts[(state >> 33) as usize % parts.len()]);
                }
                text
            })
            .collect()
    }

    /// A byte-level BPE of the common shape (NFC, a GPT-style split regex with a lookahead,
    /// byte-level, added tokens: overlapping ones split out by the fast path, one that
    /// strips spaces sent to `encode`), trained by the crate on `texts`.
    fn byte_level_bpe(dir: &Path, texts: &[String]) -> PathBuf {
        use tokenizers::models::TrainerWrapper;
        use tokenizers::models::bpe::BpeTrainerBuilder;
        use tokenizers::pre_tokenizers::byte_level::ByteLevel;
        let json = serde_json::json!({
            "version": "1.0", "truncation": null, "padding": null,
            "added_tokens": [
                {"id": 0, "content": "<|im_end|>", "single_word": false,
                    "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                {"id": 1, "content": "<|im", "single_word": false,
                    "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                {"id": 2, "content": "<think>", "single_word": false,
                    "lstrip": false, "rstrip": false, "normalized": false, "special": false},
                {"id": 3, "content": "</think>", "single_word": false,
                    "lstrip": false, "rstrip": false, "normalized": false, "special": false},
                {"id": 4, "content": "[MASK]", "single_word": false,
                    "lstrip": true, "rstrip": false, "normalized": false, "special": true}],
            "normalizer": {"type": "NFC"},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
                 "behavior": "Isolated", "invert": false},
                {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]},
            "post_processor": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
            "decoder": null,
            "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
                "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "vocab": {}, "merges": []}
        });
        let mut tokenizer =
            tokenizers::Tokenizer::from_bytes(json.to_string().as_bytes()).expect("builds");
        let mut trainer: TrainerWrapper = BpeTrainerBuilder::new()
            .vocab_size(400)
            .show_progress(false)
            .initial_alphabet(ByteLevel::alphabet().into_iter().collect())
            .build()
            .into();
        tokenizer.train(&mut trainer, texts.iter()).expect("trains");
        let path = dir.join("bpe-tokenizer.json");
        std::fs::write(&path, tokenizer.to_string(false).expect("json")).expect("write");
        path
    }

    #[test]
    fn the_fast_count_equals_encode() {
        let dir = tempfile::tempdir().expect("tempdir");
        let texts = generated_texts(400);
        let t = TokenCounter::load(&byte_level_bpe(dir.path(), &texts[..200])).expect("loads");
        assert!(
            t.is_fast(),
            "the common byte-level BPE shape takes the fast path"
        );
        let mut counting = t.counting();
        let mut merged = 0;
        for text in &texts {
            let by_encode = t.count_by_encode(text);
            assert_eq!(counting.count(text), by_encode, "{text:?}");
            let n = by_encode.expect("encodes");
            merged += usize::from((n as usize) < text.len());
        }
        // The trained merges are used (fewer tokens than bytes), and remembered pieces
        // count the same a second time.
        assert!(merged > 300, "{merged}");
        for text in &texts[..50] {
            assert_eq!(counting.count(text), t.count_by_encode(text));
        }
        assert_eq!(counting.count(""), Some(0));
        // Shapes it does not cover take `encode`.
        let words = TokenCounter::load(&words(dir.path(), true)).expect("loads");
        assert!(!words.is_fast());
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
