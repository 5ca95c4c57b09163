//! Export for slides and papers: a rollout view drawn with the explorer's own widgets into
//! an off-screen buffer, then written as SVG (text stays text, monospace, colours), a
//! self-contained HTML page, Markdown (task, code block, verdict, failed cases) or the
//! plain screen; and a whole playlist, every presenter stage, as one HTML page. Views are
//! drawn from a copy of what they read ([`ViewCopy`]); the explorer's `X` hands that copy to
//! a job ([`request_view`]), so drawing and writing stay off the UI thread.

use crate::model::html::escape;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, Result, bail};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::model::playlist::Playlist;

use super::app::{App, Pane};
use super::entry::Shown;
use super::jobs::{JobRequest, PageMaker};
use super::present::{self, Presenter, Stage};
use super::theme::Theme;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Svg,
    Html,
    Md,
    Txt,
}

/// Options of `sebx export` besides the files (the explorer's options come with them).
#[derive(Debug, Clone, clap::Args)]
pub struct ExportArgs {
    /// 1-based line of the rollout in the (first) file.
    #[arg(long, required_unless_present = "playlist")]
    pub line: Option<usize>,
    /// svg, html, md or txt.
    #[arg(long, value_enum)]
    pub format: Format,
    /// The pane to draw (default: the Code pane).
    #[arg(long, value_enum, default_value = "code")]
    pub pane: Pane,
    /// Width in terminal columns.
    #[arg(long, default_value_t = 100)]
    pub width: u16,
    /// Write here instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Export every stage of every rollout of this playlist as one page (html only).
    #[arg(long, value_name = "FILE")]
    pub playlist: Option<PathBuf>,
}

/// Draws the view of `row` in `pane`: a header line (file:line, verdict, task) and the pane
/// with its tabs, exactly as the explorer draws it, as tall as its content.
/// The row's analysis and highlighting should be in the app already (see [`export_row`]).
/// Draws from a copy ([`ViewCopy`]): `app` is left as it was.
pub fn render_view(app: &App, row: usize, pane: Pane, width: u16) -> Buffer {
    ViewCopy::of(app, row, pane).render(width)
}

/// What drawing one rollout's view reads, copied out of the explorer ([`App::detached`]:
/// the rows are shared, not copied), so the export job draws it on a worker while the
/// explorer goes on.
pub struct ViewCopy {
    app: App,
    row: usize,
}

impl ViewCopy {
    /// A copy of `row`'s view in `pane`, scrolled to its top.
    pub fn of(app: &App, row: usize, pane: Pane) -> ViewCopy {
        ViewCopy {
            app: app.detached(row, pane),
            row,
        }
    }

    /// The view drawn `width` columns wide (wider when a graph drawing needs it).
    pub fn render(&self, width: u16) -> Buffer {
        let (app, row) = (&self.app, self.row);
        let Some(entry) = app.corpus.entries.get(row).cloned() else {
            return Buffer::empty(Rect::new(0, 0, width, 1));
        };
        // The drawing of a wide graph is not cut: the view widens to it.
        let content = super::panes::render(&app.detail, &app.draw_cx(), &entry, width);
        let natural = content
            .lines
            .iter()
            .map(|l| l.width() as u16)
            .max()
            .unwrap_or(0);
        let width = if content.wrap {
            width
        } else {
            width.max(natural)
        };
        let body_h = if content.wrap {
            // Measure the wrapped height by drawing into a tall scratch buffer.
            let mut scratch = Buffer::empty(Rect::new(0, 0, width.max(1), 4000));
            Paragraph::new(content.lines.clone())
                .wrap(Wrap { trim: false })
                .render(scratch.area, &mut scratch);
            (0..scratch.area.height)
                .rev()
                .find(|y| (0..width).any(|x| scratch[(x, *y)].symbol() != " "))
                .map_or(1, |y| y + 1)
        } else {
            content.lines.len() as u16
        };
        // The header, a blank line, the content: no tabs, frame or key hints (a page is
        // read, not driven).
        let height = body_h + 2;
        let mut terminal = match Terminal::new(TestBackend::new(width, height)) {
            Ok(t) => t,
            Err(_) => return Buffer::empty(Rect::new(0, 0, width, height)),
        };
        let shown = app.corpus.shown(row);
        let header = header_line(app, row, shown, usize::from(width));
        let _ = terminal.draw(|frame| {
            let area = frame.area();
            frame.render_widget(
                ratatui::widgets::Block::default().style(app.theme.base),
                area,
            );
            frame.render_widget(Paragraph::new(header), Rect { height: 1, ..area });
            let body = Rect {
                y: 2,
                height: area.height.saturating_sub(2),
                ..area
            };
            let mut p = Paragraph::new(content.lines);
            if content.wrap {
                p = p.wrap(Wrap { trim: false });
            }
            frame.render_widget(p, body);
        });
        terminal.backend().buffer().clone()
    }

