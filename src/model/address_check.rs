//! Address checks: an address's postcode against its country's format, and, with
//! a carrier that validates addresses (UPS, in the United States and Puerto Rico), the
//! carrier's verdict and its candidates.

use poem_openapi::Object;
use serde::Deserialize;

/// An address to check.
#[derive(Clone, Debug, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AddressCheckIn {
    pub name: Option<String>,
    pub address1: String,
    pub address2: Option<String>,
    pub postal_code: String,
    pub city: String,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    /// The carrier to ask; by default the organization's first carrier that validates addresses
    /// in the country.
    pub carrier_id: Option<String>,
}

/// An address as a carrier suggests it.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct AddressCandidate {
    pub address1: String,
    pub address2: Option<String>,
    pub postal_code: String,
    pub city: String,
    /// The state or province, where the country has them.
    pub state: Option<String>,
    pub country_code: String,
    /// `commercial`, `residential` or null when the carrier does not say.
    pub classification: Option<String>,
}

/// The carrier's verdict.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct CarrierAddressCheck {
    pub carrier_id: String,
    pub carrier_name: String,
    /// `valid` (one exact match), `ambiguous` (candidates follow) or `no_candidates`.
    pub result: String,
    pub candidates: Vec<AddressCandidate>,
}

/// The answer: whether the address can be used, and why not.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct AddressCheckOut {
    /// The postcode fits its country's format and, when a carrier was asked, it found the
    /// address.
    pub valid: bool,
    /// Why the postcode does not fit, e.g. "not a postcode of Denmark; expected 4 digits, e.g.
    /// 8660"; null when it does.
    pub postal_code_error: Option<String>,
    /// The carrier's verdict; null when no carrier of the organization validates addresses in
    /// the country.
    pub carrier_check: Option<CarrierAddressCheck>,
}
