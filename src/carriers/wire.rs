//! Small helpers for writing carrier requests and describing carrier types.

use super::{CarrierField, CarrierFieldOption, config_str};
use crate::{
    error::{Error, Result},
    model::{carrier::CarrierRecord, shipment::ParcelOrderLine},
};

/// A select option whose key is its value.
pub(super) fn option(name: &'static str, value: &'static str) -> CarrierFieldOption {
    CarrierFieldOption {
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
    options: Vec<CarrierFieldOption>,
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

/// `texts` (in order, each starting a new line) laid into at most `lines` lines of at most `max`
/// characters each: a text too long for one line spills into the next, broken between words
/// where it can be; only what still does not fit in `lines` lines is cut. Empty texts are
/// skipped; the result has at least one line.
pub(super) fn spill(texts: &[&str], max: usize, lines: usize) -> Vec<String> {
    let texts: Vec<&str> = texts
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .collect();
    let wrapped: Vec<String> = texts.iter().flat_map(|t| wrap(t, max)).collect();
    if wrapped.len() <= lines {
        return if wrapped.is_empty() {
            vec![String::new()]
        } else {
            wrapped
        };
    }
    // Too many lines with each text on its own: run them together, then cut the last line.
    let mut joined = wrap(&texts.join(" "), max);
    if joined.len() > lines {
        let rest = joined.split_off(lines - 1).join(" ");
        joined.push(cut(&rest, max));
    }
    joined
}

/// A party's name in a field of `name_max` characters and its address in `lines` street lines of
/// `street_max`: what of the name does not fit spills into the first street line.
pub(super) fn name_and_streets(
    name: &str,
    name_max: usize,
    address: &[&str],
    street_max: usize,
    lines: usize,
) -> (String, Vec<String>) {
    let mut names = wrap(name, name_max).into_iter();
    let first = names.next().unwrap_or_default();
    let rest = names.collect::<Vec<_>>().join(" ");
    let texts: Vec<&str> = std::iter::once(rest.as_str())
        .chain(address.iter().copied())
        .collect();
    (first, spill(&texts, street_max, lines))
}

/// `text` broken into lines of at most `max` characters: between words where a word fits,
/// a word longer than a line broken inside.
fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut len = 0;
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        if len > 0 && len + 1 + word.len() <= max {
            line.push(' ');
            line.extend(&word);
            len += 1 + word.len();
            continue;
        }
        if len > 0 {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > max {
            lines.push(word.drain(..max).collect());
        }
        line.extend(&word);
        len = word.len();
    }
    if len > 0 {
        lines.push(line);
    }
    lines
}

/// Kilograms to the gram, as carriers take weights.
/// The shipment's sender and receiver; `missing` is the error's words when either is not there.
pub(super) fn sender_and_receiver<'a>(
    shipment: &'a crate::model::shipment::ShipmentRecord,
    missing: &str,
) -> Result<(
    &'a crate::model::shipment::Party,
    &'a crate::model::shipment::Party,
)> {
    let party = |kind: &str| shipment.body.parties.iter().find(|p| p.kind == kind);
    match (party("sender"), party("receiver")) {
        (Some(sender), Some(receiver)) => Ok((sender, receiver)),
        _ => Err(Error::InvalidState(missing.into())),
    }
}

pub(super) fn round3(kg: f64) -> f64 {
    (kg * 1000.0).round() / 1000.0
}

/// Where a carrier's API is: the configured override when there is one, else its sandbox URL
/// unless the carrier's `sandbox` setting is `false`.
pub(super) fn api_base(
    overridden: &str,
    carrier: &CarrierRecord,
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
pub(super) fn required(carrier: &CarrierRecord, name: &str, key: &str) -> Result<String> {
    config_str(carrier, key)
        .map(|v| v.into_owned())
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "the {name} carrier has no {key}; set it in the carrier's config"
            ))
        })
}

/// An order line as a customs declaration names it.
pub(super) struct Declared<'a> {
    pub line: &'a ParcelOrderLine,
    pub price: f64,
    /// ISO 4217.
    pub currency: String,
    /// ISO 3166 alpha-2.
    pub origin: String,
    /// The line's description, else its SKU.
    pub description: String,
}

