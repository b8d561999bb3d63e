//! Sender addresses (SPEC §2 SenderAddress) and their rules.

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::Deserialize;
use serde_json::Value;

use crate::model::{country, validate::Violations};

/// Customs identifiers of the sender by name (`voec`, `eori`, `sprn`, `ioss`, `fda`, `duns`);
/// free-form, as carriers add identifiers over time.
pub type Customs = BTreeMap<String, Value>;

/// The writable fields of a sender address: the body of a create or a full replacement.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct SenderAddressIn {
    /// Label of the address.
    #[oai(validator(min_length = 1))]
    pub name: String,
    /// Attention contact.
    #[oai(validator(min_length = 1))]
    pub att_contact: String,
    #[oai(validator(min_length = 1))]
    pub address1: String,
    pub address2: Option<String>,
    #[oai(validator(min_length = 1))]
    pub zipcode: String,
    #[oai(validator(min_length = 1))]
    pub city: String,
    #[oai(validator(min_length = 1))]
    pub phone: String,
    /// ISO 3166-1 alpha-2 or alpha-3.
    #[oai(validator(min_length = 2, max_length = 3))]
    pub country_code: String,
    #[oai(validator(min_length = 1))]
    pub state: String,
    pub email: String,
    /// Customs identifiers such as `{"eori": "DK12345678", "voec": "…"}`.
    pub customs: Option<Customs>,
}

/// A sender address.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct SenderAddress {
    pub id: String,
    #[oai(flatten)]
    pub fields: SenderAddressIn,
    pub org_id: String,
    pub created_at: String,
    pub updated_at: String,
}

crate::page_of!(SenderAddressPage, SenderAddress);

impl SenderAddressIn {
    pub fn validate(&self, errors: &mut Violations) {
        errors.length("name", &self.name, 1, 200);
        errors.length("attContact", &self.att_contact, 1, 200);
        errors.length("address1", &self.address1, 1, 200);
        if let Some(a2) = &self.address2 {
            errors.length("address2", a2, 0, 200);
        }
        errors.length("zipcode", &self.zipcode, 1, 20);
        errors.length("city", &self.city, 1, 100);
        errors.length("phone", &self.phone, 1, 50);
        check_country_code(errors, "countryCode", &self.country_code);
        errors.length("state", &self.state, 1, 100);
        errors.email("email", &self.email);
    }
}

/// ISO 3166-1 alpha-2 (an assigned code) or alpha-3 (three capital letters).
pub fn check_country_code(errors: &mut Violations, field: &str, code: &str) {
    let ok = match code.len() {
        2 => country::is_alpha2(code),
        3 => code.bytes().all(|b| b.is_ascii_uppercase()),
        _ => false,
    };
    if !ok {
        errors.add(field, "must be an ISO 3166-1 alpha-2 or alpha-3 country code (length 2 to 3), such as DK or DNK");
    }
}
