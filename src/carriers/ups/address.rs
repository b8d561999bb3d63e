//! UPS Address Validation – Street Level (`POST /api/addressvalidation/v2/3`, from UPS's
//! AddressValidation.yaml): validation and classification of an address in the United States or
//! Puerto Rico (the only countries UPS's street-level check covers), with UPS's candidates.

use serde_json::{Value, json};

use crate::{
    carriers::{AddressVerdict, wire::cut},
    model::{
        address_check::{AddressCandidate, AddressCheckIn},
        region,
    },
};

/// The countries UPS validates street addresses in.
pub(super) const COUNTRIES: [&str; 2] = ["US", "PR"];

pub(super) fn request(address: &AddressCheckIn) -> Value {
    let lines: Vec<String> = [Some(address.address1.as_str()), address.address2.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| cut(l, 35))
        .collect();
    let digits: String = address
        .postal_code
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let mut key = json!({
        "AddressLine": lines,
        "PoliticalDivision2": cut(address.city.trim(), 30),
        "PostcodePrimaryLow": cut(digits.get(..5).unwrap_or(&digits), 10),
        "CountryCode": address.country_code,
    });
    if digits.len() == 9 {
        key["PostcodeExtendedLow"] = json!(&digits[5..]);
    }
    if let Some(state) = region::of(&address.country_code, &address.postal_code) {
        key["PoliticalDivision1"] = json!(state);
    }
    if let Some(name) = address.name.as_deref().filter(|n| !n.trim().is_empty()) {
        key["ConsigneeName"] = json!(cut(name.trim(), 40));
    }
    json!({"XAVRequest": {"AddressKeyFormat": key}})
}

/// UPS's verdict: its indicators (present or not) and its candidates.
pub(super) fn verdict(answer: &Value) -> AddressVerdict {
    let response = &answer["XAVResponse"];
    let result = if response.get("ValidAddressIndicator").is_some() {
        "valid"
    } else if response.get("AmbiguousAddressIndicator").is_some() {
        "ambiguous"
    } else {
        "no_candidates"
    };
    let candidates = match &response["Candidate"] {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        one => vec![one],
    };
    AddressVerdict {
        result,
        candidates: candidates.into_iter().map(candidate).collect(),
    }
}

fn candidate(c: &Value) -> AddressCandidate {
    let key = &c["AddressKeyFormat"];
    let text = |name: &str| key[name].as_str().unwrap_or_default().to_string();
    let lines: Vec<String> = match &key["AddressLine"] {
        Value::Array(items) => items
            .iter()
            .filter_map(|l| l.as_str().map(str::to_string))
            .collect(),
        Value::String(line) => vec![line.clone()],
        _ => Vec::new(),
    };
    let extended = text("PostcodeExtendedLow");
    let postal_code = if extended.is_empty() {
        text("PostcodePrimaryLow")
    } else {
        format!("{}-{extended}", text("PostcodePrimaryLow"))
    };
    AddressCandidate {
        address1: lines.first().cloned().unwrap_or_default(),
        address2: (lines.len() > 1).then(|| lines[1..].join(", ")),
        postal_code,
        city: text("PoliticalDivision2"),
        state: Some(text("PoliticalDivision1")).filter(|s| !s.is_empty()),
        country_code: text("CountryCode"),
        classification: match c["AddressClassification"]["Code"].as_str() {
            Some("1") => Some("commercial".into()),
            Some("2") => Some("residential".into()),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_carries_the_zip_split_and_the_state_it_names() {
        let address = AddressCheckIn {
            name: Some("Jane Receiver".into()),
            address1: "26601 Aliso Viejo Pkwy".into(),
            address2: None,
            postal_code: "92656-3121".into(),
            city: "Aliso Viejo".into(),
            country_code: "US".into(),
            carrier_id: None,
        };
        assert_eq!(
            request(&address),
            json!({"XAVRequest": {"AddressKeyFormat": {
                "AddressLine": ["26601 Aliso Viejo Pkwy"], "PoliticalDivision2": "Aliso Viejo",
                "PostcodePrimaryLow": "92656", "PostcodeExtendedLow": "3121", "PoliticalDivision1": "CA",
                "CountryCode": "US", "ConsigneeName": "Jane Receiver"}}})
        );
    }

    #[test]
    fn indicators_and_candidates_become_the_verdict() {
        let answer = json!({"XAVResponse": {"Response": {"ResponseStatus": {"Code": "1", "Description": "Success"}},
            "AmbiguousAddressIndicator": "",
            "Candidate": [{"AddressClassification": {"Code": "2", "Description": "Residential"},
                "AddressKeyFormat": {"AddressLine": ["26601 ALISO VIEJO PKWY"], "PoliticalDivision2": "ALISO VIEJO",
                    "PoliticalDivision1": "CA", "PostcodePrimaryLow": "92656", "PostcodeExtendedLow": "3121", "CountryCode": "US"}}]}});
        let verdict = verdict(&answer);
        assert_eq!(verdict.result, "ambiguous");
        assert_eq!(
            verdict.candidates[0],
            AddressCandidate {
                address1: "26601 ALISO VIEJO PKWY".into(),
                address2: None,
                postal_code: "92656-3121".into(),
                city: "ALISO VIEJO".into(),
                state: Some("CA".into()),
                country_code: "US".into(),
                classification: Some("residential".into()),
            }
        );
    }
}
