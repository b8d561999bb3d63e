//! Small helpers for writing carrier requests and describing carrier types.

use super::{CarrierField, FieldOption, config_str};
use crate::{
    error::{Error, Result},
    model::carrier::Carrier,
};

/// A select option whose key is its value.
pub(super) fn option(name: &'static str, value: &'static str) -> FieldOption {
    FieldOption {
        name,
        key: value,
        value,
    }
}

/// A configuration field of a carrier type.
pub(super) fn field(
    name: &'static str,
    key: &'static str,
    kind: &'static str,
    description: &'static str,
    required: bool,
    options: Vec<FieldOption>,
) -> CarrierField {
    CarrierField {
        name,
        key,
        kind,
        description,
        options,
        required,
    }
}

/// `text` cut to at most `max` characters (carriers limit their fields' lengths).
pub(super) fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// Kilograms to the gram, as carriers take weights.
pub(super) fn round3(kg: f64) -> f64 {
    (kg * 1000.0).round() / 1000.0
}

/// Where a carrier's API is: the configured override when there is one, else its sandbox URL
/// unless the carrier's `sandbox` setting is `false`.
pub(super) fn api_base(
    overridden: &str,
    carrier: &Carrier,
    sandbox: &str,
    production: &str,
) -> String {
    if !overridden.is_empty() {
        return overridden.to_string();
    }
    let live = config_str(carrier, "sandbox").is_some_and(|v| v == "false");
    if live { production } else { sandbox }.to_string()
}

/// A setting the carrier type requires (409 when a carrier lacks it, as one saved before the
/// field was required would).
pub(super) fn required(carrier: &Carrier, name: &str, key: &str) -> Result<String> {
    config_str(carrier, key)
        .map(|v| v.into_owned())
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "the {name} carrier has no {key}; set it in the carrier's config"
            ))
        })
}