    /// The view as a self-contained HTML page.
    pub fn html(&self, width: u16, title: &str) -> String {
        to_html(&self.render(width), &self.app.theme, title)
    }
}

/// `file:line`, the verdict, the pane and the task, fitted to `width` (the task is cut with
/// an ellipsis, never the rest).
fn header_line(app: &App, row: usize, shown: Shown, width: usize) -> Line<'static> {
    let t = &app.theme;
    let Some(e) = app.corpus.entries.get(row) else {
        return Line::raw("");
    };
    let task = app
        .corpus
        .tasks
        .get(e.task)
        .map_or("", |t| t.short.as_str());
    let place = format!("{}:{} ", file_name(&e.rollout.source), e.rollout.line);
    let verdict = format!(" {} {} ", shown.symbol(), shown.label());
    let pane = format!(" {} ·", app.detail.pane.title());
    let used = place.chars().count() + verdict.chars().count() + pane.chars().count() + 1;
    let room = width.saturating_sub(used);
    let task = if task.chars().count() > room {
        super::layout::fit(task, room)
    } else {
        task.to_string()
    };
    Line::from(vec![
        Span::styled(place, t.title),
        Span::styled(verdict, t.shown(shown)),
        Span::styled(pane, t.dim),
        Span::styled(format!(" {task}"), t.dim),
    ])
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// The buffer as plain text, trailing spaces trimmed.
pub fn to_txt(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// A colour as CSS hex (`None`: the theme's default).
pub fn css_color(c: Color) -> Option<String> {
    let hex = |r: u8, g: u8, b: u8| Some(format!("#{r:02x}{g:02x}{b:02x}"));
    match c {
        Color::Reset => None,
        Color::Rgb(r, g, b) => hex(r, g, b),
        Color::Black => hex(0, 0, 0),
        Color::Red => hex(0xcd, 0x31, 0x31),
        Color::Green => hex(0x0d, 0xbc, 0x79),
        Color::Yellow => hex(0xe5, 0xe5, 0x10),
        Color::Blue => hex(0x24, 0x72, 0xc8),
        Color::Magenta => hex(0xbc, 0x3f, 0xbc),
        Color::Cyan => hex(0x11, 0xa8, 0xcd),
        Color::Gray => hex(0xe5, 0xe5, 0xe5),
        Color::DarkGray => hex(0x66, 0x66, 0x66),
        Color::LightRed => hex(0xf1, 0x4c, 0x4c),
        Color::LightGreen => hex(0x23, 0xd1, 0x8b),
        Color::LightYellow => hex(0xf5, 0xf5, 0x43),
        Color::LightBlue => hex(0x3b, 0x8e, 0xea),
        Color::LightMagenta => hex(0xd6, 0x70, 0xd6),
        Color::LightCyan => hex(0x29, 0xb8, 0xdb),
        Color::White => hex(0xff, 0xff, 0xff),
        Color::Indexed(n) => {
            // The 6×6×6 cube and the grey ramp of the 256-colour palette.
            if (16..232).contains(&n) {
                let k = n - 16;
                let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
                hex(level(k / 36), level((k / 6) % 6), level(k % 6))
            } else if n >= 232 {
                let g = 8 + (n - 232) * 10;
                hex(g, g, g)
            } else {
                hex(0x80, 0x80, 0x80)
            }
        }
    }
}

/// A run of cells with one style: (first column, text, style).
fn runs(buf: &Buffer, y: u16) -> Vec<(u16, String, Style)> {
    let mut out: Vec<(u16, String, Style)> = Vec::new();
    for x in 0..buf.area.width {
        let cell = &buf[(x, y)];
        let style = cell.style();
        match out.last_mut() {
            Some((_, text, s)) if *s == style => text.push_str(cell.symbol()),
            _ => out.push((x, cell.symbol().to_string(), style)),
        }
    }
    out
}

/// Foreground, background (after `reversed`), with the theme's base for defaults.
fn colours(style: Style, base: Style) -> (String, String) {
    let default_fg = base
        .fg
        .and_then(css_color)
        .unwrap_or_else(|| "#d0d0d0".into());
    let default_bg = base
        .bg
        .and_then(css_color)
        .unwrap_or_else(|| "#1b1f27".into());
    let fg = style.fg.and_then(css_color).unwrap_or(default_fg);
    let bg = style.bg.and_then(css_color).unwrap_or(default_bg);
    if style.add_modifier.contains(Modifier::REVERSED) {
        (bg, fg)
    } else {
        (fg, bg)
    }
}

const FONT_SIZE: f32 = 14.0;
/// DejaVu Sans Mono's advance width, ascent and descent, in ems. Box-drawing characters
/// fill the line box (ascent + descent), so rows one line box apart join their vertical
/// lines; a taller pitch leaves gaps and the graph looks dashed.
const ADVANCE_EM: f32 = 0.602;
const ASCENT_EM: f32 = 0.928;
const DESCENT_EM: f32 = 0.236;
const CELL_W: f32 = FONT_SIZE * ADVANCE_EM;
/// The row pitch: exactly the font's line box.
pub const CELL_H: f32 = FONT_SIZE * (ASCENT_EM + DESCENT_EM);

/// The buffer as SVG: one `<text>` per row, a `<tspan>` per style run at its column, so
/// text stays selectable; backgrounds as rectangles.
pub fn to_svg(buf: &Buffer, theme: &Theme, title: &str) -> String {
    let (fg0, bg0) = colours(Style::default(), theme.base);
    let w = f32::from(buf.area.width) * CELL_W;
    let h = f32::from(buf.area.height) * CELL_H;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.1} {h:.1}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT_SIZE}">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="{bg0}"/>"#);
    for y in 0..buf.area.height {
        let top = f32::from(y) * CELL_H;
        let row = runs(buf, y);
        for (x, text, style) in &row {
            let (_, bg) = colours(*style, theme.base);
            if bg != bg0 {
                let _ = writeln!(
                    out,
                    r#"<rect x="{:.1}" y="{top:.1}" width="{:.1}" height="{CELL_H}" fill="{bg}"/>"#,
                    f32::from(*x) * CELL_W,
                    text.chars().count() as f32 * CELL_W
                );
            }
        }
        // Trailing blank runs are dropped; blank runs between words stay, so a row's
        // text reads (and copies) as it does on screen.
        let last = row
            .iter()
            .rposition(|(_, t, _)| !t.trim().is_empty())
            .map_or(0, |k| k + 1);
        if last == 0 {
            continue;
        }
        let _ = write!(
            out,
            r#"<text y="{:.1}" xml:space="preserve" fill="{fg0}">"#,
            top + FONT_SIZE * ASCENT_EM
        );
        for (x, text, style) in &row[..last] {
            let (fg, _) = colours(*style, theme.base);
            let mut attrs = format!(r#" x="{:.1}" fill="{fg}""#, f32::from(*x) * CELL_W);
            if style.add_modifier.contains(Modifier::BOLD) {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if style.add_modifier.contains(Modifier::ITALIC) {
                attrs.push_str(r#" font-style="italic""#);
            }
            if style.add_modifier.contains(Modifier::UNDERLINED) {
                attrs.push_str(r#" text-decoration="underline""#);
            }
            let _ = write!(out, "<tspan{attrs}>{}</tspan>", escape(text));
        }
        out.push_str("</text>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// The buffer as `<pre>` HTML with inline styles (part of a page).
pub fn pre_html(buf: &Buffer, theme: &Theme) -> String {
    let (fg0, bg0) = colours(Style::default(), theme.base);
    let mut out = format!(r#"<pre style="color:{fg0};background:{bg0}">"#);
    for y in 0..buf.area.height {
        let row = runs(buf, y);
        let last = row
            .iter()
            .rposition(|(_, t, s)| !t.trim().is_empty() || s.bg.is_some_and(|b| b != Color::Reset))
            .map_or(0, |k| k + 1);
        for (_, text, style) in &row[..last] {
            let (fg, bg) = colours(*style, theme.base);
            let mut css = String::new();
            if fg != fg0 {
                let _ = write!(css, "color:{fg};");
            }
            if bg != bg0 {
                let _ = write!(css, "background:{bg};");
            }
            if style.add_modifier.contains(Modifier::BOLD) {
                css.push_str("font-weight:bold;");
            }
            if style.add_modifier.contains(Modifier::ITALIC) {
                css.push_str("font-style:italic;");
            }
            if style.add_modifier.contains(Modifier::UNDERLINED) {
                css.push_str("text-decoration:underline;");
            }
            if css.is_empty() {
                out.push_str(&escape(text));
            } else {
                let _ = write!(out, r#"<span style="{css}">{}</span>"#, escape(text));
            }
        }
        out.push('\n');
    }
    out.push_str("</pre>");
    out
}

/// A self-contained page around `body` (well-formed, so XML tools read it too).
fn page(title: &str, theme: &Theme, body: &str) -> String {
    let (fg0, bg0) = colours(Style::default(), theme.base);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>{}</title>\n<style>\nbody {{ background: {bg0}; color: {fg0}; margin: 2em; font-family: sans-serif; }}\npre {{ font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 14px; line-height: 1.164; padding: 0.8em; overflow-x: auto; }}\nh1, h2 {{ font-weight: normal; }}\n</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
        escape(title)
    )
}

/// The buffer as a self-contained HTML page.
pub fn to_html(buf: &Buffer, theme: &Theme, title: &str) -> String {
    page(title, theme, &pre_html(buf, theme))
}

/// Markdown of a rollout for notes and papers: task, code block, verdict, failed cases,
/// findings.
pub fn to_markdown(app: &App, row: usize) -> String {
    let mut out = String::new();
    let Some(e) = app.corpus.entries.get(row) else {
        return out;
    };
    let r = &e.rollout;
    let _ = writeln!(out, "## {}:{}\n", file_name(&r.source), r.line);
    let _ = writeln!(out, "**Task.** {}\n", r.query.trim());
    if let Some(item) = app.corpus.dataset_item(e)
        && !item.function_name.is_empty()
    {
        let _ = writeln!(out, "Signature: `{}`\n", item.function_name.trim());
    }
    let code = e.code();
    if code.trim().is_empty() {
        out.push_str("No ```python block was extracted; the response:\n\n");
        for l in r.response.lines() {
            let _ = writeln!(out, "> {l}");
        }
        out.push('\n');
    } else {
        let _ = writeln!(out, "```python\n{}\n```\n", code.trim_end());
    }
    let shown = app.corpus.shown(row);
    let _ = write!(out, "**Verdict:** `{}`", shown.label());
    let report = app.report_of_row(row);
    let report = report.as_deref();
    if let Some(rep) = report {
        let _ = write!(out, " — {}", rep.decided_by);
    }
    out.push_str("\n\n");
    if let Some(rep) = report
        && rep.execution.is_some()
    {
        let failed: Vec<_> = rep.cases.iter().filter(|c| !c.matched).collect();
        if !failed.is_empty() {
            out.push_str(
                "**Failed cases**\n\n| # | input | expected | actual |\n|---|---|---|---|\n",
            );
            for c in failed {
                let cell = |s: &str| {
                    s.split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .replace('|', "\\|")
                };
                let _ = writeln!(
                    out,
                    "| {} | `{}` | `{}` | {} |",
                    c.index + 1,
                    cell(&c.input),
                    cell(&c.expected),
                    c.actual
                        .as_deref()
                        .map_or("(nothing printed)".to_string(), |a| format!(
                            "`{}`",
                            cell(a)
                        ))
                );
            }
            out.push('\n');
        }
        if let Some(last) = rep
            .execution
            .as_ref()
            .and_then(|x| x.stderr.lines().rev().find(|l| !l.trim().is_empty()))
        {
            let _ = writeln!(out, "Error: `{}`\n", last.trim());
        }
    }
    if let Some(a) = app.detail.held.analyses.peek(&row)
        && !a.code.findings.is_empty()
    {
        out.push_str("**Findings**\n\n");
        for f in &a.code.findings {
            if f.line == 0 {
                let _ = write!(out, "- {}", f.message);
            } else {
                let _ = write!(out, "- line {}: `{}` — {}", f.line, f.name, f.message);
            }
            if let Some(s) = &f.suggestion {
                let _ = write!(out, " (use `{s}`)");
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// One rollout of a loaded app in `format`.
pub fn export_row(app: &mut App, row: usize, format: Format, pane: Pane, width: u16) -> String {
    app.jump_to(row);
    // The analysis and highlighting of the row, here and now (no grading: stored verdicts).
    super::inline::drain_inline(app, None);
    let buf = render_view(app, row, pane, width);
    let title = app
        .corpus
        .entries
        .get(row)
        .map(|e| format!("sebx · {}:{}", file_name(&e.rollout.source), e.rollout.line))
        .unwrap_or_default();
    match format {
        Format::Txt => to_txt(&buf),
        Format::Svg => to_svg(&buf, &app.theme, &title),
        Format::Html => to_html(&buf, &app.theme, &title),
        Format::Md => to_markdown(app, row),
    }
}

/// Every stage of every slide, drawn by the presenter, on one page.
pub fn playlist_html(p: &mut Presenter, width: u16, title: &str) -> String {
    let mut body = format!("<h1>{}</h1>\n", escape(title));
    let (index, stage) = (p.index, p.stage);
    for k in 0..p.slides.len() {
        p.index = k;
        let caption = &p.slides[k].caption;
        let _ = writeln!(
            body,
            "<h2>{} {}</h2>",
            p.position(),
            escape(if caption.is_empty() { "" } else { caption })
        );
        for s in Stage::ALL {
            p.stage = s;
            let inner = width.saturating_sub(4).min(140);
            let lines = p.stage_lines(&p.slides[k], s, inner).len() as u16;
            let mut buf = Buffer::empty(Rect::new(0, 0, width, lines + 2));
            present::render(p, buf.area, &mut buf);
            body.push_str(&pre_html(&buf, &p.theme));
            body.push('\n');
        }
    }
    p.index = index;
    p.stage = stage;
    page(title, &p.theme, &body)
}

/// Finds the row of `file`'s `line` among the loaded rollouts.
pub fn row_of(app: &App, file: &Path, line: usize) -> Option<usize> {
    let canon = file.canonicalize().ok();
    app.corpus.entries.iter().position(|e| {
        e.rollout.line == line
            && (*e.rollout.source == *file
                || canon.is_some() && e.rollout.source.canonicalize().ok() == canon)
    })
}

/// `sebx export`: loads the files into `app` and writes one rollout, or a playlist's page.
pub fn run(
    mut app: App,
    sources: Vec<super::load::Source>,
    first_file: Option<PathBuf>,
    playlist: Option<Playlist>,
    args: &ExportArgs,
) -> Result<ExitCode> {
    let text = if let Some(pl) = &playlist {
        if args.format != Format::Html {
            bail!("--playlist exports one HTML page: use --format html");
        }
        let (mut p, issues) = present::prepare(app, &sources, Some(pl));
        for i in &issues {
            crate::warnln!("sebx: {i}");
        }
        if p.slides.is_empty() {
            bail!(
                "no rollout of the playlist {} was found",
                pl.source.display()
            );
        }
        let title = format!("sebx · {}", file_name(&pl.source));
        playlist_html(&mut p, args.width, &title)
    } else {
        super::inline::load_inline(&mut app, &sources);
        // The verdicts the session remembers (reruns, the score cache), as the explorer shows.
        super::inline::settle_verdicts(&mut app);
        // No file named: the first rollout file loaded (the demo's, with no paths).
        let file = first_file.or_else(|| {
            sources
                .iter()
                .find(|s| s.kind == super::load::FileKind::Rollouts)
                .map(|s| s.data.path().to_path_buf())
        });
        let Some(file) = file else {
            bail!("name the rollout file: sebx export FILE --line N --format FORMAT");
        };
        let line = args.line.unwrap_or(1);
        let Some(row) = row_of(&app, &file, line) else {
            let why = app
                .corpus
                .issues
                .iter()
                .find(|i| i.line == line)
                .map(|i| format!(": {}", i.reason))
                .unwrap_or_default();
            bail!("{}:{line}: no rollout on that line{why}", file.display());
        };
        export_row(&mut app, row, args.format, args.pane, args.width)
    };
    match &args.output {
        Some(path) => {
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            crate::warnln!("wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the explorer's `X` writes the current view: the current folder.
pub fn view_file_name(app: &App, row: usize) -> PathBuf {
    let (stem, line) = app
        .corpus
        .entries
        .get(row)
        .map_or(("rollout".to_string(), 0), |e| {
            let name = file_name(&e.rollout.source);
            (
                name.strip_suffix(".jsonl").unwrap_or(&name).to_string(),
                e.rollout.line,
            )
        });
    PathBuf::from(format!(
        "sebx-{stem}-{line}-{}.html",
        app.detail.pane.title().to_lowercase()
    ))
}

/// `X`, when a part asked for it ([`App::take_export`]): queues the export job, which draws
/// a copy of the selected rollout's current view as an HTML page and writes it to the
/// current folder; the explorer is not held up, and says where when the job is done.
/// Returns whether to redraw.
pub fn request_view(app: &mut App) -> bool {
    if !app.take_export() {
        return false;
    }
    let Some(row) = app.list.selected else {
        return true;
    };
    let path = view_file_name(app, row);
    let width = app.size.0.max(60);
    let title = format!("sebx · {}", path.display());
    let mut view = ViewCopy::of(app, row, app.detail.pane);
    // A page for paper: light, whatever the screen's theme.
    if let Some(light) = Theme::builtin("light") {
        view.app.theme = light;
    }
    let copy = Mutex::new(view);
    let shown = std::env::current_dir()
        .map(|d| d.join(&path))
        .unwrap_or_else(|_| path.clone());
    let page = PageMaker(Arc::new(move || {
        copy.lock()
            .map(|c| c.html(width, &title))
            .unwrap_or_default()
    }));
    app.queue(JobRequest::Export { path, shown, page });
    true
}
