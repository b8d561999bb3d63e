//! What a shipment can be found by (search by receiver and tracking number, the
//! carrier filter, scanning a tracking number): its search terms, and a search's words.

use std::collections::BTreeSet;

use super::ShipmentBody;

/// The words of a search, as terms are written: lowercased, split at spaces; at most 5, each
/// at most 100 characters.
pub fn words(search: &str) -> Vec<String> {
    search
        .split_whitespace()
        .map(|w| w.to_lowercase().chars().take(100).collect())
        .take(5)
        .collect()
}

impl ShipmentBody {
    /// The terms this body is found by: the receiver's name words, e-mail and postal code, each
    /// tracking number (lowercased, matched by prefix).
    pub fn search_terms(&self) -> BTreeSet<String> {
        let mut terms = BTreeSet::new();
        for party in self.parties.iter().filter(|p| p.kind == "receiver") {
            terms.extend(words(&party.name));
            terms.extend(party.email.iter().flat_map(|e| words(e)));
            terms.extend(words(&party.postal_code));
        }
        let numbers = self
            .parcels
            .iter()
            .filter_map(|p| p.tracking_number.as_deref())
            .chain(self.tracking.as_ref().and_then(|t| t.number.as_deref()));
        for number in numbers {
            terms.extend(words(number));
        }
        terms.retain(|t| !t.is_empty());
        terms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_is_lowercased_words() {
        assert_eq!(words("  Åse  NIELSEN "), ["åse", "nielsen"]);
        assert_eq!(words("a b c d e f g").len(), 5);
        assert!(words("   ").is_empty());
    }
}
