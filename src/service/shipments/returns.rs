//! Return shipments (DESIGN §7): for an outbound shipment that has left, an inbound shipment with
//! sender and receiver swapped, copies of the parcels, the return rule's carrier settings when
//! the original's rule names one, booked at once.

use crate::{
    error::{Error, Result},
    model::{
        ids,
        shipment::{CarrierSettings, Shipment, ShipmentRecord},
    },
    service::{
        Actor, Ctx, operations as ops,
        shipments::{
            Change,
            booking::{Extra, apply, carrier_of, prepare},
            require, save, view_of,
        },
    },
    store::{self, Reader},
};

pub async fn create_return(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Shipment> {
    let grant = actor.authorize(org_id, &ops::CREATE_RETURN_SHIPMENT)?;
    let now = ctx.now();
    let (org, sid, at) = (org_id.to_string(), id.to_string(), now.clone());
    let (original, ret, carrier) = ctx.db.point(|db| {
        let original = require(db, &org, &sid)?;
        check_returnable(&original)?;
        let settings = return_settings(db, &original)?;
        let ret = build(&original, settings, &at);
        let carrier = carrier_of(ctx, db, &ret)?;
        Ok((original, ret, carrier))
    })?;
    // A return is booked as it is created: no one else can reach it yet, so it needs no claim;
    // the carrier is told the return's own id.
    let reference = ret.id.clone();
    let booked = prepare(
        ctx,
        ret.clone(),
        carrier,
        now.clone(),
        Extra::default(),
        &reference,
    )
    .await
    .map_err(|prepared| prepared.err)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    let base_url = ctx.config.base_url();
    ctx.commit(grant.on(&ret.id), move |tx| {
        let current = require(tx, &org_id, &id)?;
        check_returnable(&current)?;
        if current.updated_at != original.updated_at {
            return Err(Error::InvalidState(
                "the shipment changed meanwhile; create the return again".into(),
            ));
        }
        let mut ret = ret;
        let documents = apply(&mut ret, booked, now.clone());
        let page = crate::service::tracking_page::Link::give(&base_url, &mut ret)?;
        save(tx, &ret, Change::Created(None), &documents)?;
        if let Some(page) = page {
            page.record(tx, &ret, &now)?;
        }
        view_of(tx, ret)
    })
    .await
}

fn check_returnable(original: &ShipmentRecord) -> Result<()> {
    if original.kind != "outbound" {
        return Err(Error::InvalidState(
            "only outbound shipments can be returned".into(),
        ));
    }
    if !original.status.has_left() {
        return Err(Error::InvalidState(format!(
            "only a dispatched or partly dispatched shipment can be returned; this one is {}",
            original.status
        )));
    }
    Ok(())
}

/// The return rule's settings when the original's rule names one, else the original's.
fn return_settings(
    db: &Reader,
    original: &ShipmentRecord,
) -> Result<(CarrierSettings, Option<String>)> {
    let rule = match &original.shipping_rule_id {
        Some(rule_id) => store::shipping_rules::get_rule(db, &original.org_id, rule_id)?,
        None => None,
    };
    let return_rule = match rule.and_then(|r| r.fields.return_shipping_rule_id) {
        Some(return_id) => store::shipping_rules::get_rule(db, &original.org_id, &return_id)?,
        None => None,
    };
    Ok(match return_rule {
        Some(rule) => (rule.carrier_settings(), Some(rule.id)),
        None => (original.body.carrier_settings.clone(), None),
    })
}

fn build(
    original: &ShipmentRecord,
    (settings, rule_id): (CarrierSettings, Option<String>),
    now: &str,
) -> ShipmentRecord {
    let mut body = original.body.clone();
    for party in &mut body.parties {
        party.kind = match party.kind.as_str() {
            "sender" => "receiver".into(),
            "receiver" => "sender".into(),
            other => other.into(),
        };
    }
    for parcel in &mut body.parcels {
        parcel.id = ids::new(ids::PARCEL);
        parcel.tracking_number = None;
        for line in &mut parcel.order_lines {
            line.id = ids::new(ids::ORDER_LINE);
        }
    }
    body.carrier_settings = settings;
    let reference = format!("RETURN-{}", original.reference);
    ShipmentRecord {
        kind: "inbound".into(),
        shipping_rule_id: rule_id,
        return_of: Some(original.id.clone()),
        ..original.derive(ids::new(ids::SHIPMENT), reference, body, now)
    }
}
