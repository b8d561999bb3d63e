//! The languages customers are written to in: en, da, sv, nb, fi and de, each with
//! one catalogue of words (`locales/<code>.toml`, built into the binary), and how one is chosen:
//! the shipment's `language`, else the reader's `Accept-Language`, else the receiver's country,
//! else English.

use std::{collections::BTreeMap, sync::OnceLock};

/// The languages, English first (the fallback).
pub const LANGUAGES: [&str; 6] = ["en", "da", "sv", "nb", "fi", "de"];

const SOURCES: [(&str, &str); 6] = [
    ("en", include_str!("../../locales/en.toml")),
    ("da", include_str!("../../locales/da.toml")),
    ("sv", include_str!("../../locales/sv.toml")),
    ("nb", include_str!("../../locales/nb.toml")),
    ("fi", include_str!("../../locales/fi.toml")),
    ("de", include_str!("../../locales/de.toml")),
];

/// The words of one language.
#[derive(Debug)]
pub struct Catalogue {
    pub code: &'static str,
    pub words: BTreeMap<String, String>,
}

impl Catalogue {
    /// The text of `key` (empty when missing, which a test rules out for every key English has).
    pub fn get(&self, key: &str) -> &str {
        self.words.get(key).map(String::as_str).unwrap_or_default()
    }
}

/// Every catalogue, in `LANGUAGES` order.
pub fn catalogues() -> &'static [Catalogue] {
    static ALL: OnceLock<Vec<Catalogue>> = OnceLock::new();
    ALL.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(code, source)| Catalogue {
                code,
                // The sources are part of the build and parsed by a test.
                words: toml::from_str(source).unwrap_or_default(),
            })
            .collect()
    })
}

/// The catalogue of `code` (English for any other).
pub fn catalogue(code: &str) -> &'static Catalogue {
    let all = catalogues();
    all.iter().find(|c| c.code == code).unwrap_or(&all[0])
}

/// The language of a receiver in `country` (ISO 3166-1 alpha-2), when it has one of ours.
pub fn of_country(country: &str) -> Option<&'static str> {
    match country.to_ascii_uppercase().as_str() {
        "DK" => Some("da"),
        "SE" => Some("sv"),
        "NO" => Some("nb"),
        "FI" => Some("fi"),
        "DE" | "AT" | "CH" => Some("de"),
        _ => None,
    }
}

/// The first of ours an `Accept-Language` header asks for, by its weights (`no` and `nn` read as
/// Norwegian bokmål, a region ignored: `da-DK` is `da`).
pub fn of_accept_language(header: &str) -> Option<&'static str> {
    let mut asked: Vec<(f32, usize, &str)> = header
        .split(',')
        .enumerate()
        .filter_map(|(n, part)| {
            let mut pieces = part.split(';');
            let tag = pieces.next()?.trim();
            let weight = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())?;
            (weight > 0.0 && !tag.is_empty()).then_some((weight, n, tag))
        })
        .collect();
    // Highest weight first; among equals, the order given.
    asked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    asked.into_iter().find_map(|(_, _, tag)| {
        let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
        let primary = match primary.as_str() {
            "no" | "nn" => "nb",
            other => other,
        };
        LANGUAGES.iter().find(|l| **l == primary).copied()
    })
}

/// The language to write in: the shipment's, else the reader's, else the receiver country's,
/// else English.
pub fn choose(
    shipment: Option<&str>,
    accept_language: Option<&str>,
    country: Option<&str>,
) -> &'static str {
    shipment
        .and_then(|code| LANGUAGES.iter().find(|l| **l == code).copied())
        .or_else(|| accept_language.and_then(of_accept_language))
        .or_else(|| country.and_then(of_country))
        .unwrap_or("en")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogue_has_every_english_key_and_nothing_else() {
        let english: Vec<&String> = catalogues()[0].words.keys().collect();
        assert!(english.len() > 20, "{english:?}");
        for (code, source) in SOURCES {
            let words: BTreeMap<String, String> =
                toml::from_str(source).unwrap_or_else(|e| panic!("{code}: {e}"));
            assert_eq!(words.keys().collect::<Vec<_>>(), english, "{code}");
            assert!(words.values().all(|w| !w.trim().is_empty()), "{code}");
            let placeholders = |w: &str| w.matches('{').count();
            for key in &english {
                assert_eq!(
                    placeholders(&words[*key]),
                    placeholders(catalogue("en").get(key)),
                    "{code}.{key}"
                );
            }
        }
    }

    #[test]
    fn the_shipment_then_the_reader_then_the_country_choose() {
        assert_eq!(choose(Some("fi"), Some("da"), Some("SE")), "fi");
        assert_eq!(choose(None, Some("da-DK,en;q=0.8"), Some("SE")), "da");
        assert_eq!(choose(None, Some("fr-FR, en;q=0.5, de;q=0.9"), None), "de");
        assert_eq!(choose(None, Some("no"), None), "nb");
        assert_eq!(choose(None, Some("fr"), Some("AT")), "de");
        assert_eq!(choose(Some("xx"), None, Some("US")), "en");
        assert_eq!(choose(None, Some("sv;q=0, da;q=0.1"), None), "da");
    }
}
