//! Shipping rules: create, list, get, replace, delete. References (carrier, sender address,
//! return rule) must belong to the same organization.

use crate::{
    error::{Error, Result},
    model::{
        ids,
        shipping_rule::{ShippingRule, ShippingRuleIn, ShippingRulePage, ShippingRuleRecord, wire},
        usage::Limit,
        validate::Violations,
        wire as json,
    },
    service::{
        Actor, Ctx, Input, PageParams, access::auth::Pending, billing, carriers, input::whole,
        operations as ops, page_query, printers, sender_addresses,
    },
    store::{self, Reader, Tx},
};

/// The body with every problem of it at once, the ids it names included; `own_id` is the rule
/// being changed.
async fn checked(
    ctx: &Ctx,
    org_id: &str,
    input: Input<ShippingRuleIn>,
    own_id: Option<&str>,
) -> Result<ShippingRuleIn> {
    let (org, own) = (org_id.to_string(), own_id.map(str::to_string));
    whole::checked(
        ctx,
        input,
        ShippingRuleIn::validate,
        move |db, fields, errors| references(db, &org, fields, own.as_deref(), errors),
    )
    .await
}

/// Adds to `errors` each id of `fields` that the organization does not have.
fn references(
    db: &Reader,
    org_id: &str,
    fields: &ShippingRuleIn,
    own_id: Option<&str>,
    errors: &mut Violations,
) -> Result<()> {
    carriers::found(db, org_id, &fields.carrier_id, "carrierId", errors)?;
    for (i, id) in fields.selection_carrier_ids.iter().enumerate() {
        carriers::found(db, org_id, id, &format!("selectionCarrierIds[{i}]"), errors)?;
    }
    sender_addresses::found(
        db,
        org_id,
        &fields.sender_address_id,
        "senderAddressId",
        errors,
    )?;
    for (field, id) in [
        ("labelPrinterId", &fields.label_printer_id),
        ("documentPrinterId", &fields.document_printer_id),
    ] {
        match id.as_deref() {
            None => {}
            Some("") => errors.add(field, "must not be empty (null for none)"),
            Some(id) if store::printers::get(db, org_id, id)?.is_none() => {
                errors.add(field, format!("no printer {id} in this organization"));
            }
            Some(_) => {}
        }
    }
    if let Some(return_id) = &fields.return_shipping_rule_id {
        if return_id.is_empty() {
            errors.add("returnShippingRuleId", "must not be empty (null for none)");
        } else if Some(return_id.as_str()) == own_id {
            errors.add(
                "returnShippingRuleId",
                "a rule cannot be its own return rule",
            );
        } else if !store::shipping_rules::exists(db, org_id, return_id)? {
            errors.add(
                "returnShippingRuleId",
                format!("no shipping rule {return_id} in this organization"),
            );
        }
    }
    Ok(())
}

/// Checks every reference of `fields` inside the organization (`references`), and that the
/// rule's printers take what they would be sent (409 when not).
fn check_references(
    tx: &Tx,
    org_id: &str,
    fields: &ShippingRuleIn,
    own_id: Option<&str>,
) -> Result<()> {
    let mut errors = Violations::new();
    references(tx, org_id, fields, own_id, &mut errors)?;
    errors.finish()?;
    let carrier = carriers::require(tx, org_id, &fields.carrier_id, "carrierId")?;
    // Labels come in the carrier's format, the other documents as PDF: a printer that cannot
    // take them would fail every job only after the booking.
    let label_format = carrier.carrier.fields.label_format();
    for (field, id, format, what) in [
        (
            "labelPrinterId",
            &fields.label_printer_id,
            label_format,
            "the carrier's labels",
        ),
        (
            "documentPrinterId",
            &fields.document_printer_id,
            "pdf",
            "customs documents and packing lists",
        ),
    ] {
        if let Some(id) = id {
            let printer = printers::require(tx, org_id, id, field)?;
            if printer.fields.format != format {
                return Err(Error::Conflict(format!(
                    "{field}: printer {} takes {}, but {what} are {format}",
                    printer.fields.name, printer.fields.format
                )));
            }
        }
    }
    Ok(())
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<ShippingRuleIn>,
) -> Result<ShippingRule> {
    let grant = actor.authorize(org_id, &ops::CREATE_SHIPPING_RULE)?;
    let fields = checked(ctx, org_id, input, None).await?;
    let now = ctx.now();
    let rule = ShippingRuleRecord {
        id: ids::new(ids::SHIPPING_RULE),
        org_id: org_id.to_string(),
        fields,
        created_at: now.clone(),
        updated_at: now,
    };
    ctx.commit(grant.on(&rule.id), move |tx| {
        billing::admit(tx, &rule.org_id, Limit::ShippingRules)?;
        check_references(tx, &rule.org_id, &rule.fields, None)?;
        store::shipping_rules::save(tx, &rule)?;
        saved(tx, &rule.org_id, &rule.id)
    })
    .await
}

