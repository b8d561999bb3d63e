//! Carrier adapters: what each carrier type needs to be configured with and which products and
//! services it offers. `registry()` lists exactly the adapters that exist.

use ring::rand::{SecureRandom, SystemRandom};
use std::collections::BTreeMap;

use serde_json::Value;

use crate::{
    error::{Error, Result},
    model::{
        carrier::{self as model, Carrier},
        shipment::Shipment,
        validate::Violations,
    },
};

pub mod customs;
pub mod label;
mod manual;
pub mod pdf_merge;
mod sandbox;

/// One configuration field of a carrier type (SPEC §2 CarrierField).
#[derive(Clone, Debug)]
pub struct CarrierField {
    pub name: &'static str,
    pub key: &'static str,
    /// `string`, `password` or `select`.
    pub kind: &'static str,
    pub description: &'static str,
    pub options: Vec<FieldOption>,
    pub required: bool,
}

#[derive(Clone, Debug)]
pub struct FieldOption {
    pub name: &'static str,
    pub key: &'static str,
    pub value: &'static str,
}

/// A product or service a carrier offers.
#[derive(Clone, Debug)]
pub struct Offer {
    pub id: &'static str,
    pub name: &'static str,
}

/// What a carrier type is (SPEC §2 AvailableCarrier).
#[derive(Clone, Debug)]
pub struct CarrierInfo {
    pub name: &'static str,
    pub slug: &'static str,
    pub group: &'static str,
    pub description: &'static str,
    pub fields: Vec<CarrierField>,
    pub products: Vec<Offer>,
    pub services: Vec<Offer>,
}

impl From<&CarrierField> for model::CarrierField {
    fn from(f: &CarrierField) -> model::CarrierField {
        model::CarrierField {
            name: f.name.into(),
            key: f.key.into(),
            kind: f.kind.into(),
            description: f.description.into(),
            options: f
                .options
                .iter()
                .map(|o| model::FieldOption {
                    name: o.name.into(),
                    key: o.key.into(),
                    value: o.value.into(),
                })
                .collect(),
            required: f.required,
        }
    }
}

impl From<&Offer> for model::Offer {
    fn from(o: &Offer) -> model::Offer {
        model::Offer {
            id: o.id.into(),
            name: o.name.into(),
        }
    }
}

impl From<CarrierInfo> for model::AvailableCarrier {
    fn from(info: CarrierInfo) -> model::AvailableCarrier {
        let (required, optional): (Vec<_>, Vec<_>) = info.fields.iter().partition(|f| f.required);
        model::AvailableCarrier {
            name: info.name.into(),
            slug: info.slug.into(),
            group: info.group.into(),
            description: info.description.into(),
            logo: None,
            learn_more_url: None,
            required_fields: required.into_iter().map(Into::into).collect(),
            optional_fields: optional.into_iter().map(Into::into).collect(),
            products: info.products.iter().map(Into::into).collect(),
            services: info.services.iter().map(Into::into).collect(),
        }
    }
}

/// What a carrier answers to a booking.
#[derive(Clone, Debug, PartialEq)]
pub struct Booking {
    /// One per parcel, in the shipment's order; the first is the shipment's.
    pub tracking_numbers: Vec<String>,
    /// Where the shipment (its first parcel) is tracked.
    pub tracking_url: Option<String>,
}

/// A carrier integration.
pub trait CarrierAdapter: Send + Sync {
    fn info(&self) -> CarrierInfo;

    /// Books `shipment` with the configured `carrier`: a tracking number, and a link when the
    /// carrier has one. Labels are rendered by Shipbase from the result.
    fn book(&self, shipment: &Shipment, carrier: &Carrier) -> Result<Booking>;
}

/// `prefix` followed by `digits` random decimal digits.
pub(crate) fn random_number(prefix: &str, digits: usize) -> Result<String> {
    let mut bytes = vec![0u8; digits];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::Internal("no randomness available".into()))?;
    let digits: String = bytes.iter().map(|b| char::from(b'0' + b % 10)).collect();
    Ok(format!("{prefix}{digits}"))
}

/// Every adapter built into this binary.
pub fn registry() -> Vec<Box<dyn CarrierAdapter>> {
    vec![Box::new(sandbox::Sandbox), Box::new(manual::Manual)]
}

/// The adapter for `slug`.
pub fn find(slug: &str) -> Option<Box<dyn CarrierAdapter>> {
    registry().into_iter().find(|a| a.info().slug == slug)
}

/// Checks a carrier's `config` against the adapter's fields: every required key present and
/// non-empty, every known key a string (select fields: one of the options).
pub fn validate_config(
    info: &CarrierInfo,
    config: &BTreeMap<String, Value>,
    errors: &mut Violations,
) {
    for field in &info.fields {
        let at = format!("config.{}", field.key);
        match config.get(field.key) {
            None | Some(Value::Null) if field.required => {
                errors.add(at, format!("is required by {}", info.name))
            }
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if field.required && s.is_empty() => {
                errors.add(at, "must not be empty")
            }
            Some(Value::String(s))
                if field.kind == "select" && !field.options.iter().any(|o| o.value == s) =>
            {
                let allowed: Vec<_> = field.options.iter().map(|o| o.value).collect();
                errors.add(at, format!("must be one of {}", allowed.join(", ")));
            }
            Some(Value::String(_)) => {}
            Some(_) => errors.add(at, "must be a string"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_unique_and_findable() {
        let slugs: Vec<_> = registry().iter().map(|a| a.info().slug).collect();
        assert_eq!(slugs, ["sandbox", "manual"]);
        assert!(find("sandbox").is_some());
        assert!(find("dhl").is_none());
    }

    #[test]
    fn sandbox_needs_no_configuration() {
        let mut errors = Violations::new();
        validate_config(
            &find("sandbox")
                .map(|a| a.info())
                .unwrap_or_else(|| panic!()),
            &BTreeMap::new(),
            &mut errors,
        );
        assert!(errors.finish().is_ok());
    }

    #[test]
    fn config_values_are_checked_against_the_fields() {
        let info = CarrierInfo {
            name: "Test",
            slug: "test",
            group: "test",
            description: "",
            fields: vec![
                CarrierField {
                    name: "Key",
                    key: "apiKey",
                    kind: "password",
                    description: "",
                    options: vec![],
                    required: true,
                },
                CarrierField {
                    name: "Mode",
                    key: "mode",
                    kind: "select",
                    description: "",
                    options: vec![FieldOption {
                        name: "Live",
                        key: "live",
                        value: "live",
                    }],
                    required: false,
                },
            ],
            products: vec![],
            services: vec![],
        };
        let mut errors = Violations::new();
        let config: BTreeMap<String, Value> =
            serde_json::from_str(r#"{"mode": "test", "extra": 1}"#).unwrap_or_default();
        validate_config(&info, &config, &mut errors);
        match errors.finish() {
            Err(crate::error::Error::Validation(e)) => {
                let fields: Vec<_> = e.iter().map(|e| e.field.as_str()).collect();
                assert_eq!(fields, ["config.apiKey", "config.mode"]);
            }
            other => panic!("{other:?}"),
        }
    }
}
