//! Carriers of an organization, and the carrier types this binary offers.

use crate::{
    carriers,
    error::{Error, Result},
    model::{
        carrier::{AvailableCarrier, Carrier, CarrierFields, CarrierPage, CarrierView},
        ids,
        usage::Limit,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, PageParams, billing, operations as ops, page_query, sender_addresses,
    },
    store::{self, Reader},
};

/// The carrier types that can be configured (SPEC row 8).
pub fn available(actor: &Actor, org_id: &str) -> Result<Vec<AvailableCarrier>> {
    actor.authorize(org_id, &ops::LIST_AVAILABLE_CARRIERS)?;
    Ok(carriers::registry()
        .iter()
        .map(|a| a.info().into())
        .collect())
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
    actor.authorize(org_id, &ops::CREATE_CARRIER)?;
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
    ctx.commit(ops::CREATE_CARRIER.status(), move |tx| {
        billing::admit(tx, &carrier.org_id, Limit::Carriers)?;
        let address = sender_addresses::require(
            tx,
            &carrier.org_id,
            &carrier.fields.sender_address_id,
            "senderAddressId",
        )?;
        store::carriers::save(tx, &carrier)?;
        Ok(CarrierView {
            carrier,
            sender_address: Some(address),
        })
    })
    .await
}

pub async fn list(ctx: &Ctx, actor: &Actor, org_id: &str, page: PageParams) -> Result<CarrierPage> {
    actor.authorize(org_id, &ops::LIST_CARRIERS)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::carriers::list(db, &org_id, page))
        .await
        .map(Into::into)
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<CarrierView> {
    actor.authorize(org_id, &ops::GET_CARRIER)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .point(|db| store::carriers::get(db, &org_id, &id)?.ok_or(Error::NotFound))
}

/// Replaces every writable field.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<CarrierFields>,
) -> Result<CarrierView> {
    actor.authorize(org_id, &ops::UPDATE_CARRIER)?;
    let fields = input.get()?;
    validate(&fields)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut carrier = store::carriers::get(tx, &org_id, &id)?
                .ok_or(Error::NotFound)?
                .carrier;
            let address = sender_addresses::require(
                tx,
                &org_id,
                &fields.sender_address_id,
                "senderAddressId",
            )?;
            carrier.fields = fields;
            carrier.updated_at = now;
            store::carriers::save(tx, &carrier)?;
            Ok(CarrierView {
                carrier,
                sender_address: Some(address),
            })
        })
        .await
}

pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    actor.authorize(org_id, &ops::DELETE_CARRIER)?;
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
pub(crate) fn require(db: &Reader, org_id: &str, id: &str, field: &str) -> Result<CarrierView> {
    store::carriers::get(db, org_id, id)?
        .ok_or_else(|| Error::invalid(field, format!("no carrier {id} in this organization")))
}
