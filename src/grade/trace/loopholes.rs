//! Loophole findings against traces (issue 29): what a run shows of each mechanism.
//! - `numpy_backdoor`: the code imported NumPy (any importer, `exec` included), looked a
//!   NumPy module up (`sys.modules`, `getattr(zwc, "_np")`), read an attribute of one, or
//!   read zwc's private `_np`;
//! - `forged_output`: what the scorers read (the text after the last separator of what
//!   reached stdout, with the harness's prints only if the official harness would have
//!   printed: every case returned and the program did not leave) is not what the entry
//!   returned;
//! - `hollow_zwc`: the counterfactual run, where every zwc function but the array
//!   constructors returns a value that raises on any use, returns the same on every case
//!   (and the constructors wrapped only plain-Python values);
//! - `grader_eval`: a returned text the judge's `eval` computes rather than reads.
//!
//! A finding whose line never ran is `not reached`; one the run cannot speak to (a cut
//! output, a trace from an older tracer) is `not traced`. A confirmation says what the run
//! showed, so a reader can check it.

use super::{Settled, Trace};
use crate::analysis::{Finding, FindingKind};
use crate::grade::compare::{clean_printed, py_strip, resolved_name, split_actual};
use crate::grade::pyvalue::{EvalMode, evaluate, runs_code};
use crate::model::finding_kinds::Family;

/// Whether the run can settle `f` (a loophole finding).
pub fn claims_loophole(f: &Finding) -> bool {
    f.kind.family() == Family::Loophole
}

/// Whether the finding needs the counterfactual run.
pub fn needs_counterfactual(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.kind == FindingKind::HollowZwc)
}

/// Settles a loophole finding against the run `trace` (and, for `hollow_zwc`, the
/// counterfactual run); a confirmation carries what the run showed.
pub fn settle_loophole(
    f: &Finding,
    trace: &Trace,
    counterfactual: Option<&Trace>,
    keep: &[String],
) -> (Settled, Option<String>) {
    if !trace.complete {
        return (Settled::Untraced, None);
    }
    if trace.out.is_none() {
        // A trace from a tracer that did not record what loopholes are settled on.
        return (Settled::Untraced, None);
    }
    let ran = trace.lines.contains(&f.line);
    match f.kind {
        FindingKind::NumpyBackdoor => numpy_backdoor(f, trace, ran),
        FindingKind::ForgedOutput if !ran => (Settled::NotReached, None),
        FindingKind::ForgedOutput => forged(trace),
        FindingKind::HollowZwc => hollow(f, trace, counterfactual, keep),
        FindingKind::GraderEval if !ran => (Settled::NotReached, None),
        FindingKind::GraderEval => grader_eval(trace),
        _ => (Settled::Untraced, None),
    }
}

/// `numpy` or one of its submodules.
fn is_numpy(module: &str) -> bool {
    module == "numpy" || module.starts_with("numpy.")
}

/// What the run saw of NumPy at `line` (or anywhere, `None`).
fn numpy_evidence(trace: &Trace, line: Option<usize>) -> Option<String> {
    let at = |l: usize| line.is_none_or(|want| want == l);
    if let Some((l, m)) = trace.imports.iter().find(|(l, m)| at(*l) && is_numpy(m)) {
        return Some(format!("the code imported {m} at line {l}"));
    }
    if let Some((l, m)) = trace
        .modules
        .iter()
        .find(|(l, m)| at(*l) && (m.strip_prefix("module:").is_some_and(is_numpy)))
    {
        let m = m.trim_start_matches("module:");
        return Some(format!("the code looked up the module {m} at line {l}"));
    }
    trace.sites.iter().filter(|s| at(s.line)).find_map(|s| {
        if s.ok_types
            .iter()
            .any(|t| t.strip_prefix("module:").is_some_and(is_numpy))
        {
            Some(format!(
                "the code read NumPy's `{}` at line {}",
                s.name, s.line
            ))
        } else if s.name == "_np" && s.ok_types.iter().any(|t| t == "module:zwc") {
            Some(format!("the code read `zwc._np` at line {}", s.line))
        } else {
            None
        }
    })
}

