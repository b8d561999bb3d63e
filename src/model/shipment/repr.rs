//! A shipment's representation written straight from the record: the bytes poem-openapi's
//! serialization gives (compact, keys in byte order, `null` for an absent option) without
//! building its value tree first, which was most of a create's serializing. The members of each
//! part are written in their sorted order by hand; `tests` compares the bytes with the model's
//! serialization over generated shipments, so a field added to a part and not here fails.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::model::{
    shipment::{
        CarrierSettings, Dimensions, Parcel, ParcelOrderLine, Party, PickupDetails, ShipmentRecord,
        Tracking, TrackingEvent,
    },
    status::{ShipmentStatus, TrackingStatus},
};

/// Where the members a representation leaves out of a shipment's full form go: the offsets of
/// the `,` before the `"id"` member (`documents` goes there) and before the `"status"` member
/// (`shippingRule` and `shippingRuleId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gaps {
    id: usize,
    status: usize,
}

impl Gaps {
    /// The offsets as stored (`repr_id_at`, `repr_status_at`).
    pub fn at(id: i64, status: i64) -> Option<Gaps> {
        Some(Gaps {
            id: usize::try_from(id).ok()?,
            status: usize::try_from(status).ok()?,
        })
    }

    /// The offsets, to store.
    pub fn offsets(&self) -> (i64, i64) {
        let stored = |at: usize| i64::try_from(at).unwrap_or(i64::MAX);
        (stored(self.id), stored(self.status))
    }

    /// Whether they are where `repr`'s `"id"` and `"status"` members begin (a representation
    /// written with them always is; anything else is merged instead).
    pub fn fit(&self, repr: &str) -> bool {
        let text = repr.as_bytes();
        self.id < self.status
            && text
                .get(self.id..)
                .is_some_and(|t| t.starts_with(b",\"id\":"))
            && text
                .get(self.status..)
                .is_some_and(|t| t.starts_with(b",\"status\":"))
    }

    /// `repr` with `documents` before `"id"`, and `shippingRule` and `shippingRuleId` before
    /// `"status"` (JSON texts each), the gaps fitting it.
    pub(super) fn fill(
        &self,
        repr: &str,
        documents: &[u8],
        rule: &[u8],
        rule_id: &[u8],
        out: &mut Vec<u8>,
    ) {
        let text = repr.as_bytes();
        out.reserve(text.len() + documents.len() + rule.len() + rule_id.len() + 48);
        out.extend_from_slice(&text[..self.id]);
        out.extend_from_slice(b",\"documents\":");
        out.extend_from_slice(documents);
        out.extend_from_slice(&text[self.id..self.status]);
        out.extend_from_slice(b",\"shippingRule\":");
        out.extend_from_slice(rule);
        out.extend_from_slice(b",\"shippingRuleId\":");
        out.extend_from_slice(rule_id);
        out.extend_from_slice(&text[self.status..]);
    }
}

/// The representation of `s`: its public JSON but `shippingRuleId` (`wire::repr`).
pub(super) fn write(s: &ShipmentRecord) -> String {
    write_marked(s).0
}

/// `write`, with where the members it leaves out go.
pub(super) fn write_marked(s: &ShipmentRecord) -> (String, Gaps) {
    let mut out = Vec::with_capacity(2048);
    let b = &s.body;
    let mut o = Object::open(&mut out);
    o.member("carrierSettings", &b.carrier_settings);
    o.member("createdAt", &s.created_at);
    let id = o.out.len();
    o.member("id", &s.id);
    o.member("language", &b.language);
    o.member("orderId", &s.order_id);
    o.member("orgId", &s.org_id);
    o.member("parcels", &b.parcels);
    o.member("parties", &b.parties);
    o.member("pickupDetails", &b.pickup_details);
    o.member("reference", &s.reference);
    o.member("returnOf", &s.return_of);
    o.member("senderAddressId", &s.sender_address_id);
    o.member("servicePointId", &b.service_point_id);
    let status = o.out.len();
    o.member("status", &s.status);
    o.member("termOfTrade", &s.term_of_trade);
    o.member("tracking", &b.tracking);
    o.member("trackingUrl", &b.tracking_url);
    o.member("type", &s.kind);
    o.member("updatedAt", &s.updated_at);
    o.close();
    // Only strings and JSON's own punctuation were written: UTF-8 throughout.
    let text = String::from_utf8(out).unwrap_or_default();
    (text, Gaps { id, status })
}

/// Something written as JSON as poem-openapi writes it.
trait Json {
    fn json(&self, out: &mut Vec<u8>);
}

/// An object being written: members in the order given (the caller's, sorted by key).
struct Object<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Object { out, first: true }
    }

    /// A member whose key is plain ASCII (no escapes).
    fn member(&mut self, key: &str, value: &(impl Json + ?Sized)) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
        value.json(self.out);
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

/// What serde_json writes for a value (strings escaped, numbers as `Value` writes them).
fn serde(value: &(impl Serialize + ?Sized), out: &mut Vec<u8>) {
    // Writing strings, numbers and values to a Vec cannot fail.
    let _ = serde_json::to_writer(out, value);
}

