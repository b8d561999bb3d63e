//! Status moves, deletion, and applying a shipping rule (DESIGN §7).

use crate::model::shipment::{ApplyRuleIn, StatusIn};

use crate::{
    error::{Error, Result},
    model::{shipment::Shipment, shipping_rule::ShippingRuleSummary, status::ShipmentStatus},
    service::{
        Actor, Ctx, Input, operations as ops,
        shipments::{Change, require, save},
    },
    store,
};

/// Performs one allowed move of the status machine; anything else is 409 `invalid_state`.
pub async fn set_status(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<StatusIn>,
) -> Result<Shipment> {
    let grant = actor.authorize(org_id, &ops::SET_SHIPMENT_STATUS)?.on(id);
    let target = input.get()?.status;
    if target == ShipmentStatus::Cancelled {
        void_booked(ctx, org_id, id).await?;
    }
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.commit(grant, move |tx| {
        let before = require(tx, &org_id, &id)?;
        if !before.status.can_move(target) {
            return Err(Error::InvalidState(format!(
                "a {} shipment cannot move to {target}",
                before.status
            )));
        }
        let mut shipment = before.clone();
        shipment.status = target;
        shipment.updated_at = now;
        save(tx, &shipment, Change::Updated(&before), &[])?;
        super::view_of(tx, shipment)
    })
    .await
}

/// A booked shipment being cancelled is taken back at its carrier first, where the carrier
/// does that (UPS voids it): when the carrier refuses, nothing changes. Voiding again what is
/// voided already is done, so a cancellation that fails after this can be tried again.
pub(crate) async fn void_booked(ctx: &Ctx, org_id: &str, id: &str) -> Result<()> {
    let (org, sid) = (org_id.to_string(), id.to_string());
    let found = ctx.db.point(|db| {
        let shipment = require(db, &org, &sid)?;
        if shipment.status != ShipmentStatus::Processing {
            return Ok(None);
        }
        let carrier = super::booking::carrier_of(ctx, db, &shipment)?;
        Ok(Some((carrier, shipment)))
    })?;
    let Some((carrier, shipment)) = found else {
        return Ok(());
    };
    match crate::carriers::find(&carrier.fields.carrier_slug) {
        Some(adapter) if adapter.voids() => adapter.void(&ctx.carriers, &carrier, &shipment).await,
        _ => Ok(()),
    }
}

/// Removes a draft or pending shipment (409 otherwise).
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    let grant = actor.authorize(org_id, &ops::DELETE_SHIPMENT)?.on(id);
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        let mut shipment = require(tx, &org_id, &id)?;
        if !matches!(
            shipment.status,
            ShipmentStatus::Draft | ShipmentStatus::Pending
        ) {
            return Err(Error::InvalidState(format!(
                "only draft or pending shipments can be deleted; this one is {}",
                shipment.status
            )));
        }
        // The time of the deletion, which the shipment's order takes when it is settled.
        shipment.updated_at = now;
        save(tx, &shipment, Change::Deleted, &[]).map(drop)
    })
    .await
}

/// Overwrites the carrier settings with the rule's and links the rule; only before booking.
pub async fn apply_shipping_rule(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<ApplyRuleIn>,
) -> Result<Shipment> {
    let grant = actor.authorize(org_id, &ops::APPLY_SHIPPING_RULE)?.on(id);
    let rule_id = input.get()?.shipping_rule_id;
    // A rule that picks its carrier by rates asks them first (outside the write).
    let selected = super::rates::select(ctx, org_id, id, &rule_id).await?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.commit(grant, move |tx| {
        let before = require(tx, &org_id, &id)?;
        let rule = store::shipping_rules::get_rule(tx, &org_id, &rule_id)?.ok_or_else(|| {
            Error::invalid(
                "shippingRuleId",
                format!("no shipping rule {rule_id} in this organization"),
            )
        })?;
        if !before.status.is_unbooked() {
            return Err(Error::InvalidState(format!(
                "rules apply only before booking; this shipment is {}",
                before.status
            )));
        }
        let mut shipment = before.clone();
        shipment.body.carrier_settings = rule.carrier_settings();
        if let Some((carrier_id, product_id)) = selected {
            shipment.body.carrier_settings.carrier_id = carrier_id;
            shipment.body.carrier_settings.product_id = product_id;
        }
        shipment.shipping_rule_id = Some(rule.id.clone());
        shipment.updated_at = now;
        save(tx, &shipment, Change::Updated(&before), &[])?;
        let documents = store::documents::of_shipment(tx, &org_id, &id)?;
        Ok(Shipment {
            shipment,
            documents,
            shipping_rule: Some(ShippingRuleSummary::from(&rule)),
        })
    })
    .await
}
