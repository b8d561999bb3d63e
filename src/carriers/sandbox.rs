//! `sandbox`: books instantly with test labels and tracking numbers. Needs no configuration and
//! accepts any product and service; for trying Shipbase out and for tests.

use super::{
    Booking, BoxFuture, CarrierAdapter, CarrierField, CarrierFieldOption, CarrierInfo, Env, Offer,
    pickup::{PickupBooking, PickupRequest},
    random_number,
};
use crate::{
    error::Result,
    model::{carrier::CarrierRecord, shipment::ShipmentRecord},
};

pub struct Sandbox;

impl CarrierAdapter for Sandbox {
    fn info(&self) -> CarrierInfo {
        CarrierInfo {
            name: "Sandbox",
            slug: "sandbox",
            group: "test",
            description: "Test carrier: books instantly with test labels and tracking numbers. Accepts any product and service.",
            fields: label_fields(),
            products: vec![
                Offer {
                    id: "standard",
                    name: "Standard",
                },
                Offer {
                    id: "express",
                    name: "Express",
                },
                Offer {
                    id: "economy",
                    name: "Economy",
                },
            ],
            services: vec![
                Offer {
                    id: "signature",
                    name: "Signature on delivery",
                },
                Offer {
                    id: "insurance",
                    name: "Insurance",
                },
                Offer {
                    id: "saturday",
                    name: "Saturday delivery",
                },
            ],
        }
    }

    fn book<'a>(
        &'a self,
        _env: &'a Env,
        shipment: &'a ShipmentRecord,
        _carrier: &'a CarrierRecord,
        _reference: &'a str,
    ) -> BoxFuture<'a, Result<Booking>> {
        Box::pin(async move { book(shipment) })
    }

    fn picks_up(&self, _country: &str) -> bool {
        true
    }

    fn book_pickup<'a>(
        &'a self,
        _env: &'a Env,
        _carrier: &'a CarrierRecord,
        _pickup: &'a PickupRequest<'a>,
    ) -> BoxFuture<'a, Result<PickupBooking>> {
        Box::pin(async {
            Ok(PickupBooking {
                confirmation_number: random_number("SBXPU", 10)?,
            })
        })
    }
}

fn book(shipment: &ShipmentRecord) -> Result<Booking> {
    let tracking_numbers = (0..shipment.body.parcels.len().max(1))
        .map(|_| random_number("SBX", 14))
        .collect::<Result<Vec<_>>>()?;
    let url = tracking_numbers
        .first()
        .map(|number| format!("https://sandbox.shipbase.invalid/track/{number}"));
    Ok(Booking {
        tracking_numbers,
        tracking_url: url,
        labels: Vec::new(),
    })
}

/// The fields of carriers whose labels Shipbase draws itself (sandbox, manual): the label's
/// size and format.
pub(super) fn label_fields() -> Vec<CarrierField> {
    vec![
        CarrierField {
            name: "Label size",
            key: "labelSize",
            kind: "select",
            description: "Default label size",
            options: vec![
                CarrierFieldOption {
                    name: "A4",
                    key: "a4",
                    value: "A4",
                },
                CarrierFieldOption {
                    name: "100 × 150 mm",
                    key: "100x150",
                    value: "100X150",
                },
            ],
            required: false,
        },
        CarrierField {
            name: "Label format",
            key: "labelFormat",
            kind: "select",
            description: "PDF labels, or ZPL II for thermal printers (100 × 150 mm, 203 dpi)",
            options: vec![
                CarrierFieldOption {
                    name: "PDF",
                    key: "pdf",
                    value: "pdf",
                },
                CarrierFieldOption {
                    name: "ZPL II",
                    key: "zpl",
                    value: "zpl",
                },
            ],
            required: false,
        },
    ]
}
