//! Carriers an organization has configured (SPEC §2 Carrier).

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::Deserialize;
use serde_json::Value;

use crate::model::sender_address::SenderAddress;

/// The writable fields of a carrier: the body of a create or a full replacement.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct CarrierIn {
    #[oai(validator(min_length = 1))]
    pub name: String,
    /// The carrier type: the `slug` of one of the available carrier types.
    #[oai(validator(min_length = 1))]
    pub carrier_slug: String,
    /// Settings of the carrier type; its `requiredFields` must be present.
    pub config: BTreeMap<String, Value>,
    pub sender_address_id: String,
}

impl CarrierIn {
    /// `<name> (<type>)`, as messages name a carrier.
    pub fn named(&self) -> String {
        format!("{} ({})", self.name, self.carrier_slug)
    }

    /// The format its labels come in: `zpl` when `labelFormat` says so, else `pdf`.
    pub fn label_format(&self) -> &'static str {
        match self.config.get("labelFormat").and_then(Value::as_str) {
            Some("zpl") => "zpl",
            _ => "pdf",
        }
    }
}

/// A carrier as stored.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct CarrierRecord {
    pub id: String,
    pub org_id: String,
    #[oai(flatten)]
    pub fields: CarrierIn,
    pub created_at: String,
    pub updated_at: String,
}

/// A configured carrier, with its sender address where the answer includes it (create, get,
/// list; not inside a shipping rule).
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Carrier {
    #[oai(flatten)]
    pub carrier: CarrierRecord,
    #[oai(skip_serializing_if_is_none)]
    pub sender_address: Option<SenderAddress>,
}

crate::page_of!(CarrierPage, Carrier);

/// One choice of a select field.
#[derive(Clone, Debug, PartialEq, Object)]
pub struct CarrierFieldOption {
    pub name: String,
    pub key: String,
    pub value: String,
}

/// A configuration field of a carrier type.
#[derive(Clone, Debug, PartialEq, Object)]
pub struct CarrierField {
    pub name: String,
    pub key: String,
    /// `string`, `password` or `select`.
    #[oai(rename = "type")]
    pub kind: String,
    pub description: String,
    pub options: Vec<CarrierFieldOption>,
    pub required: bool,
}

/// A product or service a carrier type offers.
#[derive(Clone, Debug, PartialEq, Object)]
pub struct Offer {
    pub id: String,
    pub name: String,
}

/// A carrier type this server can book with.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct AvailableCarrier {
    pub name: String,
    pub slug: String,
    pub group: String,
    pub description: String,
    pub logo: Option<String>,
    pub learn_more_url: Option<String>,
    pub required_fields: Vec<CarrierField>,
    pub optional_fields: Vec<CarrierField>,
    pub products: Vec<Offer>,
    pub services: Vec<Offer>,
}