/// `lines` as `document` (`a UPS commercial invoice`) declares them: each needs a unit price, a
/// currency and a country of origin (409 naming the first line without one, before the carrier
/// is asked).
pub(super) fn declared<'a>(
    lines: impl IntoIterator<Item = &'a ParcelOrderLine>,
    document: &str,
) -> Result<Vec<Declared<'a>>> {
    let missing = |what: &str, sku: &str| {
        Error::InvalidState(format!(
            "{document} needs {what} on every order line; {sku} has none"
        ))
    };
    lines
        .into_iter()
        .map(|line| {
            Ok(Declared {
                line,
                price: line
                    .unit_price
                    .ok_or_else(|| missing("a unitPrice", &line.sku))?,
                currency: line
                    .currency
                    .clone()
                    .filter(|c| c.len() == 3)
                    .ok_or_else(|| missing("a currency", &line.sku))?,
                origin: line
                    .country_of_origin
                    .clone()
                    .filter(|c| c.len() == 2)
                    .ok_or_else(|| missing("a countryOfOrigin", &line.sku))?,
                description: line
                    .description
                    .clone()
                    .filter(|d| !d.trim().is_empty())
                    .unwrap_or_else(|| line.sku.clone())
                    .trim()
                    .to_string(),
            })
        })
        .collect()
}

/// The one currency of declared lines (a declaration is in one; 409 naming them otherwise).
pub(super) fn one_currency(lines: &[Declared], document: &str) -> Result<String> {
    let mut currencies: Vec<&str> = Vec::new();
    for line in lines {
        if !currencies.contains(&line.currency.as_str()) {
            currencies.push(&line.currency);
        }
    }
    match currencies.as_slice() {
        [currency] => Ok((*currency).to_string()),
        _ => Err(Error::InvalidState(format!(
            "{document} is in one currency; the order lines use {}",
            currencies.join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spill_keeps_short_lines_as_they_are() {
        assert_eq!(spill(&["Main St 1", ""], 45, 3), ["Main St 1"]);
        assert_eq!(
            spill(&["Main St 1", "Floor 2"], 45, 3),
            ["Main St 1", "Floor 2"]
        );
        assert_eq!(spill(&[], 45, 3), [""]);
    }

    #[test]
    fn spill_breaks_between_words() {
        let long = "Kongens Nytorv 28, Baghuset, 3. sal til venstre, att. lager";
        let lines = spill(&[long, "Port 4"], 30, 3);
        assert_eq!(
            lines,
            [
                "Kongens Nytorv 28, Baghuset,",
                "3. sal til venstre, att. lager",
                "Port 4"
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 30));
    }

    #[test]
    fn spill_runs_texts_together_before_it_cuts() {
        // Each on its own needs four lines; together they fit three.
        let lines = spill(&["aaaa bbbb cccc", "dddd"], 9, 2);
        assert_eq!(lines, ["aaaa bbbb", "cccc dddd"]);
        let lines = spill(&["aaaa bbbb cccc dddd eeee ffff gggg"], 9, 2);
        assert_eq!(lines, ["aaaa bbbb", "cccc dddd"]);
    }

    #[test]
    fn a_long_name_spills_into_the_first_street_line() {
        let (name, streets) = name_and_streets(
            "Nordisk Cykel- og Friluftsudstyr ApS",
            20,
            &["Vestergade 5", ""],
            20,
            3,
        );
        assert_eq!(name, "Nordisk Cykel- og");
        assert_eq!(streets, ["Friluftsudstyr ApS", "Vestergade 5"]);
        let (name, streets) = name_and_streets("Short", 20, &["Vestergade 5"], 20, 3);
        assert_eq!(
            (name.as_str(), streets),
            ("Short", vec!["Vestergade 5".to_string()])
        );
    }

    #[test]
    fn spill_breaks_a_word_longer_than_a_line() {
        assert_eq!(
            spill(&["Ærøskøbingvejen 12"], 8, 3),
            ["Ærøskøbi", "ngvejen", "12"]
        );
    }
}
