//! A printer's test print: a one-page test page in the printer's format, made now and queued
//! as a job that carries it, sent by the worker like any other job (after the jobs queued before
//! it, with the same retries and busy waits).

use crate::{
    carriers::label::{self, test_page::TestPage},
    error::{Error, Result},
    model::printer::{self, PrintJob},
    service::{Actor, Ctx, operations as ops},
    store,
};

pub async fn print_test_page(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    printer_id: &str,
) -> Result<PrintJob> {
    let grant = actor
        .authorize(org_id, &ops::PRINT_TEST_PAGE)?
        .on(printer_id);
    let (printer, organization) = ctx.db.point(|db| {
        let printer = store::printers::get(db, org_id, printer_id)?.ok_or(Error::NotFound)?;
        let org = store::orgs::get(db, org_id)?.ok_or(Error::NotFound)?;
        Ok((printer, org.name))
    })?;
    let now = ctx.now();
    let page = TestPage {
        printer_name: printer.fields.name.clone(),
        printer_kind: printer.fields.kind.clone(),
        address: printer.fields.address.clone(),
        format: printer.fields.format.clone(),
        organization,
        queued_at: now.clone(),
    };
    let format = printer.fields.format.clone();
    let (content, title) = crate::blocking::run(move || {
        let content = if format == crate::model::document::ZPL {
            label::zpl::test_page(&page).into_bytes()
        } else {
            label::test_page::pdf(&page)?
        };
        Ok((content, page.title()))
    })
    .await?;
    let (org_id, printer_id) = (org_id.to_string(), printer_id.to_string());
    let job = ctx
        .commit(grant, move |tx| {
            let current = store::printers::get(tx, &org_id, &printer_id)?.ok_or(Error::NotFound)?;
            if current.fields.format != printer.fields.format {
                return Err(Error::Conflict(format!(
                    "printer {} was changed to take {} meanwhile; ask for the test page again",
                    current.fields.name, current.fields.format
                )));
            }
            let job = super::new_job(&printer_id, printer::JOB_TEST_PAGE, &now);
            let carried = store::printers::Carried {
                content: &content,
                title: &title,
                format: &current.fields.format,
            };
            store::printers::queue(tx, &org_id, &job, 0, Some(carried))?;
            Ok(job)
        })
        .await?;
    ctx.printing.queued();
    Ok(job)
}