/// The rule just written, in its full form.
fn saved(tx: &Tx, org_id: &str, id: &str) -> Result<ShippingRule> {
    store::shipping_rules::get(tx, org_id, id)?
        .ok_or_else(|| Error::internal(format!("shipping rule {id} vanished while written")))
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: PageParams,
) -> Result<ShippingRulePage> {
    actor.authorize(org_id, &ops::LIST_SHIPPING_RULES)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::shipping_rules::list(db, &org_id, page))
        .await
        .map(Into::into)
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<ShippingRule> {
    actor.authorize(org_id, &ops::GET_SHIPPING_RULE)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .point(|db| store::shipping_rules::get(db, &org_id, &id)?.ok_or(Error::NotFound))
}

/// `get`'s answer, as JSON written from the rule's stored representation, the caller's
/// credential confirmed in the same read transaction.
pub async fn get_json(ctx: &Ctx, caller: &Pending, org_id: &str, id: &str) -> Result<Vec<u8>> {
    ctx.db.point_snapshot(|db| {
        caller
            .confirm(ctx, db)?
            .authorize(org_id, &ops::GET_SHIPPING_RULE)?;
        let stored = store::shipping_rules::stored(db, org_id, id)?.ok_or(Error::NotFound)?;
        written(&stored)
    })
}

/// `list`'s answer, as JSON written from the rules' stored representations.
pub async fn list_json(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: PageParams,
) -> Result<Vec<u8>> {
    actor.authorize(org_id, &ops::LIST_SHIPPING_RULES)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| {
            let paged = store::shipping_rules::list_stored(db, &org_id, page)?;
            let items = paged
                .items
                .iter()
                .map(written)
                .collect::<Result<Vec<_>>>()?;
            Ok(json::page(
                items.iter().map(Vec::as_slice),
                paged.total,
                paged.query,
            ))
        })
        .await
}

/// The full form of a stored rule.
fn written(stored: &store::shipping_rules::Stored) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(stored.repr.len() + 1024);
    wire::full(&stored.repr, &stored.referred(), &mut out)
        .map_err(|e| json::broken("shipping rule", e))?;
    Ok(out)
}

/// Replaces every writable field.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<ShippingRuleIn>,
) -> Result<ShippingRule> {
    let grant = actor.authorize(org_id, &ops::UPDATE_SHIPPING_RULE)?.on(id);
    let fields = checked(ctx, org_id, input, Some(id)).await?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        let mut rule = store::shipping_rules::get_rule(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
        check_references(tx, &org_id, &fields, Some(&id))?;
        rule.fields = fields;
        rule.updated_at = now;
        store::shipping_rules::save(tx, &rule)?;
        saved(tx, &org_id, &id)
    })
    .await
}

/// Deletes a rule; shipments that applied it keep their carrier settings and lose the link.
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    let grant = actor.authorize(org_id, &ops::DELETE_SHIPPING_RULE)?.on(id);
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.write(grant, move |tx| {
        if !store::shipping_rules::exists(tx, &org_id, &id)? {
            return Err(Error::NotFound);
        }
        if store::shipping_rules::is_return_rule_of_another(tx, &org_id, &id)? {
            return Err(Error::Conflict(
                "the rule is the return rule of another shipping rule".into(),
            ));
        }
        if store::returns_portals::get(tx, &org_id)?.shipping_rule_id.as_deref() == Some(&id) {
            return Err(Error::Conflict(
                "the returns portal books its returns with this rule; choose another one there first"
                    .into(),
            ));
        }
        store::shipping_rules::delete(tx, &org_id, &id)
    })
    .await
}
