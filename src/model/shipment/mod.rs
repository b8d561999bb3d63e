//! Shipments (SPEC §2 Shipment, DESIGN §7): the stored record, the request to create one, and the
//! rules they follow. The parts live in `parts`, the public forms in `view`.

use std::collections::HashSet;

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::model::{status::ShipmentStatus, validate::Violations};

mod parts;
mod repr;
mod requests;
pub mod search;
mod view;
pub mod wire;

pub use parts::{
    CarrierSettings, Dimensions, Parcel, ParcelOrderLine, Party, PickupDetails, Tracking,
    TrackingEvent,
};
pub use requests::{
    ApplyRuleIn, BatchItemIn, BatchSplitIn, BatchSplitOut, BookIn, LineQuantityIn, ShipmentPatch,
    SplitIn, SplitOut, StatusIn, TrackingEventIn,
};
pub use view::{Shipment, ShipmentLine, ShipmentListItem, ShipmentPage, ShipmentSummary};

pub const TYPES: [&str; 2] = ["outbound", "inbound"];
pub const PARTY_TYPES: [&str; 7] = [
    "sender",
    "receiver",
    "pickup",
    "billing",
    "freight_payer",
    "service_point",
    "return",
];
pub const WEIGHT_UNITS: [&str; 4] = ["kg", "g", "lb", "oz"];
/// Incoterms 2020, plus DAT and DDU which carriers still accept.
pub const TERMS_OF_TRADE: [&str; 13] = [
    "EXW", "FCA", "FAS", "FOB", "CFR", "CIF", "CPT", "CIP", "DAP", "DPU", "DDP", "DAT", "DDU",
];
pub const DEFAULT_TERM_OF_TRADE: &str = "DAP";

/// The nested parts of a shipment, stored together as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ShipmentBody {
    pub parties: Vec<Party>,
    pub carrier_settings: CarrierSettings,
    pub parcels: Vec<Parcel>,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetails>,
    pub tracking: Option<Tracking>,
    /// The language the receiver is written to in (tracking page): en, da, sv, nb, fi or de;
    /// when not set, the reader's browser or the receiver's country decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The public tracking page for the receiver, from booking on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_url: Option<String>,
}

/// A shipment as stored. Its public form is `Shipment`, which adds documents and the rule.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ShipmentRecord {
    pub id: String,
    pub org_id: String,
    pub reference: String,
    pub sender_address_id: String,
    /// outbound or inbound.
    #[oai(rename = "type")]
    pub kind: String,
    pub status: ShipmentStatus,
    pub term_of_trade: String,
    pub order_id: Option<String>,
    pub shipping_rule_id: Option<String>,
    /// The shipment this one returns, for return shipments.
    pub return_of: Option<String>,
    /// The shipment this one was split from.
    #[oai(skip)]
    pub split_from: Option<String>,
    /// How many shipments were split from this one so far.
    #[oai(skip)]
    pub splits_made: i64,
    #[oai(flatten)]
    pub body: ShipmentBody,
    pub created_at: String,
    pub updated_at: String,
}

impl ShipmentRecord {
    /// A new pending shipment made from this one (a split, a return): same organization, sender
    /// address, type, terms and order; its own `id`, `reference` and `body`, no rule, no tracking,
    /// and no link to where it came from (the caller sets `split_from` or `return_of`).
    pub fn derive(
        &self,
        id: String,
        reference: String,
        mut body: ShipmentBody,
        now: &str,
    ) -> ShipmentRecord {
        body.tracking = None;
        body.tracking_url = None;
        ShipmentRecord {
            id,
            org_id: self.org_id.clone(),
            reference,
            sender_address_id: self.sender_address_id.clone(),
            kind: self.kind.clone(),
            status: ShipmentStatus::Pending,
            term_of_trade: self.term_of_trade.clone(),
            order_id: self.order_id.clone(),
            shipping_rule_id: None,
            return_of: None,
            split_from: None,
            splits_made: 0,
            body,
            created_at: now.to_string(),
            updated_at: now.to_string(),
        }
    }
}

/// A shipment to create. Parcels and order lines without ids get new ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ShipmentIn {
    #[oai(validator(min_length = 1))]
    pub reference: String,
    pub sender_address_id: String,
    /// At least one; exactly one receiver. A missing sender is filled from the sender address.
    #[oai(validator(min_items = 1))]
    pub parties: Vec<Party>,
    /// outbound or inbound.
    #[serde(rename = "type")]
    #[oai(rename = "type")]
    pub kind: String,
    pub carrier_settings: CarrierSettings,
    #[oai(validator(min_items = 1))]
    pub parcels: Vec<Parcel>,
    pub service_point_id: Option<String>,
    pub pickup_details: Option<PickupDetails>,
    /// Incoterm; default DAP.
    pub term_of_trade: Option<String>,
    /// Default pending.
    pub status: Option<ShipmentStatus>,
    pub order_id: Option<String>,
    /// The language the receiver is written to in: en, da, sv, nb, fi or de.
    pub language: Option<String>,
}

