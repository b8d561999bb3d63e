//! Printers of an organization and their print jobs (DESIGN §17).

use crate::{
    error::{Error, Result},
    model::{
        ids,
        printer::{Networks, PrintJobPage, Printer, PrinterIn, PrinterPage},
        validate::Violations,
    },
    service::{Actor, Ctx, Input, PageParams, operations as ops, page_query},
    store::{self, Reader},
};

/// Where this installation's printers may be (`[printers]`).
pub(crate) fn networks(ctx: &Ctx) -> Networks {
    Networks {
        allow_loopback: ctx.config.printers.allow_loopback,
        // Each entry was checked by `Config::validate`.
        allowed: ctx
            .config
            .printers
            .allowed_networks
            .iter()
            .filter_map(|net| crate::model::net::parse(net).ok())
            .collect(),
    }
}

/// Checks the fields, and that the printer's address is one printers may be on: a literal
/// address as it is, a host name by every address it resolves to now (one that does not resolve
/// yet is checked again when a job is sent, as every address is).
async fn validate(ctx: &Ctx, fields: &PrinterIn) -> Result<()> {
    let mut errors = Violations::new();
    fields.validate(&mut errors);
    errors.finish()?;
    let endpoint = fields
        .endpoint()
        .map_err(|message| Error::invalid("address", message))?;
    let addresses = crate::outbound::dns::lookup(endpoint.host())
        .await
        .unwrap_or_default();
    let networks = networks(ctx);
    if let Some(why) = addresses.into_iter().find_map(|ip| networks.refusal(ip)) {
        return Err(Error::invalid(
            "address",
            format!("a printer cannot be at {why}"),
        ));
    }
    Ok(())
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<PrinterIn>,
) -> Result<Printer> {
    let grant = actor.authorize(org_id, &ops::CREATE_PRINTER)?;
    let fields = input.get()?;
    validate(ctx, &fields).await?;
    let now = ctx.now();
    let printer = Printer {
        id: ids::new(ids::PRINTER),
        org_id: org_id.to_string(),
        fields,
        created_at: now.clone(),
        updated_at: now,
    };
    ctx.commit(grant.on(&printer.id), move |tx| {
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
    input: Input<PrinterIn>,
) -> Result<Printer> {
    let grant = actor.authorize(org_id, &ops::UPDATE_PRINTER)?.on(id);
    let fields = input.get()?;
    validate(ctx, &fields).await?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
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
    let grant = actor.authorize(org_id, &ops::DELETE_PRINTER)?.on(id);
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.write(grant, move |tx| {
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
