//! Small helpers for writing carrier requests and describing carrier types.

use super::{CarrierField, FieldOption};

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
