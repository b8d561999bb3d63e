//! Postcode formats: every country whose postcodes have a fixed format, from
//! Google's libaddressinput country data (`third_party/libaddressinput/formats.json`, extracted
//! by its `extract.py`; Apache 2.0), embedded in the binary. A receiver's postcode is checked
//! with letter case, the country's written prefix (`SE-`) and one space ignored, and a refusal
//! says what the country's postcodes look like.

use std::{
    collections::BTreeMap,
    sync::{LazyLock, OnceLock},
};

use regex::Regex;
use serde::Deserialize;

use crate::model::locale;

#[derive(Deserialize)]
struct Format {
    name: String,
    zip: String,
    zipex: String,
    postprefix: Option<String>,
    #[serde(skip)]
    pattern: OnceLock<Option<Regex>>,
}

static FORMATS: LazyLock<BTreeMap<String, Format>> = LazyLock::new(|| {
    // Embedded and checked by the tests below; unreadable, it would check nothing.
    serde_json::from_str(include_str!(
        "../../third_party/libaddressinput/formats.json"
    ))
    .unwrap_or_default()
});

impl Format {
    /// The whole-string pattern (a pattern the regex crate cannot read matches nothing and is
    /// not checked).
    fn pattern(&self) -> Option<&Regex> {
        self.pattern
            .get_or_init(|| Regex::new(&format!("^(?:{})$", self.zip)).ok())
            .as_ref()
    }

    /// The first of the data's examples that fits its own pattern (a few upstream examples do
    /// not: Belarus lists 20050 beside six-digit codes); none for the few without examples.
    fn example(&self) -> Option<&str> {
        let pattern = self.pattern()?;
        self.zipex
            .split(',')
            .find(|e| !e.is_empty() && pattern.is_match(&e.to_uppercase()))
    }

    fn accepts(&self, postcode: &str) -> bool {
        let Some(pattern) = self.pattern() else {
            return true;
        };
        let upper = postcode.trim().to_uppercase();
        let bare = self
            .postprefix
            .as_deref()
            .and_then(|p| upper.strip_prefix(p.trim()))
            .map_or(upper.as_str(), str::trim);
        if pattern.is_match(bare) {
            return true;
        }
        // One space, where the format has none or puts it elsewhere.
        let mut spaces = bare.match_indices(' ');
        match (spaces.next(), spaces.next()) {
            (Some((at, _)), None) => {
                let joined = format!("{}{}", &bare[..at], &bare[at + 1..]);
                pattern.is_match(&joined)
            }
            _ => false,
        }
    }
}

/// `Err(message)` when `postcode` is not in `country`'s format, e.g. "not a postcode of
/// Denmark; expected 4 digits, e.g. 8660". Countries without a fixed format accept anything.
pub fn check(country: &str, postcode: &str) -> Result<(), String> {
    let Some(format) = FORMATS.get(country) else {
        return Ok(());
    };
    if format.accepts(postcode) {
        return Ok(());
    }
    let name = country_name(country, &format.name);
    Err(match (describe(&format.zip), format.example()) {
        (Some(shape), Some(example)) => {
            format!("not a postcode of {name}; expected {shape}, e.g. {example}")
        }
        (Some(shape), None) => format!("not a postcode of {name}; expected {shape}"),
        (None, Some(example)) => format!("not a postcode of {name}; expected one like {example}"),
        (None, None) => format!("not a postcode of {name}"),
    })
}

