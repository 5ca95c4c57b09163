//! Findings against a trace, site by site. A finding that claims a crash (`array_method`,
//! `numpy_name_on_zwc`, `unknown_zwc_name`) is **confirmed** when its site ran and raised
//! there on a zwc value every time, **refuted** when it ran once without raising (or raised
//! on something else), **not reached** when it never ran. The other way round, a failure
//! the tracer saw on a zwc value is **missed** when it ended the program, its site raised
//! every time it ran (so an error-level finding there would have been right) and no
//! error-level finding names the site, or when no finding at all names it.

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
                "{} resolved {} time(s), on {}",
                f.name,
                s.ok,
                s.ok_types.join(", ")
            ));
        }
    }
    if let Some(s) = sites
        .iter()
        .find(|s| s.ok > 0 && f.kind == FindingKind::ArrayMethod)
    {
        return Settled::Refuted(format!(
            "ran {} time(s) without raising, on {}",
            s.ok,
            s.ok_types.join(", ")
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
    /// Failures on a zwc value that ended the program at a site that raised every time it
    /// ran: what error-level findings are meant to catch (the missed ones included).
    pub crashes: usize,
    /// The program ended with a zwc AttributeError or TypeError that no traced site raised.
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
    fn add(&mut self, s: &Settled) {
        match s {
            Settled::Confirmed => self.confirmed += 1,
            Settled::Refuted(_) => self.refuted += 1,
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
    let mut out = Comparison::default();
    for f in findings.iter().filter(|f| claims_crash(f)) {
        let s = settle(f, trace);
        match f.severity {
            Severity::Error => {
                out.errors.add(&s);
                if let Settled::Refuted(why) = &s {
                    out.refuted_errors.push((f.clone(), why.clone()));
                }
            }
            Severity::Possible => out.possible.add(&s),
            _ => {}
        }
    }
    for site in &trace.sites {
        if site.zwc_failures().next().is_none() {
            continue;
        }
        let named: Vec<&Finding> = findings.iter().filter(|f| site_matches(f, site)).collect();
        let error = named.iter().any(|f| f.severity == Severity::Error);
        // Only a site that raised every time it ran can carry an error-level finding (one
        // that also ran without raising would refute it): such a crash must be an error.
        let always = site.ok == 0;
        out.crashes += usize::from(site.escaped && always);
        if (site.escaped && always && !error) || named.is_empty() {
            out.missed.push(Missed {
                site: site.clone(),
                escaped: site.escaped,
                possible_only: !named.is_empty(),
            });
        }
    }
    if let Some(c) = &trace.crash
        && !trace.sites.iter().any(|s| s.escaped)
        && matches!(c.exception.as_str(), "AttributeError" | "TypeError")
        && misuse_message(&c.message)
    {
        out.unattributed_crash = Some(format!(
            "{}: {} (line {:?})",
            c.exception, c.message, c.line
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
