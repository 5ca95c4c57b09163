//! The report's examples drawn by the explorer: `sebx report` (a CLI command, which never
//! names the TUI) is handed [`ExportDrawer`] by `main`, and each example is the Code pane as
//! `sebx export` draws it. Kept apart from `export` so that `export` need not know the
//! explorer's start-up (`explore`).

use anyhow::{Context as _, Result};

use crate::session::examples::{DrawnExample, ExampleDrawer, ExampleRequest};

/// Draws a report's examples with the explorer's own Code pane, as `sebx export` draws a
/// view: the picks' files are loaded (stored verdicts only, from the score cache the
/// report's grading filled), each pick found by its line and id, drawn in the light theme.
pub struct ExportDrawer;

impl ExampleDrawer for ExportDrawer {
    fn draw(&self, request: &ExampleRequest) -> Result<Vec<Option<DrawnExample>>> {
        #[derive(clap::Parser)]
        struct Args {
            #[command(flatten)]
            explore: super::explore::ExploreArgs,
        }
        let mut args = <Args as clap::Parser>::try_parse_from(["sebx", "--no-follow"])
            .context("the explorer's options")?
            .explore;
        args.paths = request.paths.clone();
        args.context = request.context.clone();
        args.cache = request.cache.clone();
        args.sidecars = request.sidecars.clone();
        args.theme = Some("light".to_string());
        let session = super::explore::prepare(
            &args,
            super::Grading::Unavailable(crate::grade::backend::Unavailable::StoredOnly(
                "report examples show stored verdicts".to_string(),
            )),
        )?;
        let mut app = session.app;
        super::inline::load_inline(&mut app, &session.sources);
        super::inline::settle_verdicts(&mut app);
        let mut out = Vec::with_capacity(request.picks.len());
        for pick in &request.picks {
            let row = app
                .corpus
                .entries
                .iter()
                .position(|e| e.rollout.line == pick.line && e.rollout.id == pick.id);
            let Some(row) = row else {
                out.push(None);
                continue;
            };
            app.jump_to(row);
            super::inline::drain_inline(&mut app, None);
            let buf = super::export::render_view(&app, row, super::app::Pane::Code, request.width);
            let title = format!("sebx · {} line {}", pick.run, pick.line);
            out.push(Some(DrawnExample {
                html: super::export::pre_html(&buf, &app.theme),
                svg: super::export::to_svg(&buf, &app.theme, &title),
            }));
        }
        Ok(out)
    }
}
