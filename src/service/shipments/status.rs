//! Status moves, deletion, and applying a shipping rule (DESIGN §7).

use crate::{
    error::{Error, Result},
    model::{
        scope::{Resource, Scope},
        shipment, status,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input,
        shipments::{ShipmentView, Write, require, save, view},
    },
    store,
};

const WRITE: Scope = Scope::write(Resource::Shipments);

/// Performs one allowed move of the status machine; anything else is 409 `invalid_state`.
pub async fn set_status(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<String>,
) -> Result<ShipmentView> {
    actor.authorize(org_id, WRITE)?;
    let target = input.get()?;
    let mut errors = Violations::new();
    errors.one_of("status", &target, &shipment::STATUSES);
    errors.finish()?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut shipment = require(tx, &org_id, &id)?;
            if !status::can_move(&shipment.status, &target) {
                return Err(Error::InvalidState(format!(
                    "a {} shipment cannot move to {target}",
                    shipment.status
                )));
            }
            shipment.status = target;
            shipment.updated_at = now;
            save(tx, &shipment, Write::Update)?;
            view(tx, &org_id, &id)
        })
        .await
}

/// Removes a draft or pending shipment (409 otherwise).
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    actor.authorize(org_id, WRITE)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut shipment = require(tx, &org_id, &id)?;
            if !matches!(shipment.status.as_str(), "draft" | "pending") {
                return Err(Error::InvalidState(format!(
                    "only draft or pending shipments can be deleted; this one is {}",
                    shipment.status
                )));
            }
            // The time of the deletion, which the shipment's order takes when it follows.
            shipment.updated_at = now;
            save(tx, &shipment, Write::Delete)
        })
        .await
}

/// Overwrites the carrier settings with the rule's and links the rule; only before booking.
pub async fn apply_shipping_rule(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<String>,
) -> Result<ShipmentView> {
    actor.authorize(org_id, WRITE)?;
    let rule_id = input.get()?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut shipment = require(tx, &org_id, &id)?;
            let rule =
                store::shipping_rules::get_rule(tx, &org_id, &rule_id)?.ok_or_else(|| {
                    Error::invalid(
                        "shippingRuleId",
                        format!("no shipping rule {rule_id} in this organization"),
                    )
                })?;
            if !status::is_unbooked(&shipment.status) {
                return Err(Error::InvalidState(format!(
                    "rules apply only before booking; this shipment is {}",
                    shipment.status
                )));
            }
            shipment.body.carrier_settings = rule.carrier_settings();
            shipment.shipping_rule_id = Some(rule.id);
            shipment.updated_at = now;
            save(tx, &shipment, Write::Update)?;
            view(tx, &org_id, &id)
        })
        .await
}