impl ShipmentIn {
    /// The shape rules of DESIGN §7 (references are checked against the organization's data by
    /// the service): one receiver, at most one sender, parcels, unique part ids.
    pub fn validate(&self) -> crate::error::Result<()> {
        let mut errors = Violations::new();
        self.check(&mut errors);
        errors.finish()
    }

    /// `validate`, adding to `errors`.
    pub fn check(&self, errors: &mut Violations) {
        errors.length("reference", &self.reference, 1, 200);
        errors.length("senderAddressId", &self.sender_address_id, 1, 100);
        errors.one_of("type", &self.kind, &TYPES);
        if let Some(language) = &self.language {
            errors.one_of("language", language, &crate::model::locale::LANGUAGES);
        }
        if let Some(term) = &self.term_of_trade {
            errors.one_of("termOfTrade", term, &TERMS_OF_TRADE);
        }
        if self.parties.is_empty() {
            errors.add("parties", "must contain at least 1 item");
        }
        for (i, party) in self.parties.iter().enumerate() {
            party.validate(errors, format_args!("parties[{i}]"));
        }
        let receivers = self.parties.iter().filter(|p| p.kind == "receiver").count();
        if !self.parties.is_empty() && receivers != 1 {
            errors.add(
                "parties",
                format!("must contain exactly one receiver (found {receivers})"),
            );
        }
        if self.parties.iter().filter(|p| p.kind == "sender").count() > 1 {
            errors.add("parties", "must contain at most one sender");
        }
        let settings = &self.carrier_settings;
        errors.length("carrierSettings.carrierId", &settings.carrier_id, 1, 100);
        errors.length("carrierSettings.productId", &settings.product_id, 1, 100);
        if self.parcels.is_empty() {
            errors.add("parcels", "must contain at least 1 item");
        }
        let mut seen = HashSet::new();
        for (i, parcel) in self.parcels.iter().enumerate() {
            parcel.validate(errors, format_args!("parcels[{i}]"));
            let line_ids = parcel.order_lines.iter().map(|l| &l.id);
            for id in std::iter::once(&parcel.id)
                .chain(line_ids)
                .filter(|id| !id.is_empty())
            {
                if !seen.insert(id) {
                    errors.add("parcels", format!("the id {id} is used twice"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn party(kind: &str) -> Party {
        Party {
            kind: kind.into(),
            name: "Jane".into(),
            address1: "Street 1".into(),
            postal_code: "8000".into(),
            city: "Aarhus".into(),
            country_code: "DK".into(),
            attributes: vec![],
            attention: None,
            address2: None,
            email: None,
            phone: None,
        }
    }

    fn new(parties: Vec<Party>) -> ShipmentIn {
        ShipmentIn {
            reference: "R-1".into(),
            sender_address_id: "adr_1".into(),
            parties,
            kind: "outbound".into(),
            carrier_settings: CarrierSettings {
                carrier_id: "car_1".into(),
                product_id: "std".into(),
                ..Default::default()
            },
            parcels: vec![Parcel {
                id: "p".into(),
                weight: 1.0,
                weight_unit: "kg".into(),
                dimensions: None,
                order_lines: vec![],
                tracking_number: None,
            }],
            service_point_id: None,
            pickup_details: None,
            term_of_trade: None,
            status: None,
            order_id: None,
            language: None,
        }
    }

    fn fields(n: &ShipmentIn) -> Vec<String> {
        match n.validate() {
            Ok(()) => vec![],
            Err(crate::error::Error::Validation(e)) => e.into_iter().map(|e| e.field).collect(),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn exactly_one_receiver_is_required() {
        assert!(fields(&new(vec![party("receiver")])).is_empty());
        assert_eq!(fields(&new(vec![party("sender")])), ["parties"]);
        assert_eq!(
            fields(&new(vec![party("receiver"), party("receiver")])),
            ["parties"]
        );
    }

    #[test]
    fn bad_parcels_and_lines_name_their_path() {
        let mut n = new(vec![party("receiver")]);
        n.parcels[0].weight = 0.0;
        n.parcels[0].weight_unit = "stone".into();
        n.parcels[0].order_lines.push(ParcelOrderLine {
            id: "l".into(),
            sku: String::new(),
            quantity: 0,
            description: None,
            unit_price: None,
            currency: None,
            vat_percent: None,
            location: None,
            country_of_origin: None,
            tarrif_number: None,
        });
        assert_eq!(
            fields(&n),
            [
                "parcels[0].weight",
                "parcels[0].weightUnit",
                "parcels[0].orderLines[0].sku",
                "parcels[0].orderLines[0].quantity"
            ]
        );
    }

    #[test]
    fn a_part_id_used_twice_is_refused() {
        let mut n = new(vec![party("receiver")]);
        n.parcels.push(n.parcels[0].clone());
        assert_eq!(fields(&n), ["parcels"]);
    }
}