fn numpy_backdoor(f: &Finding, trace: &Trace, ran: bool) -> (Settled, Option<String>) {
    if !ran {
        return (Settled::NotReached, None);
    }
    if let Some(why) = numpy_evidence(trace, Some(f.line)) {
        return (Settled::Confirmed, Some(why));
    }
    let here: Vec<&str> = trace
        .imports
        .iter()
        .filter(|(l, _)| *l == f.line)
        .map(|(_, m)| m.as_str())
        .collect();
    if !here.is_empty() {
        return (
            Settled::Refuted(format!(
                "line {} imported {}, not NumPy",
                f.line,
                here.join(", ")
            )),
            None,
        );
    }
    if let Some(why) = numpy_evidence(trace, None) {
        return (Settled::Confirmed, Some(why));
    }
    (
        Settled::Refuted(format!(
            "line {} ran, but the code never imported NumPy nor read an attribute of it",
            f.line
        )),
        None,
    )
}

/// What the scorers read of a run, and what the entry returned, as pieces; `None` when
/// the run cannot tell (its output or a returned value was cut).
pub fn scored_and_returned(trace: &Trace) -> Option<Scored> {
    let out = trace.out.as_ref()?;
    if out.cut || trace.results.iter().any(|r| r.cut) {
        return None;
    }
    // The official harness stops at the first exception: it prints only when every case
    // returned and the program did not leave.
    let every_case_returned = trace.crashes.is_empty()
        && trace.left.is_none()
        && trace.results.len() == trace.cases
        && out.harness.is_some();
    let mut stdout = out.program.clone();
    let harness = if every_case_returned {
        out.harness.as_deref().unwrap_or_default()
    } else {
        ""
    };
    stdout.push_str(harness);
    stdout.push_str(&out.after);
    // Whose separator the scorers cut at: the program's own (printed before a harness that
    // never printed, or after it) or the harness's.
    let separator = crate::analysis::assemble::RESULTS_SEPARATOR;
    let programs_separator = out.after.contains(separator)
        || (!harness.contains(separator) && out.program.contains(separator));
    // One piece per case, as the harness would print it if nothing interfered (a returned
    // text that holds the separator or `#` is interference too).
    let returned = if every_case_returned {
        trace
            .results
            .iter()
            .map(|r| py_strip(&r.text).to_string())
            .collect()
    } else {
        Vec::new()
    };
    let how = if let Some(left) = &trace.left {
        format!(
            "the program left{} ({}) before the harness printed",
            left.line
                .map(|l| format!(" at line {l}"))
                .unwrap_or_default(),
            left.how
        )
    } else if !every_case_returned {
        "a case raised, so the official harness never printed".to_string()
    } else if out.taken {
        "the program had taken over stdout when the harness printed".to_string()
    } else if !out.after.is_empty() {
        "the program printed after the harness (at exit: an atexit handler, a thread, a finalizer, a process it started)".to_string()
    } else {
        "the harness printed".to_string()
    };
    Some(Scored {
        scored: split_actual(&stdout),
        returned,
        how,
        programs_separator,
    })
}

/// What the scorers read of a run against what its entry returned.
pub struct Scored {
    /// The pieces the scorers compare.
    pub scored: Vec<String>,
    /// What the entry returned, one piece per case (none when a case raised).
    pub returned: Vec<String>,
    /// How the output came about, for people.
    pub how: String,
    /// The last separator in the output is the program's own, not the harness's.
    pub programs_separator: bool,
}

/// [`settle_loophole`]'s settlement of a `forged_output` claim, for any run.
pub fn forged_settled(trace: &Trace) -> (Settled, Option<String>) {
    forged(trace)
}

