//! Findings against a trace, site by site, over every test case (the traced harness runs
//! each case's call even after an earlier one raised). A finding that claims a crash
//! (`array_method`, `numpy_name_on_zwc`, `unknown_zwc_name`) is **confirmed** when its site
//! ran and raised there on a zwc value every time, in every case that reached it,
//! **confirmed on some cases** when it raised so in some cases and ran cleanly in others
//! (what a triager asks of a `possible` finding; a refutation of an error-level one),
//! **refuted** when it ran without raising and never raised on a zwc value (or raised on
//! something else), **not reached** when no case reached it. The other way round, a failure the
//! tracer saw on a zwc value is **missed** when it ended a case, its site raised every time
//! it ran over all cases (so an error-level finding there would have been right) and no
//! error-level finding names the site, or when no finding at all names it. A site that
//! ended a case on a zwc value and ran cleanly on another case is **data-dependent**
//! (`mixed`): a `possible` finding is the right answer there, and such sites are counted
//! apart.

use serde::{Deserialize, Serialize};

use super::{Site, SiteKind, Trace};
use crate::analysis::{Finding, FindingKind, Severity};

/// What one run of the program says about one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "settled", content = "why")]
pub enum Settled {
    /// The site ran and raised what the finding says, every time it ran.
    Confirmed,
    /// The site ran without raising, or raised on a value that is not a zwc one.
    Refuted(String),
    /// The site raised what the finding says on some test cases and ran cleanly on others
    /// (how many of each: the text). For a triager the doubt is settled: the program
    /// breaks there on those inputs (the grader stops at the first). For an error-level
    /// finding it is a refutation all the same: the analysis claimed every input.
    SomeCases(String),
    /// The site never ran on these test cases.
    NotReached,
    /// The finding claims nothing a run can show (an import, a hint), or names no site the
    /// tracer instruments.
    Untraced,
}

impl Settled {
    /// One word for people.
    pub fn label(&self) -> &'static str {
        match self {
            Settled::Confirmed => "confirmed",
            Settled::Refuted(_) => "refuted",
            Settled::SomeCases(_) => "confirmed on some cases",
            Settled::NotReached => "not reached",
            Settled::Untraced => "not traced",
        }
    }
}

/// Whether a finding claims that its site raises when it runs.
pub fn claims_crash(f: &Finding) -> bool {
    matches!(
        f.kind,
        FindingKind::ArrayMethod | FindingKind::NumpyNameOnZwc | FindingKind::UnknownZwcName
    ) && f.line > 0
}

/// Whether `site` is the operation finding `f` is about.
pub fn site_matches(f: &Finding, site: &Site) -> bool {
    if !claims_crash(f) {
        return false;
    }
    match f.kind {
        FindingKind::ArrayMethod => {
            let (kind, at) = if f.name.starts_with("unary ") {
                (SiteKind::Unary, (site.line, site.col))
            } else if f.name.ends_with("()") {
                (SiteKind::Call, (site.line, site.col))
            } else if f
                .name
                .chars()
                .next()
                .is_some_and(|c| !c.is_alphanumeric() && c != '_')
            {
                (SiteKind::Binop, (site.line, site.col))
            } else {
                (SiteKind::Attr, (site.name_line, site.name_col))
            };
            site.kind == kind && site.name == f.name && at == (f.line, f.col)
        }
        // `zwc.linalg.norm`, `zwc.rfx.mean`: an attribute of the chain, which starts where
        // it does (the first missing one raises).
        _ => {
            site.kind == SiteKind::Attr
                && (site.line, site.col) == (f.line, f.col)
                && f.name.split('.').skip(1).any(|part| part == site.name)
        }
    }
}

