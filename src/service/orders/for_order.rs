//! A shipment for an order (SPEC row 18): parties from the order's shipping address unless
//! given, one parcel with the order's shippable lines and their weight, linked both ways.

use crate::model::order::OrderShipmentIn;

use crate::{
    error::{Error, Result},
    model::{
        order::OrderRecord,
        shipment::{CarrierSettings, Parcel, ParcelOrderLine, Party, Shipment, ShipmentIn},
    },
    service::{Actor, Ctx, Input, operations as ops, shipments},
};

/// Used when the order's lines carry no weight: a carrier needs one.
const DEFAULT_PARCEL_KG: f64 = 1.0;

pub async fn create_shipment(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    order_id: &str,
    input: Input<OrderShipmentIn>,
) -> Result<Shipment> {
    let grant = actor.authorize(org_id, &ops::CREATE_ORDER_SHIPMENT)?;
    let request = input.get()?;
    let (org_id, order_id, now) = (org_id.to_string(), order_id.to_string(), ctx.now());
    let id = crate::model::ids::new(crate::model::ids::SHIPMENT);
    ctx.commit(grant.on(&id), move |tx| {
        let order = crate::store::orders::get(tx, &org_id, &order_id)?.ok_or(Error::NotFound)?;
        // create_in checks the order is still open (409 once cancelled).
        let new = shipment_for(&order, request)?;
        let mut errors = crate::model::validate::Violations::new();
        new.check(&mut errors);
        shipments::printable(&new.parties, &mut errors);
        errors.finish()?;
        let (shipment, _) = shipments::create_in(tx, &org_id, id, new, now)?;
        Ok(Shipment {
            shipment,
            documents: Vec::new(),
            shipping_rule: None,
        })
    })
    .await
}

fn shipment_for(order: &OrderRecord, request: OrderShipmentIn) -> Result<ShipmentIn> {
    let parties = match request.parties {
        Some(parties) if !parties.is_empty() => parties,
        _ => vec![receiver(order)?],
    };
    Ok(ShipmentIn {
        reference: request
            .reference
            .unwrap_or_else(|| order.order_number.clone()),
        sender_address_id: request.sender_address_id,
        kind: "outbound".into(),
        status: None,
        term_of_trade: None,
        order_id: Some(order.id.clone()),
        parties,
        carrier_settings: CarrierSettings {
            carrier_id: request.carrier_id,
            product_id: request.product_id,
            services: request.services,
            additional_parameters: request.additional_parameters,
        },
        parcels: vec![parcel(order)],
        service_point_id: request.service_point_id,
        pickup_details: request.pickup_details,
        language: None,
    })
}

/// The receiver party from the order's shipping address and customer.
fn receiver(order: &OrderRecord) -> Result<Party> {
    order.receiver_party().ok_or_else(|| {
        Error::invalid(
            "parties",
            "the order has no complete shipping address; send the parties",
        )
    })
}

/// One parcel holding the shippable lines; its weight is theirs.
fn parcel(order: &OrderRecord) -> Parcel {
    let lines: Vec<_> = order
        .body
        .order_lines
        .iter()
        .filter(|l| l.ships())
        .collect();
    let kg: f64 = lines.iter().map(|l| l.unit_kg() * l.quantity).sum();
    Parcel {
        id: String::new(),
        weight: if kg > 0.0 { kg } else { DEFAULT_PARCEL_KG },
        weight_unit: "kg".into(),
        dimensions: None,
        tracking_number: None,
        order_lines: lines
            .into_iter()
            .map(|l| ParcelOrderLine {
                id: String::new(),
                sku: l
                    .sku
                    .clone()
                    .or_else(|| l.variant_id.clone())
                    .unwrap_or_else(|| l.name.chars().take(100).collect()),
                quantity: (l.quantity.round() as i64).max(1),
                description: Some(l.name.clone()),
                unit_price: l.unit_price,
                currency: l.currency.clone().or_else(|| order.body.currency.clone()),
                vat_percent: None,
                location: None,
                country_of_origin: l.country_of_origin.clone(),
                tarrif_number: l.hs_code.clone(),
            })
            .collect(),
    }
}
