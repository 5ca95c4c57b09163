//! Terminal charts for text output: horizontal bars in eighth-block steps, a histogram of
//! per-task accuracy and a pass@k curve. Plain strings, so they land in files and pipes too.

const EIGHTHS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// A bar `share` (0–1) of `width` cells long, in eighth-cell steps.
pub fn hbar(share: f64, width: usize) -> String {
    let eighths = (share.clamp(0.0, 1.0) * width as f64 * 8.0).round() as usize;
    let mut s = "█".repeat(eighths / 8);
    s.push_str(EIGHTHS[eighths % 8]);
    s
}

/// Bins of the per-task accuracy histogram: exact 0 and 1 apart, quarters between.
pub const BINS: [&str; 6] = ["0%", "1-24%", "25-49%", "50-74%", "75-99%", "100%"];

/// Which bin an accuracy falls in.
pub fn bin_of(acc: f64) -> usize {
    if acc <= 0.0 {
        0
    } else if acc >= 1.0 {
        5
    } else {
        1 + ((acc * 4.0).floor() as usize).min(3)
    }
}

/// Tasks per accuracy bin, one line per bin, bars scaled to the fullest bin.
pub fn histogram(task_accuracy: &[f64], width: usize) -> String {
    let mut counts = [0usize; BINS.len()];
    for a in task_accuracy {
        counts[bin_of(*a)] += 1;
    }
    let max = counts.iter().copied().max().unwrap_or(0).max(1);
    let mut s = String::new();
    for (label, n) in BINS.iter().zip(counts) {
        s.push_str(&format!(
            "    {label:>6} {n:>5}  {}\n",
            hbar(n as f64 / max as f64, width)
        ));
    }
    s
}

/// pass@k for each k as a bar of its value (a curve read top to bottom).
pub fn curve(points: &[(usize, Option<f64>)], width: usize) -> String {
    let mut s = String::new();
    for (k, v) in points {
        match v {
            Some(v) => s.push_str(&format!("    pass@{k:<3} {v:>6.3}  {}\n", hbar(*v, width))),
            None => s.push_str(&format!(
                "    pass@{k:<3}      -  (no task has {k} samples)\n"
            )),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_proportional() {
        assert_eq!(hbar(1.0, 4), "████");
        assert_eq!(hbar(0.5, 4), "██");
        assert_eq!(hbar(0.0, 4), "");
        assert_eq!(hbar(1.0 / 32.0, 4), "▏");
    }

    #[test]
    fn histogram_bins() {
        assert_eq!(bin_of(0.0), 0);
        assert_eq!(bin_of(0.2), 1);
        assert_eq!(bin_of(0.25), 2);
        assert_eq!(bin_of(0.99), 4);
        assert_eq!(bin_of(1.0), 5);
        let h = histogram(&[0.0, 0.0, 1.0], 4);
        let lines: Vec<&str> = h.lines().collect();
        assert!(lines[0].ends_with("2  ████"), "{h}");
        assert!(lines[5].ends_with("1  ██"), "{h}");
    }
}
