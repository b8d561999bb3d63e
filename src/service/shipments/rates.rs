//! Carrier rates: every carrier of the organization that prices through an API is
//! asked what it charges for a shipment, all at once, each within `carriers.rates_timeout_ms`;
//! the answer is their offers cheapest first, and per carrier that gave none, why.

use std::{cmp::Ordering, time::Duration};

use crate::{
    carriers::{self, RateOffer},
    error::{Error, Result},
    model::{
        carrier::CarrierRecord,
        ids,
        rate::{Rate, RateError, RatesIn, RatesOut},
        shipment::{CarrierSettings, ShipmentIn, ShipmentRecord},
        status::ShipmentStatus,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input,
        access::grant::Grant,
        carriers::reveal,
        operations as ops, sender_addresses,
        shipments::{Change, build, parties, require, save},
    },
    store::{self, Reader},
};

pub async fn compare(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<RatesIn>,
) -> Result<RatesOut> {
    actor.authorize(org_id, &ops::COMPARE_CARRIER_RATES)?;
    let request = input.get()?;
    let now = ctx.now();
    let (shipment, carriers) = ctx.db.point(|db| {
        let shipment = shipment_of(db, org_id, request, now)?;
        let carriers = store::carriers::all(db, org_id)?
            .into_iter()
            .map(|carrier| reveal(&ctx.vault, db, carrier))
            .collect::<Result<Vec<_>>>()?;
        Ok((shipment, carriers))
    })?;
    let deadline = Duration::from_millis(ctx.config.carriers.rates_timeout_ms);
    let asked = carriers
        .iter()
        .map(|carrier| ask(ctx, carrier, &shipment, deadline));
    let mut out = RatesOut {
        data: Vec::new(),
        errors: Vec::new(),
    };
    for answer in futures_util::future::join_all(asked).await {
        match answer {
            Ok(rates) => out.data.extend(rates),
            Err(error) => out.errors.push(error),
        }
    }
    out.data.sort_by(cheapest_first);
    Ok(out)
}

/// The shipment to rate: a stored one, or one built from the body as create would (not kept).
fn shipment_of(db: &Reader, org_id: &str, request: RatesIn, now: String) -> Result<ShipmentRecord> {
    if let Some(id) = &request.shipment_id {
        let body_too = request.sender_address_id.is_some()
            || request.parties.is_some()
            || request.parcels.is_some();
        if body_too {
            return Err(Error::invalid(
                "shipmentId",
                "give either shipmentId or a shipment body, not both",
            ));
        }
        return require(db, org_id, id);
    }
    let mut errors = Violations::new();
    for (field, missing) in [
        ("senderAddressId", request.sender_address_id.is_none()),
        ("parties", request.parties.is_none()),
        ("parcels", request.parcels.is_none()),
    ] {
        if missing {
            errors.add(field, "is required (or give shipmentId)");
        }
    }
    errors.finish()?;
    let mut errors = Violations::new();
    let new = ShipmentIn {
        reference: request.reference.unwrap_or_else(|| "rates".into()),
        sender_address_id: request.sender_address_id.unwrap_or_default(),
        parties: request.parties.unwrap_or_default(),
        kind: request.kind.unwrap_or_else(|| "outbound".into()),
        // Not used (each carrier is asked for all its products); what a create needs of it.
        carrier_settings: request.carrier_settings.unwrap_or_else(|| CarrierSettings {
            carrier_id: "any".into(),
            product_id: "any".into(),
            ..CarrierSettings::default()
        }),
        parcels: request.parcels.unwrap_or_default(),
        service_point_id: request.service_point_id,
        pickup_details: request.pickup_details,
        term_of_trade: request.term_of_trade,
        status: None,
        order_id: request.order_id,
        language: request.language,
    };
    new.check(&mut errors);
    parties::printable(&new.parties, &mut errors);
    let address = sender_addresses::found(
        db,
        org_id,
        &new.sender_address_id,
        "senderAddressId",
        &mut errors,
    )?;
    errors.finish()?;
    let address = address.ok_or_else(|| {
        Error::invalid(
            "senderAddressId",
            "must name a sender address of the organization",
        )
    })?;
    Ok(build(ids::new(ids::SHIPMENT), new, org_id, &address, now))
}

/// The carrier and product a rule with `carrierSelection` picks for a shipment: the cheapest
/// (or fastest: fewest transit days, then price) offer of the rule's carriers; `None` when the
/// rule picks nothing (no selection, or no carrier gave an offer).
pub(crate) async fn select(
    ctx: &Ctx,
    org_id: &str,
    shipment_id: &str,
    rule_id: &str,
) -> Result<Option<(String, String)>> {
    let asked = ctx.db.point(|db| {
        let Some(rule) = store::shipping_rules::get_rule(db, org_id, rule_id)? else {
            return Ok(None);
        };
        let Some(selection) = rule.fields.carrier_selection.clone() else {
            return Ok(None);
        };
        let shipment = require(db, org_id, shipment_id)?;
        if !shipment.status.is_unbooked() {
            // The write refuses it; the carriers need not be asked.
            return Ok(None);
        }
        let mut carriers = Vec::new();
        let ids =
            std::iter::once(&rule.fields.carrier_id).chain(&rule.fields.selection_carrier_ids);
        for id in ids {
            if let Some(view) = store::carriers::get(db, org_id, id)? {
                carriers.push(reveal(&ctx.vault, db, view.carrier)?);
            }
        }
        Ok(Some((selection, shipment, carriers)))
    })?;
    let Some((selection, shipment, carriers)) = asked else {
        return Ok(None);
    };
    let deadline = Duration::from_millis(ctx.config.carriers.rates_timeout_ms);
    let answers =
        futures_util::future::join_all(carriers.iter().map(|c| ask(ctx, c, &shipment, deadline)))
            .await;
    let mut offers: Vec<Rate> = answers
        .into_iter()
        .filter_map(|a| a.ok())
        .flatten()
        .collect();
    if selection == "fastest" {
        offers.sort_by(|a, b| {
            a.transit_days
                .unwrap_or(u32::MAX)
                .cmp(&b.transit_days.unwrap_or(u32::MAX))
                .then_with(|| cheapest_first(a, b))
        });
    } else {
        offers.sort_by(cheapest_first);
    }
    Ok(offers
        .into_iter()
        .next()
        .map(|best| (best.carrier_id, best.product_id)))
}

