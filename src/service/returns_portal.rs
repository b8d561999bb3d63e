//! The returns portal's settings (DESIGN §21): read and replaced through one operation pair;
//! the portal itself (the public pages at `/r/{slug}`) reads them.

use crate::{
    error::{Error, Result},
    model::{returns_portal::ReturnsPortal, validate::Violations},
    service::{Actor, Ctx, Input, operations as ops},
    store,
};

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str) -> Result<ReturnsPortal> {
    actor.authorize(org_id, &ops::GET_RETURNS_PORTAL)?;
    let org_id = org_id.to_string();
    ctx.db.point(move |db| {
        store::orgs::get(db, &org_id)?.ok_or(Error::NotFound)?;
        store::returns_portals::get(db, &org_id)
    })
}

/// Replaces the settings; an open portal needs a shipping rule of the organization. Reasons are
/// kept without their surrounding spaces.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<ReturnsPortal>,
) -> Result<ReturnsPortal> {
    let grant = actor.authorize(org_id, &ops::UPDATE_RETURNS_PORTAL)?;
    let mut portal = input.get()?;
    let mut errors = Violations::new();
    portal.check(&mut errors);
    errors.finish()?;
    portal.reasons = portal
        .reasons
        .iter()
        .map(|r| r.trim().to_string())
        .collect();
    let (org_id, now) = (org_id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        store::orgs::get(tx, &org_id)?.ok_or(Error::NotFound)?;
        if let Some(rule) = &portal.shipping_rule_id
            && store::shipping_rules::get(tx, &org_id, rule)?.is_none()
        {
            return Err(Error::invalid(
                "shippingRuleId",
                "no such shipping rule in this organization",
            ));
        }
        store::returns_portals::save(tx, &org_id, &portal, &now)?;
        Ok(portal)
    })
    .await
}
