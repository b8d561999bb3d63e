//! `manual`: for parcels handed to a carrier outside Shipbase; labels are rendered locally. It
//! never invents a tracking number: each parcel has the one the shop gives
//! (`additionalParameters.trackingNumbers`, one per parcel, or `trackingNumber` for a shipment
//! of one parcel), or none, and its label then prints without a barcode and says so.

use serde_json::Value;

use super::{Booking, BoxFuture, CarrierAdapter, CarrierField, CarrierInfo, Env, Offer};
use crate::{
    error::{Error, Result},
    model::{carrier::CarrierRecord, shipment::ShipmentRecord},
};

pub struct Manual;

impl CarrierAdapter for Manual {
    fn info(&self) -> CarrierInfo {
        CarrierInfo {
            name: "Manual",
            slug: "manual",
            group: "other",
            description: "Your own carrier agreement: you supply each parcel's tracking number (additionalParameters.trackingNumbers, or trackingNumber for one parcel); Shipbase renders the labels.",
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
            ]
            .into_iter()
            .chain(super::sandbox::label_fields())
            .collect(),
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

const NUMBERS: &str = "carrierSettings.additionalParameters.trackingNumbers";
const NUMBER: &str = "carrierSettings.additionalParameters.trackingNumber";

/// The parcels' tracking numbers as the shop gave them; an empty one where it gave none.
fn numbers(shipment: &ShipmentRecord) -> Result<Vec<String>> {
    let params = &shipment.body.carrier_settings.additional_parameters;
    let parcels = shipment.body.parcels.len().max(1);
    let text = |v: &Value| v.as_str().map(|s| s.trim().to_string());
    match (params.get("trackingNumbers"), params.get("trackingNumber")) {
        (Some(_), Some(_)) => Err(Error::invalid(
            NUMBER,
            "give either trackingNumber or trackingNumbers, not both",
        )),
        (Some(list), None) => {
            let numbers: Option<Vec<String>> = list
                .as_array()
                .and_then(|items| items.iter().map(text).collect());
            match numbers {
                Some(numbers) if numbers.len() == parcels => Ok(numbers),
                _ => Err(Error::invalid(
                    NUMBERS,
                    format!(
                        "must be a list of {parcels} tracking numbers, one per parcel in order \
                         (an empty one for a parcel that has none)"
                    ),
                )),
            }
        }
        (None, Some(one)) => match text(one) {
            Some(number) if parcels == 1 => Ok(vec![number]),
            Some(_) => Err(Error::invalid(
                NUMBER,
                format!(
                    "names one number, but each of the {parcels} parcels needs its own: \
                     give trackingNumbers, one per parcel"
                ),
            )),
            None => Err(Error::invalid(NUMBER, "must be a string")),
        },
        (None, None) => Ok(vec![String::new(); parcels]),
    }
}

fn book(shipment: &ShipmentRecord, carrier: &CarrierRecord) -> Result<Booking> {
    let tracking_numbers = numbers(shipment)?;
    let template = carrier
        .fields
        .config
        .get("trackingUrlTemplate")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty());
    let url = tracking_numbers
        .first()
        .filter(|n| !n.is_empty())
        .zip(template)
        .map(|(number, t)| t.replace("{number}", number));
    Ok(Booking {
        tracking_numbers,
        tracking_url: url,
        labels: Vec::new(),
    })
}
