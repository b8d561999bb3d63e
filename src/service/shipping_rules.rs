//! Shipping rules: create, list, get, replace, delete. References (carrier, sender address,
//! return rule) must belong to the same organization.

use crate::{
    error::{Error, Result},
    model::{
        ids,
        rule::{RuleFields, ShippingRule},
        scope::{Resource, Scope},
        validate::Violations,
    },
    service::{Actor, Ctx, Input, carriers, page_query, sender_addresses},
    store::{self, Paged, Tx, shipping_rules::RuleView},
};

const READ: Scope = Scope::read(Resource::ShippingRules);
const WRITE: Scope = Scope::write(Resource::ShippingRules);

fn validate(fields: &RuleFields) -> Result<()> {
    let mut errors = Violations::new();
    fields.validate(&mut errors);
    errors.finish()
}

/// Checks every reference of `fields` inside the organization; `own_id` is the rule being changed.
fn check_references(
    tx: &Tx,
    org_id: &str,
    fields: &RuleFields,
    own_id: Option<&str>,
) -> Result<()> {
    carriers::require(tx, org_id, &fields.carrier_id, "carrierId")?;
    sender_addresses::require(tx, org_id, &fields.sender_address_id, "senderAddressId")?;
    if let Some(return_id) = &fields.return_shipping_rule_id {
        if Some(return_id.as_str()) == own_id {
            return Err(Error::invalid(
                "returnShippingRuleId",
                "a rule cannot be its own return rule",
            ));
        }
        if !store::shipping_rules::exists(tx, org_id, return_id)? {
            return Err(Error::invalid(
                "returnShippingRuleId",
                format!("no shipping rule {return_id} in this organization"),
            ));
        }
    }
    Ok(())
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<RuleFields>,
) -> Result<RuleView> {
    actor.authorize(org_id, WRITE)?;
    let fields = input.get()?;
    validate(&fields)?;
    let now = ctx.now();
    let rule = ShippingRule {
        id: ids::new(ids::SHIPPING_RULE),
        org_id: org_id.to_string(),
        fields,
        created_at: now.clone(),
        updated_at: now,
    };
    ctx.db
        .write(move |tx| {
            check_references(tx, &rule.org_id, &rule.fields, None)?;
            store::shipping_rules::save(tx, &rule)?;
            store::shipping_rules::get(tx, &rule.org_id, &rule.id)?.ok_or(Error::NotFound)
        })
        .await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: Option<i64>,
    limit: Option<i64>,
) -> Result<Paged<RuleView>> {
    actor.authorize(org_id, READ)?;
    let page = page_query(page, limit)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |c| store::shipping_rules::list(c, &org_id, page))
        .await
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<RuleView> {
    actor.authorize(org_id, READ)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .read(move |c| store::shipping_rules::get(c, &org_id, &id)?.ok_or(Error::NotFound))
        .await
}

/// Replaces every writable field.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<RuleFields>,
) -> Result<RuleView> {
    actor.authorize(org_id, WRITE)?;
    let fields = input.get()?;
    validate(&fields)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut rule = store::shipping_rules::get(tx, &org_id, &id)?
                .ok_or(Error::NotFound)?
                .rule;
            check_references(tx, &org_id, &fields, Some(&id))?;
            rule.fields = fields;
            rule.updated_at = now;
            store::shipping_rules::save(tx, &rule)?;
            store::shipping_rules::get(tx, &org_id, &id)?.ok_or(Error::NotFound)
        })
        .await
}

/// Deletes a rule; shipments that applied it keep their carrier settings and lose the link.
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    actor.authorize(org_id, WRITE)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .write(move |tx| {
            if !store::shipping_rules::exists(tx, &org_id, &id)? {
                return Err(Error::NotFound);
            }
            if store::shipping_rules::is_return_rule_of_another(tx, &org_id, &id)? {
                return Err(Error::Conflict(
                    "the rule is the return rule of another shipping rule".into(),
                ));
            }
            store::shipping_rules::delete(tx, &org_id, &id)
        })
        .await
}