fn country_name(code: &str, upper: &str) -> String {
    let key = format!("country_{code}");
    let named = locale::catalogue("en").get(&key);
    if named != key && !named.is_empty() {
        return named.to_string();
    }
    // The data's own name, in capitals: "CZECH REP." → "Czech Rep."
    upper
        .split(' ')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_string() + &chars.as_str().to_lowercase()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The format in words, for the simple patterns most countries have (`\d{4}`,
/// `\d{3}[ ]?\d{2}`, `\d{4}[ ]?[A-Z]{2}`, `LV-\d{4}`); `None` for the rest.
fn describe(pattern: &str) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = pattern;
    while !rest.is_empty() {
        let (part, after) = if let Some(after) = rest.strip_prefix("[ ]?") {
            ("an optional space".to_string(), after)
        } else if let Some(after) = rest.strip_prefix("\\d") {
            let (count, after) = repetition(after)?;
            (counted(count, "digit"), after)
        } else if let Some(after) = rest.strip_prefix("[A-Z]") {
            let (count, after) = repetition(after)?;
            (counted(count, "letter"), after)
        } else {
            let literal: String = rest
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '-')
                .collect();
            if literal.is_empty() {
                return None;
            }
            let after = &rest[literal.len()..];
            (
                if literal == "-" {
                    "a hyphen".to_string()
                } else {
                    format!("\"{literal}\"")
                },
                after,
            )
        };
        parts.push(part);
        rest = after;
    }
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ => {
            let last = parts.pop()?;
            Some(format!("{} and {last}", parts.join(", ")))
        }
    }
}

/// `{n}` or `{n,m}` after a class: the count in words and what follows.
fn repetition(after: &str) -> Option<(String, &str)> {
    let Some(inner) = after.strip_prefix('{') else {
        return Some(("1".into(), after));
    };
    let end = inner.find('}')?;
    let count = &inner[..end];
    if !count.chars().all(|c| c.is_ascii_digit() || c == ',') {
        return None;
    }
    Some((count.replace(',', " to "), &inner[end + 1..]))
}

fn counted(count: String, what: &str) -> String {
    if count == "1" {
        format!("1 {what}")
    } else {
        format!("{count} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_of_the_data_compiles() {
        assert!(FORMATS.len() > 150, "{} countries", FORMATS.len());
        for (code, format) in FORMATS.iter() {
            assert!(format.pattern().is_some(), "{code}: {}", format.zip);
            if let Some(example) = format.example() {
                assert!(format.accepts(example), "{code}: its own example {example}");
            }
        }
    }

    #[test]
    fn valid_and_invalid_postcodes_of_the_shops_countries() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "DK",
                &["8000", "2100"],
                &["80000", "800", "DK8000X", "8OOO"],
            ),
            ("SE", &["111 22", "11122", "SE-111 22"], &["1112", "111-22"]),
            ("NO", &["0150", "5003"], &["150", "01500"]),
            ("FI", &["00100", "FI-00100"], &["0010", "001000"]),
            ("DE", &["53113", "01067"], &["5311", "531134", "D-53113"]),
            (
                "NL",
                &["1234 AB", "1234ab", "1234AB"],
                &["1234", "12345 AB", "AB 1234"],
            ),
            ("PL", &["00-950", "48-300"], &["00950", "0-950"]),
            (
                "GB",
                &["SW1A 1AA", "sw1a1aa", "EC1Y 8SY", "M2 5BQ"],
                &["SW1A", "12345", "QQ1 1AA"],
            ),
            (
                "US",
                &["10001", "22162-1010", "22162 1010"],
                &["1000", "ABCDE", "100011"],
            ),
            (
                "CA",
                &["K1A 0B1", "k1a0b1"],
                &["K1A 0B", "D1A 0B1", "12345"],
            ),
        ];
        for (country, good, bad) in cases {
            for postcode in *good {
                assert_eq!(check(country, postcode), Ok(()), "{country} {postcode}");
            }
            for postcode in *bad {
                assert!(check(country, postcode).is_err(), "{country} {postcode}");
            }
        }
        // No fixed format: anything goes.
        assert_eq!(check("HK", "whatever"), Ok(()));
    }

    #[test]
    fn refusals_say_what_the_format_is() {
        assert_eq!(
            check("DK", "80000").unwrap_err(),
            "not a postcode of Denmark; expected 4 digits, e.g. 8660"
        );
        assert_eq!(
            check("NL", "1234").unwrap_err(),
            "not a postcode of Netherlands; expected 4 digits, an optional space and 2 letters, e.g. 1234 AB"
        );
        assert_eq!(
            check("PL", "1").unwrap_err(),
            "not a postcode of Poland; expected 2 digits, a hyphen and 3 digits, e.g. 00-950"
        );
        assert!(
            check("GB", "nope")
                .unwrap_err()
                .starts_with("not a postcode of United Kingdom; expected one like EC1Y 8SY")
        );
    }
}
