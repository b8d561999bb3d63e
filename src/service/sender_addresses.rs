//! Sender addresses: create, list, get, replace, delete (409 while in use).

use crate::{
    error::{Error, Result},
    model::{
        ids,
        sender_address::{SenderAddress, SenderAddressIn, SenderAddressPage},
        usage::Limit,
        validate::Violations,
    },
    service::{Actor, Ctx, Input, PageParams, billing, operations as ops, page_query},
    store::{self, Reader},
};

fn validate(fields: &SenderAddressIn) -> Result<()> {
    let mut errors = Violations::new();
    fields.validate(&mut errors);
    errors.finish()
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<SenderAddressIn>,
) -> Result<SenderAddress> {
    let grant = actor.authorize(org_id, &ops::CREATE_SENDER_ADDRESS)?;
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
    ctx.commit(grant.on(&address.id), move |tx| {
        billing::admit(tx, &address.org_id, Limit::SenderAddresses)?;
        store::sender_addresses::save(tx, &address)?;
        Ok(address)
    })
    .await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: PageParams,
) -> Result<SenderAddressPage> {
    actor.authorize(org_id, &ops::LIST_SENDER_ADDRESSES)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::sender_addresses::list(db, &org_id, page))
        .await
        .map(Into::into)
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<SenderAddress> {
    actor.authorize(org_id, &ops::GET_SENDER_ADDRESS)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .point(|db| store::sender_addresses::get(db, &org_id, &id)?.ok_or(Error::NotFound))
}

/// Replaces every writable field.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<SenderAddressIn>,
) -> Result<SenderAddress> {
    let grant = actor.authorize(org_id, &ops::UPDATE_SENDER_ADDRESS)?.on(id);
    let fields = input.get()?;
    validate(&fields)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        let mut address = store::sender_addresses::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
        address.fields = fields;
        address.updated_at = now;
        store::sender_addresses::save(tx, &address)?;
        Ok(address)
    })
    .await
}

pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    let grant = actor.authorize(org_id, &ops::DELETE_SENDER_ADDRESS)?.on(id);
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.write(grant, move |tx| {
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
/// The sender address `id` (given in `field`) of the organization; when there is none, says so
/// in `errors`. An empty id is left to the body's own checks.
pub(crate) fn found(
    db: &Reader,
    org_id: &str,
    id: &str,
    field: &str,
    errors: &mut Violations,
) -> Result<Option<SenderAddress>> {
    if id.is_empty() {
        return Ok(None);
    }
    let address = store::sender_addresses::get(db, org_id, id)?;
    if address.is_none() {
        errors.add(
            field,
            format!("no sender address {id} in this organization"),
        );
    }
    Ok(address)
}

pub(crate) fn require(db: &Reader, org_id: &str, id: &str, field: &str) -> Result<SenderAddress> {
    store::sender_addresses::get(db, org_id, id)?.ok_or_else(|| {
        Error::invalid(
            field,
            format!("no sender address {id} in this organization"),
        )
    })
}
