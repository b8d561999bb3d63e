//! Sender addresses: create, list, get, replace, delete (409 while in use).

use crate::{
    error::{Error, Result},
    model::{
        address::{AddressFields, SenderAddress},
        ids,
        scope::{Resource, Scope},
        validate::Violations,
    },
    service::{Actor, Ctx, Input, page_query},
    store::{self, Paged},
};

const READ: Scope = Scope::read(Resource::SenderAddresses);
const WRITE: Scope = Scope::write(Resource::SenderAddresses);

fn validate(fields: &AddressFields) -> Result<()> {
    let mut errors = Violations::new();
    fields.validate(&mut errors);
    errors.finish()
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<AddressFields>,
) -> Result<SenderAddress> {
    actor.authorize(org_id, WRITE)?;
    let fields = input.get()?;
    validate(&fields)?;
    let now = ctx.now();
    let address = SenderAddress {
        id: ids::new(ids::SENDER_ADDRESS),
        org_id: org_id.to_string(),
        fields,
        created_at: now.clone(),
        updated_at: now,
    };
    ctx.db
        .write(move |tx| {
            store::sender_addresses::save(tx, &address)?;
            Ok(address)
        })
        .await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: Option<i64>,
    limit: Option<i64>,
) -> Result<Paged<SenderAddress>> {
    actor.authorize(org_id, READ)?;
    let page = page_query(page, limit)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |c| store::sender_addresses::list(c, &org_id, page))
        .await
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<SenderAddress> {
    actor.authorize(org_id, READ)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .read(move |c| store::sender_addresses::get(c, &org_id, &id)?.ok_or(Error::NotFound))
        .await
}

/// Replaces every writable field.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<AddressFields>,
) -> Result<SenderAddress> {
    actor.authorize(org_id, WRITE)?;
    let fields = input.get()?;
    validate(&fields)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut address =
                store::sender_addresses::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
            address.fields = fields;
            address.updated_at = now;
            store::sender_addresses::save(tx, &address)?;
            Ok(address)
        })
        .await
}

pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    actor.authorize(org_id, WRITE)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .write(move |tx| {
            store::sender_addresses::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
            if let Some(user) = store::sender_addresses::in_use(tx, &org_id, &id)? {
                return Err(Error::Conflict(format!(
                    "the sender address is used by {user}"
                )));
            }
            store::sender_addresses::delete(tx, &org_id, &id)
        })
        .await
}

/// Checks that `id` names a sender address of the organization (400 on `field` otherwise).
pub(crate) fn require(
    conn: &rusqlite::Connection,
    org_id: &str,
    id: &str,
    field: &str,
) -> Result<SenderAddress> {
    store::sender_addresses::get(conn, org_id, id)?.ok_or_else(|| {
        Error::invalid(
            field,
            format!("no sender address {id} in this organization"),
        )
    })
}