/// Settles one finding against a trace.
pub fn settle(f: &Finding, trace: &Trace) -> Settled {
    if !claims_crash(f) {
        return Settled::Untraced;
    }
    let sites: Vec<&Site> = trace.sites.iter().filter(|s| site_matches(f, s)).collect();
    if sites.is_empty() {
        // `from zwc import mean`: the import statement itself fails.
        if let Some(c) = &trace.crash
            && c.exception == "ImportError"
            && c.line == Some(f.line)
        {
            return Settled::Confirmed;
        }
        return Settled::Untraced;
    }
    if !sites.iter().any(|s| s.reached()) {
        return Settled::NotReached;
    }
    // Along `zwc.rfx.mean` the first parts resolve: the chain is refuted only when its
    // last attribute resolved, confirmed when some attribute of it failed on zwc.
    if f.kind != FindingKind::ArrayMethod {
        let last = f.name.rsplit('.').next().unwrap_or(&f.name);
        if sites.iter().any(|s| s.zwc_failures().next().is_some()) {
            return Settled::Confirmed;
        }
        if let Some(s) = sites.iter().find(|s| s.name == last && s.ok > 0) {
            return Settled::Refuted(format!(
                "{} resolved {} time(s), on {}{}",
                f.name,
                s.ok,
                s.ok_types.join(", "),
                cases_note(s)
            ));
        }
    }
    // Raised on a zwc value in some cases, ran cleanly in others.
    if let Some((s, failure)) = sites
        .iter()
        .filter(|s| s.data_dependent())
        .find_map(|s| Some((s, s.zwc_failures().next()?)))
    {
        return Settled::SomeCases(format!(
            "raised {} on {} in {} of {} cases, ran cleanly on {} in the others",
            failure.exception,
            failure.receiver,
            s.cases_raised,
            s.cases_reached(),
            s.ok_types.join(", ")
        ));
    }
    if let Some(s) = sites
        .iter()
        .find(|s| s.ok > 0 && f.kind == FindingKind::ArrayMethod)
    {
        return Settled::Refuted(format!(
            "ran {} time(s) without raising, on {}{}",
            s.ok,
            s.ok_types.join(", "),
            cases_note(s)
        ));
    }
    for s in &sites {
        if s.zwc_failures().next().is_none()
            && let Some(other) = s.fails.first()
        {
            return Settled::Refuted(format!(
                "raised {} on {}, not on a zwc value",
                other.exception, other.receiver
            ));
        }
    }
    Settled::Confirmed
}

/// `" (raised on 1 of 3 cases)"` for a site that raised on some cases only.
fn cases_note(s: &Site) -> String {
    if s.data_dependent() {
        format!(
            " (raised on {} of {} cases)",
            s.cases_raised,
            s.cases_reached()
        )
    } else {
        String::new()
    }
}

/// Settles every finding (in order) against a trace.
pub fn settle_findings(findings: &[Finding], trace: &Trace) -> Vec<Settled> {
    findings.iter().map(|f| settle(f, trace)).collect()
}

/// A failure on a zwc value that the findings do not account for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missed {
    pub site: Site,
    /// It ended the program (else a `try` caught it).
    pub escaped: bool,
    /// A `possible` finding names the site (only an error-level one would do).
    pub possible_only: bool,
}

/// One program's findings against its trace: per finding its settlement, and the
/// failures no finding accounts for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// Error-level crash claims: confirmed, refuted, not reached.
    pub errors: Counts,
    /// `possible` crash claims.
    pub possible: Counts,
    /// Refuted error-level findings, with why.
    pub refuted_errors: Vec<(Finding, String)>,
    pub missed: Vec<Missed>,
    /// Sites whose failure on a zwc value ended a case's call and that raised every time
    /// they ran, over all cases: what error-level findings are meant to catch (the missed
    /// ones included).
    pub crashes: usize,
    /// Sites whose failure on a zwc value ended a case's call and that ran cleanly on
    /// another case (data-dependent): `possible` is right there, so they are not misses
    /// unless no finding names them.
    pub mixed: usize,
    /// A case or the program ended with a zwc AttributeError or TypeError that no traced
    /// site raised (the first such).
    pub unattributed_crash: Option<String>,
}

/// How many findings of one severity were settled which way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub confirmed: usize,
    pub refuted: usize,
    pub not_reached: usize,
    pub untraced: usize,
}