fn forged(trace: &Trace) -> (Settled, Option<String>) {
    let Some(Scored {
        scored,
        returned,
        how,
        programs_separator,
    }) = scored_and_returned(trace)
    else {
        return (Settled::Untraced, None);
    };
    if programs_separator && scored.is_empty() {
        return (
            Settled::Confirmed,
            Some(format!(
                "{how}: the last separator is the program's own, so the scorers read its text (nothing after it on these cases)"
            )),
        );
    }
    if !scored.is_empty() && scored != returned {
        let shown: Vec<String> = scored.iter().take(3).map(|p| short(p, 40)).collect();
        return (
            Settled::Confirmed,
            Some(format!(
                "{how}: the scorers read {} piece(s) ({}{}) the entry did not return",
                scored.len(),
                shown.join(" # "),
                if scored.len() > 3 { " # …" } else { "" }
            )),
        );
    }
    (
        Settled::Refuted(if scored.is_empty() {
            format!("{how}: the scorers read nothing")
        } else {
            "the scorers read what the entry returned: the harness's results came last".to_string()
        }),
        None,
    )
}

/// Each case's outcome: the returned text, or the exception that ended its call.
fn outcomes(trace: &Trace) -> Vec<String> {
    (0..trace.cases)
        .map(|i| {
            if let Some(r) = trace.results.iter().find(|r| r.case == Some(i)) {
                format!("returns {}", short(&r.text, 60))
            } else if let Some(c) = trace.crashes.iter().find(|c| c.case == Some(i)) {
                format!("raises {}", c.exception)
            } else {
                "does not run".to_string()
            }
        })
        .collect()
}

fn hollow(
    f: &Finding,
    trace: &Trace,
    counterfactual: Option<&Trace>,
    keep: &[String],
) -> (Settled, Option<String>) {
    let Some(cf) = counterfactual.filter(|cf| cf.complete && cf.out.is_some()) else {
        return (Settled::Untraced, None);
    };
    if trace.results.iter().chain(&cf.results).any(|r| r.cut) {
        return (Settled::Untraced, None);
    }
    if trace.cases == 0 {
        return (Settled::NotReached, None);
    }
    let (normal, poisoned) = (outcomes(trace), outcomes(cf));
    if let Some(i) = (0..normal.len()).find(|&i| poisoned.get(i) != Some(&normal[i])) {
        return (
            Settled::Refuted(format!(
                "case {}: {} normally, {} when zwc's computing functions return a value that raises on use: the answer depends on what zwc computed",
                i + 1,
                normal[i],
                poisoned.get(i).map_or("nothing", String::as_str)
            )),
            None,
        );
    }
    // Only constructors: what they wrapped decides.
    // The finding names the call as the graph labels it (`zwc.yitaf ‹array›`).
    let called = f.name.split_whitespace().next().unwrap_or_default();
    let wrapper = called.strip_prefix("zwc.").unwrap_or(called);
    if keep.iter().any(|k| k == wrapper) {
        let w = cf.wraps.unwrap_or_default();
        if w.calls > w.plain {
            return (
                Settled::Refuted(format!(
                    "{} of {} constructor calls wrapped an array value zwc computed",
                    w.calls - w.plain,
                    w.calls
                )),
                None,
            );
        }
        return (
            Settled::Confirmed,
            Some(format!(
                "every case returns the same with zwc's computing functions made to raise on use, and the {} constructor call(s) wrapped plain-Python values only",
                w.calls
            )),
        );
    }
    (
        Settled::Confirmed,
        Some(format!(
            "all {} case(s) return the same when zwc's computing functions return a value that raises on any use: the answer never uses what zwc computed",
            trace.cases
        )),
    )
}

