//! `manual`: for parcels handed to a carrier outside Shipbase. Takes the tracking number from
//! `additionalParameters.trackingNumber` when given; labels are rendered locally.

use serde_json::Value;

use super::{
    Booking, BoxFuture, CarrierAdapter, CarrierField, CarrierInfo, Env, Offer, random_number,
};
use crate::{
    error::Result,
    model::{carrier::CarrierRecord, shipment::ShipmentRecord},
};

pub struct Manual;

impl CarrierAdapter for Manual {
    fn info(&self) -> CarrierInfo {
        CarrierInfo {
            name: "Manual",
            slug: "manual",
            group: "other",
            description: "Your own carrier agreement: you supply tracking numbers; Shipbase renders the labels.",
            fields: vec![
                CarrierField {
                    name: "Carrier name",
                    key: "carrierName",
                    kind: "string",
                    description: "Name printed on labels",
                    options: vec![],
                    required: false,
                },
                CarrierField {
                    name: "Tracking URL template",
                    key: "trackingUrlTemplate",
                    kind: "string",
                    description: "Tracking link with {number} in place of the tracking number",
                    options: vec![],
                    required: false,
                },
            ],
            products: vec![Offer {
                id: "standard",
                name: "Standard",
            }],
            services: vec![],
        }
    }

    fn book<'a>(
        &'a self,
        _env: &'a Env,
        shipment: &'a ShipmentRecord,
        carrier: &'a CarrierRecord,
        _reference: &'a str,
    ) -> BoxFuture<'a, Result<Booking>> {
        Box::pin(async move { book(shipment, carrier) })
    }
}

fn book(shipment: &ShipmentRecord, carrier: &CarrierRecord) -> Result<Booking> {
    let given = shipment
        .body
        .carrier_settings
        .additional_parameters
        .get("trackingNumber");
    let number = match given.and_then(Value::as_str).map(str::trim) {
        Some(number) if !number.is_empty() => number.to_string(),
        _ => random_number("MAN", 14)?,
    };
    let template = carrier
        .fields
        .config
        .get("trackingUrlTemplate")
        .and_then(Value::as_str);
    let url = template
        .filter(|t| !t.is_empty())
        .map(|t| t.replace("{number}", &number));
    // The number the shop gave is the first parcel's; the others get it with "-2", "-3", …
    let parcels = shipment.body.parcels.len().max(1);
    let tracking_numbers = std::iter::once(number.clone())
        .chain((2..=parcels).map(|n| format!("{number}-{n}")))
        .collect();
    Ok(Booking {
        tracking_numbers,
        tracking_url: url,
        labels: Vec::new(),
    })
}