impl Counts {
    /// Counts `s`, a settlement of an error-level finding when `error`.
    fn add(&mut self, s: &Settled, error: bool) {
        match s {
            Settled::Confirmed => self.confirmed += 1,
            Settled::Refuted(_) => self.refuted += 1,
            // What it is for the finding's level: a refutation of a certainty, a
            // confirmation of a doubt.
            Settled::SomeCases(_) if error => self.refuted += 1,
            Settled::SomeCases(_) => self.confirmed += 1,
            Settled::NotReached => self.not_reached += 1,
            Settled::Untraced => self.untraced += 1,
        }
    }

    /// Adds another program's counts.
    pub fn merge(&mut self, o: &Counts) {
        self.confirmed += o.confirmed;
        self.refuted += o.refuted;
        self.not_reached += o.not_reached;
        self.untraced += o.untraced;
    }
}

/// Compares a program's findings with its trace (see the module doc).
pub fn compare(findings: &[Finding], trace: &Trace) -> Comparison {
    compare_settled(findings, &settle_findings(findings, trace), trace)
}

/// [`compare`] with the findings already settled against `trace` (`settled[i]` is
/// `findings[i]`'s, as [`settle_findings`] gives them), so a caller that settled them
/// already does not settle them again.
pub fn compare_settled(findings: &[Finding], settled: &[Settled], trace: &Trace) -> Comparison {
    debug_assert_eq!(findings.len(), settled.len());
    let mut out = Comparison::default();
    for (f, s) in findings
        .iter()
        .zip(settled)
        .filter(|(f, _)| claims_crash(f))
    {
        match f.severity {
            Severity::Error => {
                out.errors.add(s, true);
                if let Settled::Refuted(why) | Settled::SomeCases(why) = s {
                    out.refuted_errors.push((f.clone(), why.clone()));
                }
            }
            Severity::Possible => out.possible.add(s, false),
            _ => {}
        }
    }
    for site in &trace.sites {
        if site.zwc_failures().next().is_none() {
            continue;
        }
        let named: Vec<&Finding> = findings.iter().filter(|f| site_matches(f, site)).collect();
        let error = named.iter().any(|f| f.severity == Severity::Error);
        // Only a site that raised on a zwc value every time it ran, over all cases, can carry
        // an error-level finding (one that also ran without raising, or raised on something
        // else, a Python number say, would refute it): such a crash must be an error. One
        // that raised on a row in one case and on a number in another depends on the data.
        let on_zwc_only = site.zwc_failures().count() == site.fails.len();
        let always = site.ok == 0 && on_zwc_only;
        out.crashes += usize::from(site.escaped && always);
        out.mixed += usize::from(site.escaped && (site.data_dependent() || !on_zwc_only));
        if (site.escaped && always && !error) || named.is_empty() {
            out.missed.push(Missed {
                site: site.clone(),
                escaped: site.escaped,
                possible_only: !named.is_empty(),
            });
        }
    }
    if let Some(c) = trace.crashes.iter().find(|c| {
        c.site.is_none()
            && matches!(c.exception.as_str(), "AttributeError" | "TypeError")
            && misuse_message(&c.message)
    }) {
        out.unattributed_crash = Some(format!(
            "{}: {} (line {:?}, case {:?})",
            c.exception, c.message, c.line, c.case
        ));
    }
    out
}