/// Whether the judge's `eval` computes a printed text rather than reads it as a value.
pub fn evaluated_as_expression(text: &str) -> bool {
    let Some(cleaned) = clean_printed(text) else {
        return false;
    };
    // The cleaning writes `inf`/`nan` as calls; as values they are literals.
    let literal = cleaned
        .text
        .replace("float(\"inf\")", "1e999")
        .replace("float(\"nan\")", "0.0");
    let reads_as_value = |t: &str| evaluate(t, EvalMode::Literal).is_ok();
    // A container of NumPy scalars prints their reprs (`[np.float64(1.5)]`): that is how
    // the text of a value reads under NumPy 2, not code (a lone `np.float64(1.5)` is).
    let container = literal.starts_with(['[', '(', '{']);
    let value = reads_as_value(&literal)
        || (container && numpy_scalars_as_literals(&literal).is_some_and(|t| reads_as_value(&t)));
    !value
        && (evaluate(&cleaned.text, EvalMode::Eval).is_ok()
            || runs_code(&cleaned.text)
            || python_computes(&cleaned.text))
}

/// Python the official `eval` computes that sebx's evaluator does not model (a
/// conditional, `and`/`or`/`not`, an attribute of a literal such as `2.0j.imag`, a
/// comprehension, a lambda called): `text` parses as one expression, and every name in it
/// is one the checker's module resolves or one the expression binds itself (a lambda's
/// parameters, a comprehension's targets), so no NameError stops the judge.
fn python_computes(text: &str) -> bool {
    use rustpython_parser::{Mode, Parse, Tok, ast, lexer::lex};
    let text = text.trim_start_matches([' ', '\t']);
    if ast::Expr::parse(text, "<printed>").is_err() {
        return false;
    }
    let Ok(tokens) = lex(text, Mode::Expression).collect::<Result<Vec<_>, _>>() else {
        return false;
    };
    let tokens: Vec<Tok> = tokens.into_iter().map(|(t, _)| t).collect();
    let mut bound: Vec<&str> = Vec::new();
    let mut binding = false;
    for t in &tokens {
        match t {
            Tok::Lambda | Tok::For => binding = true,
            Tok::Colon | Tok::In => binding = false,
            Tok::Name { name } if binding => bound.push(name.as_str()),
            _ => {}
        }
    }
    tokens.iter().enumerate().all(|(i, t)| match t {
        Tok::Name { name } => {
            let attribute = i > 0 && tokens[i - 1] == Tok::Dot;
            let keyword = tokens.get(i + 1) == Some(&Tok::Equal);
            attribute || keyword || bound.contains(&name.as_str()) || resolved_name(name)
        }
        _ => true,
    })
}