/// Before booking: a shipment whose rule picks its carrier by rates takes the pick of now
/// (prices change between applying the rule and booking); unchanged when no carrier answers or
/// the pick is what it has. The change is written (and audited) as part of the booking.
pub(crate) async fn reselect(
    ctx: &Ctx,
    grant: &Grant,
    org_id: &str,
    shipment_id: &str,
) -> Result<()> {
    // Not while an earlier attempt is open: its outcome may be a booking with the carrier the
    // shipment names now, which must stay named.
    let unsettled = |db: &Reader| -> Result<bool> {
        Ok(store::booking_attempts::open_for(db, org_id, shipment_id)?.is_some())
    };
    let rule_id = ctx.db.point(|db| {
        // Most bookings: one narrow read, nothing more.
        let Some(rule_id) = store::shipments::pending_rule(db, org_id, shipment_id)? else {
            return Ok(None);
        };
        Ok((!unsettled(db)?).then_some(rule_id))
    })?;
    let Some(rule_id) = rule_id else {
        return Ok(());
    };
    let Some((carrier_id, product_id)) = select(ctx, org_id, shipment_id, &rule_id).await? else {
        return Ok(());
    };
    let (org_id, id, now) = (org_id.to_string(), shipment_id.to_string(), ctx.now());
    ctx.write(grant.clone(), move |tx| {
        let before = require(tx, &org_id, &id)?;
        let settings = &before.body.carrier_settings;
        let same = settings.carrier_id == carrier_id && settings.product_id == product_id;
        let open = store::booking_attempts::open_for(tx, &org_id, &id)?.is_some();
        if same || open || before.status != ShipmentStatus::Pending {
            return Ok(());
        }
        let mut shipment = before.clone();
        shipment.body.carrier_settings.carrier_id = carrier_id;
        shipment.body.carrier_settings.product_id = product_id;
        shipment.updated_at = now;
        save(tx, &shipment, Change::Updated(&before), &[]).map(drop)
    })
    .await
}

/// One carrier's offers, or why it has none.
async fn ask(
    ctx: &Ctx,
    carrier: &CarrierRecord,
    shipment: &ShipmentRecord,
    deadline: Duration,
) -> Result<Vec<Rate>, RateError> {
    let fields = &carrier.fields;
    let refusal = |code: &str, message: String| RateError {
        carrier_id: carrier.id.clone(),
        carrier_name: fields.name.clone(),
        carrier_slug: fields.carrier_slug.clone(),
        code: code.into(),
        message,
    };
    let Some(adapter) = carriers::find(&fields.carrier_slug).filter(|a| a.rates()) else {
        return Err(refusal(
            "no_rating_api",
            format!(
                "{} has no rating API; its prices are not known to Shipbase",
                fields.named()
            ),
        ));
    };
    let mut shipment = shipment.clone();
    shipment.body.carrier_settings = CarrierSettings {
        carrier_id: carrier.id.clone(),
        ..CarrierSettings::default()
    };
    let answer = tokio::time::timeout(deadline, adapter.rate(&ctx.carriers, carrier, &shipment));
    match answer.await {
        Err(_) => Err(refusal(
            "carrier_timeout",
            format!(
                "{} did not answer within {} ms",
                fields.name,
                deadline.as_millis()
            ),
        )),
        Ok(Err(error)) => {
            let code = match &error {
                Error::CarrierRejected(_) => "carrier_rejected",
                Error::CarrierTimeout(_) => "carrier_timeout",
                Error::InvalidState(_) | Error::Validation(_) => "invalid_state",
                _ => "carrier_unavailable",
            };
            Err(refusal(code, error.to_string()))
        }
        Ok(Ok(offers)) => Ok(offers
            .into_iter()
            .map(|offer: RateOffer| Rate {
                carrier_id: carrier.id.clone(),
                carrier_name: fields.name.clone(),
                carrier_slug: fields.carrier_slug.clone(),
                product_id: offer.product_id,
                product_name: offer.product_name,
                price: offer.price,
                currency: offer.currency,
                estimated_delivery: offer.estimated_delivery,
                transit_days: offer.transit_days,
            })
            .collect()),
    }
}

/// By price (amounts in different currencies are compared as numbers), then the sooner
/// delivery, then the carrier's and product's names.
fn cheapest_first(a: &Rate, b: &Rate) -> Ordering {
    let price = |r: &Rate| r.price.parse::<f64>().unwrap_or(f64::MAX);
    price(a)
        .total_cmp(&price(b))
        .then_with(|| {
            a.transit_days
                .unwrap_or(u32::MAX)
                .cmp(&b.transit_days.unwrap_or(u32::MAX))
        })
        .then_with(|| a.carrier_name.cmp(&b.carrier_name))
        .then_with(|| a.product_name.cmp(&b.product_name))
}
