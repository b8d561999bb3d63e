//! Carriers of an organization, and the carrier types this binary offers.

use crate::{
    carriers,
    error::{Error, Result},
    model::{
        carrier::{AvailableCarrier, Carrier, CarrierIn, CarrierPage, CarrierRecord},
        ids,
        usage::Limit,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, PageParams, billing, input::whole, operations as ops, page_query,
        sender_addresses,
    },
    store::{self, Reader},
    vault::Vault,
};

/// The carrier types that can be configured (SPEC row 8).
pub fn available(actor: &Actor, org_id: &str) -> Result<Vec<AvailableCarrier>> {
    actor.authorize(org_id, &ops::LIST_AVAILABLE_CARRIERS)?;
    Ok(carriers::registry()
        .iter()
        .map(|a| a.info().into())
        .collect())
}

/// The body with its select options spelled as the carrier type lists them.
fn canonical(mut fields: CarrierIn) -> CarrierIn {
    if let Some(adapter) = carriers::find(&fields.carrier_slug) {
        carriers::canonical_options(&adapter.info(), &mut fields.config);
    }
    fields
}

/// The body with every problem of it at once, its sender address included.
async fn checked(ctx: &Ctx, org_id: &str, input: Input<CarrierIn>) -> Result<CarrierIn> {
    let org = org_id.to_string();
    whole::checked(
        ctx,
        input.map(canonical),
        check,
        move |db, fields, errors| {
            sender_addresses::found(
                db,
                &org,
                &fields.sender_address_id,
                "senderAddressId",
                errors,
            )
            .map(drop)
        },
    )
    .await
}

fn check(fields: &CarrierIn, errors: &mut Violations) {
    errors.length("name", &fields.name, 1, 200);
    errors.length("senderAddressId", &fields.sender_address_id, 1, 100);
    if fields.carrier_slug.is_empty() {
        errors.add("carrierSlug", "must not be empty");
    } else {
        match carriers::find(&fields.carrier_slug) {
            Some(adapter) => carriers::validate_config(&adapter.info(), &fields.config, errors),
            None => {
                let known: Vec<_> = carriers::registry().iter().map(|a| a.info().slug).collect();
                errors.add(
                    "carrierSlug",
                    format!("unknown carrier type; available: {}", known.join(", ")),
                );
            }
        }
    }
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<CarrierIn>,
) -> Result<Carrier> {
    let grant = actor.authorize(org_id, &ops::CREATE_CARRIER)?;
    let fields = checked(ctx, org_id, input).await?;
    let now = ctx.now();
    let carrier = CarrierRecord {
        id: ids::new(ids::CARRIER),
        org_id: org_id.to_string(),
        fields,
        created_at: now.clone(),
        updated_at: now,
    };
    let vault = ctx.vault.clone();
    let grant = grant.on(&carrier.id);
    ctx.commit(grant, move |tx| {
        let mut carrier = carrier;
        billing::admit(tx, &carrier.org_id, Limit::Carriers)?;
        let secrets = seal_secrets(&vault, &mut carrier.fields, None)?;
        let address = sender_addresses::require(
            tx,
            &carrier.org_id,
            &carrier.fields.sender_address_id,
            "senderAddressId",
        )?;
        store::carriers::save(tx, &carrier, secrets.as_deref())?;
        Ok(Carrier {
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

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Carrier> {
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
    input: Input<CarrierIn>,
) -> Result<Carrier> {
    let grant = actor.authorize(org_id, &ops::UPDATE_CARRIER)?.on(id);
    let fields = checked(ctx, org_id, input).await?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    let vault = ctx.vault.clone();
    ctx.write(grant, move |tx| {
        let mut fields = fields;
        let mut carrier = store::carriers::get(tx, &org_id, &id)?
            .ok_or(Error::NotFound)?
            .carrier;
        let before = store::carriers::secrets(tx, &org_id, &id)?;
        let kept = match (&before, fields.carrier_slug == carrier.fields.carrier_slug) {
            (Some(sealed), true) => Some(open_secrets(&vault, sealed)?),
            _ => None,
        };
        let secrets = seal_secrets(&vault, &mut fields, kept)?;
        let address =
            sender_addresses::require(tx, &org_id, &fields.sender_address_id, "senderAddressId")?;
        carrier.fields = fields;
        carrier.updated_at = now;
        store::carriers::save(tx, &carrier, secrets.as_deref())?;
        Ok(Carrier {
            carrier,
            sender_address: Some(address),
        })
    })
    .await
}

pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    let grant = actor.authorize(org_id, &ops::DELETE_CARRIER)?.on(id);
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.write(grant, move |tx| {
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

/// Checks that the organization has carrier `id` (given in `field`); when it has none, says so
/// in `errors`. An empty id is left to the body's own checks.
pub(crate) fn found(
    db: &Reader,
    org_id: &str,
    id: &str,
    field: &str,
    errors: &mut Violations,
) -> Result<()> {
    if !id.is_empty() && !store::carriers::exists(db, org_id, id)? {
        errors.add(field, format!("no carrier {id} in this organization"));
    }
    Ok(())
}

/// Checks that `id` names a carrier of the organization (400 on `field` otherwise).
pub(crate) fn require(db: &Reader, org_id: &str, id: &str, field: &str) -> Result<Carrier> {
    store::carriers::get(db, org_id, id)?
        .ok_or_else(|| Error::invalid(field, format!("no carrier {id} in this organization")))
}

type Secrets = serde_json::Map<String, serde_json::Value>;

fn open_secrets(vault: &Vault, sealed: &str) -> Result<Secrets> {
    serde_json::from_str(&vault.open_sealed(sealed)?)
        .map_err(|e| Error::Internal(format!("a carrier's secrets do not decode: {e}")))
}

/// Takes the values of the carrier type's secret fields (kind `password`) out of `fields.config`,
/// leaving `SECRET_MASK` in their place, and seals them. A field sent as the mask keeps its
/// value in `kept` (the carrier's secrets before an update); without one it is refused.
fn seal_secrets(
    vault: &Vault,
    fields: &mut CarrierIn,
    kept: Option<Secrets>,
) -> Result<Option<String>> {
    let Some(adapter) = carriers::find(&fields.carrier_slug) else {
        return Ok(None);
    };
    let kept = kept.unwrap_or_default();
    let mut secrets = Secrets::new();
    for field in adapter
        .info()
        .fields
        .iter()
        .filter(|f| f.kind == "password")
    {
        let Some(serde_json::Value::String(value)) = fields.config.get(field.key) else {
            continue;
        };
        let value = if value == carriers::SECRET_MASK {
            kept.get(field.key).cloned().ok_or_else(|| {
                Error::invalid(
                    format!("config.{}", field.key),
                    "is the mask of a secret that is not set; give the value",
                )
            })?
        } else {
            serde_json::Value::String(value.clone())
        };
        secrets.insert(field.key.to_string(), value);
        fields
            .config
            .insert(field.key.to_string(), carriers::SECRET_MASK.into());
    }
    if secrets.is_empty() {
        return Ok(None);
    }
    let json = serde_json::Value::Object(secrets).to_string();
    vault.seal(&json).map(Some)
}

/// The carrier with its secret config values in clear, for its adapter.
pub(crate) fn reveal(
    vault: &Vault,
    db: &Reader,
    mut carrier: CarrierRecord,
) -> Result<CarrierRecord> {
    if let Some(sealed) = store::carriers::secrets(db, &carrier.org_id, &carrier.id)? {
        for (key, value) in open_secrets(vault, &sealed)? {
            carrier.fields.config.insert(key, value);
        }
    }
    Ok(carrier)
}