/// `text` with each NumPy scalar repr (`np.float64(1.5)`, `np.int64(-2)`,
/// `np.complex128(1+2j)`, `np.str_('a')`, `np.True_`) replaced by what it holds; `None`
/// when there is none.
fn numpy_scalars_as_literals(text: &str) -> Option<String> {
    const SCALARS: &[&str] = &[
        "float",
        "int",
        "uint",
        "complex",
        "longdouble",
        "clongdouble",
        "str_",
        "bytes_",
        "bool",
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut found = false;
    while let Some(at) = rest.find("np.") {
        let word_before = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        let tail = &after[name_len..];
        if !word_before && (name == "True_" || name == "False_") {
            out.push_str(&name[..name.len() - 1]);
            rest = tail;
            found = true;
            continue;
        }
        let scalar = SCALARS.iter().any(|s| {
            name.strip_prefix(s)
                .is_some_and(|bits| bits.chars().all(|c| c.is_ascii_digit()))
        });
        if !word_before
            && scalar
            && tail.starts_with('(')
            && let Some(close) = closing_paren(tail)
        {
            out.push_str(&tail[1..close]);
            rest = &tail[close + 1..];
            found = true;
            continue;
        }
        out.push_str("np.");
        rest = after;
    }
    out.push_str(rest);
    found.then_some(out)
}

/// The index of the `)` closing the `(` that `text` starts with (quotes respected).
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn grader_eval(trace: &Trace) -> (Settled, Option<String>) {
    if trace.results.is_empty() {
        return (Settled::NotReached, None);
    }
    let strings: Vec<_> = trace.results.iter().filter(|r| text_of_code(r)).collect();
    match strings.iter().find(|r| evaluated_as_expression(&r.text)) {
        Some(r) => (
            Settled::Confirmed,
            Some(format!(
                "case {} returned the text `{}`, which the judge's `eval` computes",
                r.case.map_or(0, |c| c + 1),
                short(&r.text, 60)
            )),
        ),
        None => (
            Settled::Refuted(if strings.is_empty() {
                "no case returned text".to_string()
            } else {
                "every returned text reads as a value".to_string()
            }),
            None,
        ),
    }
}

/// Whether the printed text of `r` may be code rather than a value's own text, whole: a
/// returned `str`, a value whose text comes from the code's own `__str__`/`__repr__`, or
/// any value of a type other than the ones whose text is their value (numbers, `None`,
/// the builtin containers, zwc's and NumPy's arrays and scalars): a `Fraction` prints
/// `101/4`, a `UserString` whatever it holds. What the judge's `eval` may compute.
pub(super) fn text_of_code(r: &super::CaseResult) -> bool {
    const VALUES: &[&str] = &[
        "int",
        "float",
        "bool",
        "complex",
        "NoneType",
        "list",
        "tuple",
        "set",
        "frozenset",
        "dict",
        "ZWCArray",
        "ndarray",
        "numpy_scalar",
    ];
    (r.own_text.is_some() || r.text_array || !VALUES.contains(&r.type_name.as_str())) && !r.cut
}

/// `text` cut to `n` characters, on one line.
pub(super) fn short(text: &str, n: usize) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= n {
        one
    } else {
        one.chars().take(n).chain(['…']).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::evaluated_as_expression;

    #[test]
    fn numpy_scalars_in_a_container_read_as_values_and_code_does_not() {
        // What printing a list of NumPy 2 scalars gives: values.
        for text in [
            "[[np.float64(1.23), np.float64(2.88)], [np.float64(3.14), np.float64(4.71)]]",
            "[np.float64(1.57), np.complex128(2.35+1.68j)]",
            "(np.int64(3), np.True_, np.str_('a'))",
            "{'a': np.uint8(7), 'b': np.False_}",
            "[1.5, 2.5]",
        ] {
            assert!(!evaluated_as_expression(text), "{text} is a value");
        }
        // Code the judge computes: a lone scalar call, a scalar around an expression, a
        // NumPy function, arithmetic.
        for text in [
            "np.float64(1.5)",
            "[np.float64(2.46/2), np.float64(1.0)]",
            "[np.sum([1, 2])]",
            "(1*2)",
            "[np.float64(1.0), np.add(1, 2)]",
        ] {
            assert!(evaluated_as_expression(text), "{text} is code");
        }
    }

    /// Python the evaluator does not model is still code when every name in it resolves
    /// in the checker's module or is bound by the expression; text with a name nothing
    /// binds (NameError in the judge) or that does not parse once the checker's cleaning
    /// took its spaces out (`True and 2.0` is `Trueand2.0` there) is not.
    #[test]
    fn conditionals_attributes_of_literals_and_lambdas_are_code() {
        for text in [
            "(2.0)if(1)else(0)",
            "2.0j.imag",
            "(1).real+1.0",
            "(True)and(2.0)",
            "[(v)for(v)in((1.0, 2.0))][1]",
            "(max(1.0, 2.0))if(len([1]))else(0)",
        ] {
            assert!(evaluated_as_expression(text), "{text} is code");
        }
        for text in [
            "x.y",
            "a if b else c",
            "N/A",
            "e.g. 2.0",
            "hello world",
            "True and 2.0",
            "[(v)for(v)in((w, 2.0))]",
            "None",
        ] {
            assert!(!evaluated_as_expression(text), "{text} is not code");
        }
    }
}
