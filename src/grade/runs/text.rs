//! The few pieces of text the CLI's renderer and the explorer's stats screen both print, kept
//! in one place so the two say the same thing. Everything else a front end prints is its own.

/// A share as a percentage with one decimal (`42.0%`).
pub fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// An interval of shares (`[22.9%, 43.3%]`).
pub fn interval((lo, hi): (f64, f64)) -> String {
    format!("[{}, {}]", pct(lo), pct(hi))
}

/// A pass@k value with three decimals, `-` when no task has k samples.
pub fn pass_value(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into())
}

/// The short form of a query for a table cell.
pub fn short_query(q: &str, max: usize) -> String {
    let first = q
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if first.chars().count() <= max {
        first.to_string()
    } else {
        let cut: String = first.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// Run names shortened to `width` characters each, kept apart: when some name is too
/// long, the words every name shares at the start and at the end are dropped
/// (`heldout_main_rollouts`, `heldout_v2_rollouts` → `main`, `v2`); a name still too long
/// keeps its start and its end around a `…` (the part that tells runs apart is often at
/// the end: `_v2`, `_run2`). Names that fit are left whole. One function for every place
/// that names runs in a narrow column: the list (and `t`), the Stats, Compare and
/// Training screens.
pub fn short_run_names(names: &[&str], width: usize) -> Vec<String> {
    let width = width.max(1);
    if names.iter().all(|n| n.chars().count() <= width) {
        return names.iter().map(|n| n.to_string()).collect();
    }
    let chars: Vec<Vec<char>> = names.iter().map(|n| n.chars().collect()).collect();
    let (head, tail) = if names.len() > 1 {
        shared_words(&chars)
    } else {
        (0, 0)
    };
    let mut out: Vec<String> = chars
        .iter()
        .map(|c| {
            let core = &c[head..c.len() - tail];
            let core: String = core.iter().collect();
            middle_cut(&core, width)
        })
        .collect();
    // Cut names that still collide: number them instead of showing two alike.
    for i in 0..out.len() {
        if out[..i].contains(&out[i]) || out[i + 1..].contains(&out[i]) {
            let tag = format!("#{}", i + 1);
            let room = width.saturating_sub(tag.chars().count());
            out[i] = format!("{}{tag}", middle_cut(names[i], room));
        }
    }
    out
}

/// Characters every name shares at the start and at the end, in whole words (up to a `_`,
/// `-`, `.`, `/` or space), each name keeping something of its own.
fn shared_words(names: &[Vec<char>]) -> (usize, usize) {
    let sep = |c: char| matches!(c, '_' | '-' | '.' | '/' | ' ');
    let shortest = names.iter().map(Vec::len).min().unwrap_or(0);
    let common = |at: &dyn Fn(&Vec<char>, usize) -> char| {
        (0..shortest)
            .take_while(|k| names.iter().all(|n| at(n, *k) == at(&names[0], *k)))
            .count()
    };
    let prefix = common(&|n, k| n[k]);
    let suffix = common(&|n, k| n[n.len() - 1 - k]);
    // Back to the last separator inside the shared part (the separator is dropped too).
    let head = (1..=prefix)
        .rev()
        .find(|k| sep(names[0][k - 1]))
        .unwrap_or(0);
    let tail = (1..=suffix)
        .rev()
        .find(|k| sep(names[0][names[0].len() - k]))
        .unwrap_or(0);
    // Every name keeps at least one character of its own.
    if names.iter().all(|n| n.len() > head + tail) {
        (head, tail)
    } else if names.iter().all(|n| n.len() > head) {
        (head, 0)
    } else {
        (0, 0)
    }
}

/// `text` in at most `width` characters: its start and end around a `…` when too long.
fn middle_cut(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_string();
    }
    if width <= 1 {
        return "…".chars().take(width).collect();
    }
    let keep = width - 1;
    let front = keep / 2;
    let back = keep - front;
    let start: String = text.chars().take(front).collect();
    let end: String = text.chars().skip(n - back).collect();
    format!("{start}…{end}")
}

/// A p-value for people: four significant digits, scientific when tiny.
pub fn fmt_p(p: f64) -> String {
    if p >= 1e-4 {
        format!("{p:.4}")
    } else {
        format!("{p:.2e}")
    }
}

/// The first `n` wrong names written in a function's place, with their counts
/// (`zwc.mean ×3, np.sum ×1`).
pub fn top_names(names: &[super::NameCount], n: usize) -> String {
    names
        .iter()
        .take(n)
        .map(|c| format!("{} ×{}", c.name, c.count))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::short_run_names;

    #[test]
    fn run_names_stay_apart() {
        let names = ["heldout_main_rollouts", "heldout_v2_rollouts"];
        assert_eq!(short_run_names(&names, 12), ["main", "v2"]);
        // Names that fit are left alone.
        assert_eq!(short_run_names(&names, 30), names);
        assert_eq!(
            short_run_names(&["rollouts", "rollouts_run2"], 16),
            ["rollouts", "rollouts_run2"]
        );
        // Only a shared start: each keeps its own words.
        assert_eq!(
            short_run_names(&["qwen_sft_step100", "qwen_sft_step2000"], 10),
            ["step100", "step2000"]
        );
        // What stays too long keeps its start and end.
        let cut = short_run_names(&["exp_a_very_long_variant_one_x", "exp_b_short_x"], 9);
        assert_eq!(cut, ["a_ve…_one", "b_short"]);
        // One name: cut, its end kept.
        assert_eq!(
            short_run_names(&["heldout_main_rollouts"], 9),
            ["held…outs"]
        );
        // Names alike after cutting are numbered.
        let same = short_run_names(&["aaaaaaaa_1_zzzzzzzz", "aaaaaaaa_2_zzzzzzzz", "x"], 5);
        assert_eq!(same.len(), 3);
        assert_ne!(same[0], same[1]);
        assert!(same.iter().all(|s| s.chars().count() <= 5), "{same:?}");
    }
}
