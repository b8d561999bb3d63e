//! UPS Rating and Address Validation as the UPS replay plays them: each rate request is checked
//! against UPS's Rating.yaml (`RATERequestWrapper`, JSON Schema 2020-12 as the other UPS
//! schemas) and what its prose asks (the request option in the path and the body agree; abroad,
//! time in transit needs the total weight and the invoice total), each address against
//! AddressValidation.yaml (`XAVRequestWrapper`); the answers validate against the response
//! schemas.

use std::sync::OnceLock;

use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    replay::{Seen, check},
    ups::{ACCOUNT, answer, schema},
};

struct Specs {
    request: jsonschema::Validator,
    answer: jsonschema::Validator,
    address: jsonschema::Validator,
    verdict: jsonschema::Validator,
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| Specs {
        request: schema("Rating.yaml", "RATERequestWrapper"),
        answer: schema("Rating.yaml", "RATEResponseWrapper"),
        address: schema("AddressValidation.yaml", "XAVRequestWrapper"),
        verdict: schema("AddressValidation.yaml", "XAVResponseWrapper"),
    })
}

/// `POST /api/rating/v2409/{option}`.
pub(super) fn rating(seen: &Seen, option: &str, v: &mut Vec<String>) -> (StatusCode, Value) {
    check(&specs().request, &seen.body, "RATERequestWrapper", v);
    if !["Rate", "Shop", "Ratetimeintransit", "Shoptimeintransit"].contains(&option) {
        v.push(format!("{option:?} is not a request option"));
    }
    let request = &seen.body["RateRequest"];
    if request["Request"]["RequestOption"] != option {
        v.push("Request.RequestOption must be the path's request option".into());
    }
    let shipment = &request["Shipment"];
    if shipment["Shipper"]["ShipperNumber"] != ACCOUNT {
        v.push("Shipper.ShipperNumber must be the account (negotiated rates)".into());
    }
    let in_transit = option.ends_with("timeintransit");
    let international = shipment["ShipTo"]["Address"]["CountryCode"]
        != shipment["ShipFrom"]["Address"]["CountryCode"];
    if in_transit && shipment.get("DeliveryTimeInformation").is_none() {
        v.push("DeliveryTimeInformation is required for time in transit".into());
    }
    if in_transit && international {
        for needed in ["ShipmentTotalWeight", "InvoiceLineTotal"] {
            if shipment.get(needed).is_none() {
                v.push(format!("{needed} is required abroad with time in transit"));
            }
        }
    }
    let date = shipment["DeliveryTimeInformation"]["Pickup"]["Date"]
        .as_str()
        .unwrap_or("20261127");
    let rated: Vec<Value> = [
        ("11", "20.50", Some("15.10"), 3),
        ("65", "41.00", None, 1),
        ("07", "58.20", None, 1),
    ]
    .iter()
    .map(|(code, published, negotiated, days)| {
        let money = |value: &str| json!({"CurrencyCode": "EUR", "MonetaryValue": value});
        let mut rated = json!({
            "Service": {"Code": code},
            "BillingWeight": {"UnitOfMeasurement": {"Code": "KGS", "Description": "Kilograms"}, "Weight": "2.0"},
            "TransportationCharges": money(published),
            "ServiceOptionsCharges": money("0.00"),
            "TotalCharges": money(published),
            "RatedPackage": [{"Weight": "2.0"}],
            "GuaranteedDelivery": {"BusinessDaysInTransit": days.to_string()},
        });
        if let Some(value) = negotiated {
            rated["NegotiatedRateCharges"] = json!({"TotalCharge": money(value)});
        }
        if in_transit {
            rated["TimeInTransit"] = json!({"PickupDate": date, "ServiceSummary": {
                "Service": {"Description": "UPS"},
                "EstimatedArrival": {"Arrival": {"Date": "20261202"}, "Pickup": {"Date": date},
                                     "DayOfWeek": "WED", "BusinessDaysInTransit": days.to_string()}}});
        }
        rated
    })
    .collect();
    answer(
        StatusCode::OK,
        &specs().answer,
        json!({"RateResponse": {
            "Response": {"ResponseStatus": {"Code": "1", "Description": "Success"}},
            "RatedShipment": rated}}),
        v,
    )
}

/// `POST /api/addressvalidation/v2/{option}`: 1 validation, 2 classification, 3 both. The
/// replay knows one street in Aliso Viejo; "Aliso Viejo Pkwy" without a number is ambiguous.
pub(super) fn address_validation(
    seen: &Seen,
    option: &str,
    v: &mut Vec<String>,
) -> (StatusCode, Value) {
    check(&specs().address, &seen.body, "XAVRequestWrapper", v);
    if !["1", "2", "3"].contains(&option) {
        v.push(format!("{option:?} is not a request option (1, 2 or 3)"));
    }
    if let Some(size) = seen.query("maximumcandidatelistsize")
        && !size.parse::<u32>().is_ok_and(|n| n <= 50)
    {
        v.push(format!("maximumcandidatelistsize {size:?} is not 0..50"));
    }
    let key = &seen.body["XAVRequest"]["AddressKeyFormat"];
    if !["US", "PR"].contains(&key["CountryCode"].as_str().unwrap_or_default()) {
        v.push("street-level validation covers the US and Puerto Rico only".into());
    }
    let line = key["AddressLine"][0]
        .as_str()
        .unwrap_or_default()
        .to_uppercase();
    let known = json!({"AddressClassification": {"Code": "1", "Description": "Commercial"},
        "AddressKeyFormat": {"AddressLine": ["26601 ALISO VIEJO PKWY"], "PoliticalDivision2": "ALISO VIEJO",
            "PoliticalDivision1": "CA", "PostcodePrimaryLow": "92656", "PostcodeExtendedLow": "3121", "CountryCode": "US"}});
    let mut response =
        json!({"Response": {"ResponseStatus": {"Code": "1", "Description": "Success"}}});
    if line == "26601 ALISO VIEJO PKWY" {
        response["ValidAddressIndicator"] = json!("");
        response["Candidate"] = json!([known]);
    } else if line.contains("ALISO VIEJO PKWY") {
        response["AmbiguousAddressIndicator"] = json!("");
        let mut other = known.clone();
        other["AddressKeyFormat"]["AddressLine"] = json!(["26602 ALISO VIEJO PKWY"]);
        response["Candidate"] = json!([known, other]);
    } else {
        response["NoCandidatesIndicator"] = json!("");
    }
    answer(
        StatusCode::OK,
        &specs().verdict,
        json!({"XAVResponse": response}),
        v,
    )
}