impl Json for str {
    fn json(&self, out: &mut Vec<u8>) {
        serde(self, out)
    }
}

impl Json for String {
    fn json(&self, out: &mut Vec<u8>) {
        serde(self.as_str(), out)
    }
}

impl Json for i64 {
    fn json(&self, out: &mut Vec<u8>) {
        serde(self, out)
    }
}

/// Finite, as every stored number is (JSON has no other); poem-openapi would leave a member
/// out for one that is not, this writes `null` (serde_json's choice).
impl Json for f64 {
    fn json(&self, out: &mut Vec<u8>) {
        serde(self, out)
    }
}

impl Json for Value {
    fn json(&self, out: &mut Vec<u8>) {
        serde(self, out)
    }
}

impl Json for ShipmentStatus {
    fn json(&self, out: &mut Vec<u8>) {
        serde(self, out)
    }
}

impl Json for TrackingStatus {
    fn json(&self, out: &mut Vec<u8>) {
        serde(self, out)
    }
}

impl<T: Json> Json for Option<T> {
    fn json(&self, out: &mut Vec<u8>) {
        match self {
            Some(value) => value.json(out),
            None => out.extend_from_slice(b"null"),
        }
    }
}

impl<T: Json> Json for Vec<T> {
    fn json(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            item.json(out);
        }
        out.push(b']');
    }
}

impl Json for BTreeMap<String, Value> {
    fn json(&self, out: &mut Vec<u8>) {
        serde(self, out)
    }
}

impl Json for Party {
    fn json(&self, out: &mut Vec<u8>) {
        let mut o = Object::open(out);
        o.member("address1", &self.address1);
        o.member("address2", &self.address2);
        o.member("attention", &self.attention);
        o.member("attributes", &self.attributes);
        o.member("city", &self.city);
        o.member("countryCode", &self.country_code);
        o.member("email", &self.email);
        o.member("name", &self.name);
        o.member("phone", &self.phone);
        o.member("postalCode", &self.postal_code);
        o.member("type", &self.kind);
        o.close();
    }
}

impl Json for CarrierSettings {
    fn json(&self, out: &mut Vec<u8>) {
        let mut o = Object::open(out);
        o.member("additionalParameters", &self.additional_parameters);
        o.member("carrierId", &self.carrier_id);
        o.member("productId", &self.product_id);
        o.member("services", &self.services);
        o.close();
    }
}

impl Json for Parcel {
    fn json(&self, out: &mut Vec<u8>) {
        let mut o = Object::open(out);
        o.member("dimensions", &self.dimensions);
        o.member("id", &self.id);
        o.member("orderLines", &self.order_lines);
        o.member("trackingNumber", &self.tracking_number);
        o.member("weight", &self.weight);
        o.member("weightUnit", &self.weight_unit);
        o.close();
    }
}

impl Json for Dimensions {
    fn json(&self, out: &mut Vec<u8>) {
        let mut o = Object::open(out);
        o.member("height", &self.height);
        o.member("length", &self.length);
        o.member("width", &self.width);
        o.close();
    }
}

impl Json for ParcelOrderLine {
    fn json(&self, out: &mut Vec<u8>) {
        let mut o = Object::open(out);
        o.member("countryOfOrigin", &self.country_of_origin);
        o.member("currency", &self.currency);
        o.member("description", &self.description);
        o.member("id", &self.id);
        o.member("location", &self.location);
        o.member("quantity", &self.quantity);
        o.member("sku", &self.sku);
        o.member("tarrifNumber", &self.tarrif_number);
        o.member("unitPrice", &self.unit_price);
        o.member("vatPercent", &self.vat_percent);
        o.close();
    }
}

impl Json for PickupDetails {
    fn json(&self, out: &mut Vec<u8>) {
        let mut o = Object::open(out);
        o.member("date", &self.date);
        o.member("from", &self.from);
        o.member("instruction", &self.instruction);
        o.member("to", &self.to);
        o.close();
    }
}

impl Json for Tracking {
    fn json(&self, out: &mut Vec<u8>) {
        let mut o = Object::open(out);
        o.member("events", &self.events);
        o.member("number", &self.number);
        o.member("status", &self.status);
        o.member("url", &self.url);
        o.close();
    }
}

impl Json for TrackingEvent {
    fn json(&self, out: &mut Vec<u8>) {
        let mut o = Object::open(out);
        o.member("description", &self.description);
        o.member("location", &self.location);
        o.member("occurredAt", &self.occurred_at);
        o.member("status", &self.status);
        o.close();
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::model::{arbitrary::shipment, wire};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Byte for byte what the model serializes to (poem-openapi's value tree, written by
        /// serde_json), the rule id left out.
        #[test]
        fn the_representation_is_the_models(s in shipment()) {
            prop_assert_eq!(super::write(&s), wire::stored(&s, Some("shippingRuleId")));
        }
    }
}
