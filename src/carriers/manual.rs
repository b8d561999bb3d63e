//! `manual`: for parcels handed to a carrier outside Shipbase. Takes the tracking number from
//! `additionalParameters.trackingNumber` when given; labels are rendered locally.

use super::{CarrierAdapter, CarrierField, CarrierInfo, Offer};

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
}
