//! The report's examples drawn by the explorer: `sebx report` (a CLI command, which never
//! names the TUI) is handed [`ExportDrawer`] by `main`, and each example is the Code pane as
//! `sebx export` draws it. Kept apart from `export` so that `export` need not know the
//! explorer's start-up (`explore`). The drawer is given the report's own session: the API
//! map and dataset it read, the inputs it classified; it reads only the picked lines again.

use std::path::PathBuf;

use anyhow::{Context as _, Result};

use crate::session::examples::{DrawnExample, ExampleDrawer, ExampleRequest};

/// Draws a report's examples with the explorer's own Code pane, as `sebx export` draws a
/// view: the picks' lines are loaded (not the rest of their files; stored verdicts only,
/// from the score cache the report's grading filled), each pick found by its line and id,
/// drawn in the light theme, with the report session's API map and dataset.
#[derive(Debug, Clone, Default)]
pub struct ExportDrawer {
    /// The config file the explorer's look is read from (default: the user's).
    pub config: Option<PathBuf>,
}

impl ExampleDrawer for ExportDrawer {
    fn draw(&self, request: &ExampleRequest<'_>) -> Result<Vec<Option<DrawnExample>>> {
        #[derive(clap::Parser)]
        struct Args {
            #[command(flatten)]
            explore: super::explore::ExploreArgs,
        }
        let mut args = <Args as clap::Parser>::try_parse_from(["sebx", "--no-follow"])
            .context("the explorer's options")?
            .explore;
        args.config.clone_from(&self.config);
        args.theme = Some("light".to_string());
        let session = super::explore::prepare_given(
            &args,
            request.session,
            &request.inputs,
            super::Grading::Unavailable(crate::grade::backend::Unavailable::StoredOnly(
                "report examples show stored verdicts".to_string(),
            )),
        )?;
        let mut app = session.app;
        // Only the picked lines become rows: not the rest of their files.
        let mut only = super::load::LineFilter::new();
        for pick in &request.picks {
            only.entry((pick.source.clone(), pick.step))
                .or_default()
                .insert(pick.line);
        }
        super::inline::load_inline_lines(&mut app, &session.sources, &only);
        super::inline::settle_verdicts(&mut app);
        let mut out = Vec::with_capacity(request.picks.len());
        for pick in &request.picks {
            // The id without its duplicate number (`~2`: counted over the whole file, whose
            // other lines were not read).
            let base = |id: &crate::model::RolloutId| id.0.split('~').next().map(str::to_string);
            let row = app.corpus.entries.iter().position(|e| {
                e.rollout.line == pick.line
                    && e.rollout.sample.as_ref().map(|s| s.step) == pick.step
                    && base(&e.rollout.id) == base(&pick.id)
            });
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
