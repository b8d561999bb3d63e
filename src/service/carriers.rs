//! Carriers of an organization, and the carrier types this binary offers.

use crate::{
    carriers::{self, CarrierInfo},
    error::{Error, Result},
    model::{
        address::SenderAddress,
        carrier::{Carrier, CarrierFields},
        ids,
        scope::{Resource, Scope},
        validate::Violations,
    },
    service::{Actor, Ctx, Input, page_query, sender_addresses},
    store::{self, Paged},
};

const READ: Scope = Scope::read(Resource::Carriers);
const WRITE: Scope = Scope::write(Resource::Carriers);

/// A carrier with its sender address embedded.
pub type CarrierView = (Carrier, SenderAddress);

/// The carrier types that can be configured (SPEC row 8).
pub fn available(actor: &Actor, org_id: &str) -> Result<Vec<CarrierInfo>> {
    actor.authorize(org_id, READ)?;
    Ok(carriers::registry().iter().map(|a| a.info()).collect())
}

fn validate(fields: &CarrierFields) -> Result<()> {
    let mut errors = Violations::new();
    errors.length("name", &fields.name, 1, 200);
    errors.length("senderAddressId", &fields.sender_address_id, 1, 100);
    if fields.carrier_slug.is_empty() {
        errors.add("carrierSlug", "must not be empty");
    } else {
        match carriers::find(&fields.carrier_slug) {
            Some(adapter) => {
                carriers::validate_config(&adapter.info(), &fields.config, &mut errors)
            }
            None => {
                let known: Vec<_> = carriers::registry().iter().map(|a| a.info().slug).collect();
                errors.add(
                    "carrierSlug",
                    format!("unknown carrier type; available: {}", known.join(", ")),
                );
            }
        }
    }
    errors.finish()
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<CarrierFields>,
) -> Result<CarrierView> {
    actor.authorize(org_id, WRITE)?;
    let fields = input.get()?;
    validate(&fields)?;
    let now = ctx.now();
    let carrier = Carrier {
        id: ids::new(ids::CARRIER),
        org_id: org_id.to_string(),
        fields,
        created_at: now.clone(),
        updated_at: now,
    };
    ctx.db
        .write(move |tx| {
            let address = sender_addresses::require(
                tx,
                &carrier.org_id,
                &carrier.fields.sender_address_id,
                "senderAddressId",
            )?;
            store::carriers::save(tx, &carrier)?;
            Ok((carrier, address))
        })
        .await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: Option<i64>,
    limit: Option<i64>,
) -> Result<Paged<CarrierView>> {
    actor.authorize(org_id, READ)?;
    let page = page_query(page, limit)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |c| store::carriers::list(c, &org_id, page))
        .await
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<CarrierView> {
    actor.authorize(org_id, READ)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .read(move |c| store::carriers::get(c, &org_id, &id)?.ok_or(Error::NotFound))
        .await
}

/// Replaces every writable field.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<CarrierFields>,
) -> Result<CarrierView> {
    actor.authorize(org_id, WRITE)?;
    let fields = input.get()?;
    validate(&fields)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let (mut carrier, _) =
                store::carriers::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
            let address = sender_addresses::require(
                tx,
                &org_id,
                &fields.sender_address_id,
                "senderAddressId",
            )?;
            carrier.fields = fields;
            carrier.updated_at = now;
            store::carriers::save(tx, &carrier)?;
            Ok((carrier, address))
        })
        .await
}

pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    actor.authorize(org_id, WRITE)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .write(move |tx| {
            store::carriers::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
            if store::carriers::in_use(tx, &org_id, &id)? {
                return Err(Error::Conflict(
                    "the carrier is used by a shipping rule".into(),
                ));
            }
            store::carriers::delete(tx, &org_id, &id)
        })
        .await
}

/// Checks that `id` names a carrier of the organization (400 on `field` otherwise).
pub(crate) fn require(
    conn: &rusqlite::Connection,
    org_id: &str,
    id: &str,
    field: &str,
) -> Result<CarrierView> {
    store::carriers::get(conn, org_id, id)?
        .ok_or_else(|| Error::invalid(field, format!("no carrier {id} in this organization")))
}
