//! Carriers an organization has configured (SPEC §2 Carrier).

use serde_json::{Map, Value};

/// The writable fields of a carrier.
#[derive(Clone, Debug, PartialEq)]
pub struct CarrierFields {
    pub name: String,
    /// Which adapter books with it (`sandbox`, `manual`, …).
    pub carrier_slug: String,
    /// Adapter settings, checked against the adapter's fields.
    pub config: Map<String, Value>,
    pub sender_address_id: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Carrier {
    pub id: String,
    pub org_id: String,
    pub fields: CarrierFields,
    pub created_at: String,
    pub updated_at: String,
}
