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