/// Whether an exception message is one of the misuses findings are about: a missing
/// ZWCArray or zwc attribute, or an operator or builtin a ZWCArray refuses (not, say, NumPy
/// calling `__array__` with arguments inside a function given a ZWCArray).
fn misuse_message(message: &str) -> bool {
    message.starts_with("ZWCArray has no attribute")
        || message.starts_with("module 'zwc")
        || (message.contains("'ZWCArray'")
            && (message.contains("operand")
                || message.contains("argument must be")
                || message.contains("__round__")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::trace::{Crash, SiteFailure};

    fn site(ok: u64, cases_clean: usize, cases_raised: usize) -> Site {
        Site {
            id: 0,
            kind: SiteKind::Attr,
            name: "tolist".to_string(),
            line: 3,
            col: 12,
            name_line: 3,
            name_col: 20,
            ok,
            ok_types: if ok > 0 {
                vec!["numpy_scalar".to_string()]
            } else {
                Vec::new()
            },
            fails: vec![SiteFailure {
                receiver: "ZWCArray".to_string(),
                exception: "AttributeError".to_string(),
                message: "ZWCArray has no attribute 'tolist'".to_string(),
            }],
            escaped: true,
            cases_clean,
            cases_raised,
        }
    }

    fn finding(severity: Severity) -> Finding {
        Finding {
            kind: FindingKind::ArrayMethod,
            family: FindingKind::ArrayMethod.family(),
            severity,
            name: "tolist".to_string(),
            line: 3,
            col: 20,
            response_line: 4,
            response_col: 20,
            suggestion: None,
            message: String::new(),
        }
    }

    fn trace(s: Site) -> Trace {
        Trace {
            sites: vec![s],
            crash: None,
            crashes: vec![Crash {
                exception: "AttributeError".to_string(),
                message: "ZWCArray has no attribute 'tolist'".to_string(),
                line: Some(3),
                case: Some(0),
                site: Some(0),
            }],
            cases: 2,
            complete: true,
            timed_out: false,
            ..Trace::default()
        }
    }

    #[test]
    fn a_site_raising_on_some_cases_only_is_data_dependent_not_a_miss() {
        // Raised on case 0, ran cleanly on case 1: `possible` is the right answer.
        let t = trace(site(1, 1, 1));
        let c = compare(&[finding(Severity::Possible)], &t);
        assert_eq!((c.crashes, c.mixed, c.missed.len()), (0, 1, 0));
        // For a triager the doubt is settled: it breaks there on some inputs.
        assert_eq!(c.possible.confirmed, 1);
        let s = settle(&finding(Severity::Possible), &t);
        assert!(
            matches!(&s, Settled::SomeCases(why) if why.contains("in 1 of 2 cases")),
            "{s:?}"
        );
        assert_eq!(s.label(), "confirmed on some cases");
        // An error there is refuted, and says on how many cases it raised.
        let c = compare(&[finding(Severity::Error)], &t);
        assert_eq!(c.errors.refuted, 1);
        assert!(c.refuted_errors[0].1.contains("in 1 of 2 cases"));
        // Unflagged, it is still missed.
        assert_eq!(compare(&[], &t).missed.len(), 1);
    }

    /// Raised on a ZWCArray row in one case and on a Python number in the other (iterating an
    /// array whose dimensions the cases do not agree on): an error there would be refuted by
    /// the number, so it depends on the data and is not a miss.
    #[test]
    fn a_site_raising_on_a_row_and_on_a_number_is_data_dependent() {
        let mut s = site(0, 0, 2);
        s.fails.push(SiteFailure {
            receiver: "float".to_string(),
            exception: "AttributeError".to_string(),
            message: "'float' object has no attribute 'tolist'".to_string(),
        });
        let t = trace(s);
        let c = compare(&[finding(Severity::Possible)], &t);
        assert_eq!((c.crashes, c.mixed, c.missed.len()), (0, 1, 0));
    }

    #[test]
    fn a_site_raising_in_every_case_is_a_crash_an_error_must_catch() {
        let t = trace(site(0, 0, 2));
        let c = compare(&[finding(Severity::Possible)], &t);
        assert_eq!((c.crashes, c.mixed, c.missed.len()), (1, 0, 1));
        let c = compare(&[finding(Severity::Error)], &t);
        assert_eq!((c.errors.confirmed, c.missed.len()), (1, 0));
        assert!(c.unattributed_crash.is_none());
        // A case ended by a misuse no traced site raised.
        let mut t = t;
        t.crashes[0].site = None;
        assert!(compare(&[], &t).unattributed_crash.is_some());
    }
}
