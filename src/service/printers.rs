//! Printers of an organization and their print jobs (DESIGN §17).

use crate::{
    error::{Error, Result},
    model::{
        ids,
        printer::{PrintJobPage, Printer, PrinterFields, PrinterPage, reachable},
        validate::Violations,
    },
    service::{Actor, Ctx, Input, PageParams, operations as ops, page_query},
    store::{self, Reader},
};

/// Checks the fields, and that a literal IP address is one printers may be on (a host name is
/// checked when a job is sent, against what it resolves to then).
fn validate(ctx: &Ctx, fields: &PrinterFields) -> Result<()> {
    let mut errors = Violations::new();
    fields.validate(&mut errors);
    errors.finish()?;
    let endpoint = fields
        .endpoint()
        .map_err(|message| Error::invalid("address", message))?;
    if let Ok(ip) = endpoint.host().parse()
        && !reachable(ip, ctx.config.printers.allow_loopback)
    {
        return Err(Error::invalid(
            "address",
            "printers cannot be on loopback (unless printers.allow_loopback is set), link-local, multicast or unspecified addresses",
        ));
    }
    Ok(())
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<PrinterFields>,
) -> Result<Printer> {
    actor.authorize(org_id, &ops::CREATE_PRINTER)?;
    let fields = input.get()?;
    validate(ctx, &fields)?;
    let now = ctx.now();
    let printer = Printer {
        id: ids::new(ids::PRINTER),
        org_id: org_id.to_string(),
        fields,
        created_at: now.clone(),
        updated_at: now,
    };
    ctx.commit(ops::CREATE_PRINTER.status(), move |tx| {
        store::printers::save(tx, &printer)?;
        Ok(printer)
    })
    .await
}

pub async fn list(ctx: &Ctx, actor: &Actor, org_id: &str, page: PageParams) -> Result<PrinterPage> {
    actor.authorize(org_id, &ops::LIST_PRINTERS)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::printers::list(db, &org_id, page))
        .await
        .map(Into::into)
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Printer> {
    actor.authorize(org_id, &ops::GET_PRINTER)?;
    ctx.db
        .point(|db| store::printers::get(db, org_id, id)?.ok_or(Error::NotFound))
}

/// Replaces every writable field.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<PrinterFields>,
) -> Result<Printer> {
    actor.authorize(org_id, &ops::UPDATE_PRINTER)?;
    let fields = input.get()?;
    validate(ctx, &fields)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut printer = store::printers::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
            printer.fields = fields;
            printer.updated_at = now;
            store::printers::save(tx, &printer)?;
            Ok(printer)
        })
        .await
}

/// Deletes a printer and its jobs; refused while a shipping rule prints on it.
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    actor.authorize(org_id, &ops::DELETE_PRINTER)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .write(move |tx| {
            store::printers::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
            if let Some(rule) = store::printers::used_by_rule(tx, &org_id, &id)? {
                return Err(Error::Conflict(format!(
                    "the printer is used by the shipping rule \"{rule}\"; change the rule first"
                )));
            }
            store::printers::delete(tx, &org_id, &id)
        })
        .await
}

/// A printer's jobs, newest first.
pub async fn jobs(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    page: PageParams,
) -> Result<PrintJobPage> {
    actor.authorize(org_id, &ops::LIST_PRINT_JOBS)?;
    let page = page_query(&page)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .read(move |db| {
            store::printers::get(db, &org_id, &id)?.ok_or(Error::NotFound)?;
            store::printers::jobs(db, &org_id, &id, page)
        })
        .await
        .map(Into::into)
}

/// Checks that `id` names a printer of the organization (400 on `field` otherwise).
pub(crate) fn require(db: &Reader, org_id: &str, id: &str, field: &str) -> Result<Printer> {
    store::printers::get(db, org_id, id)?
        .ok_or_else(|| Error::invalid(field, format!("no printer {id} in this organization")))
}
