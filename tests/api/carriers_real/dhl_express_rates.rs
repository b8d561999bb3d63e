//! MyDHL rates as the DHL Express replay plays them: each `POST /rates` is checked against
//! DHL's MyDHL API description (tests/fixtures/carriers/dhl_express, OpenAPI 3.0: JSON Schema
//! draft 4 with `additionalProperties: false` throughout) and the rule its prose states (a
//! planned date no more than 10 days ahead, as the shipper's local time); the answer validates
//! against `supermodelIoLogisticsExpressRates`.

use std::sync::OnceLock;

use jsonschema::Draft::Draft4;
use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    dhl_express::problem,
    replay::{Scenario, Seen, check, schema},
};

/// DHL's description (OpenAPI 3.0: JSON Schema draft 4).
const MYDHL: &str = "dhl_express/dpdhl-express-api-2.12.0_swagger_0.yaml";

struct Specs {
    request: jsonschema::Validator,
    answer: jsonschema::Validator,
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| Specs {
        request: schema(MYDHL, "supermodelIoLogisticsExpressRateRequest", Draft4),
        answer: schema(MYDHL, "supermodelIoLogisticsExpressRates", Draft4),
    })
}

/// `POST /rates`.
pub(super) fn rates(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    check(&specs().request, &seen.body, "RateRequest", v);
    let planned = seen.body["plannedShippingDateAndTime"]
        .as_str()
        .unwrap_or_default();
    if !planned.contains("GMT") || planned.len() < 19 {
        v.push(format!(
            "plannedShippingDateAndTime {planned:?} is not YYYY-MM-DDTHH:MM:SS GMT+hh:mm"
        ));
    }
    if scenario == Scenario::Down {
        let mut answer = problem(
            500,
            "Internal Server Error",
            "999: Process failure occurred.",
        );
        answer["instance"] = json!("/expressapi/rates");
        return (StatusCode::INTERNAL_SERVER_ERROR, answer);
    }
    if scenario == Scenario::Reject {
        let mut answer = problem(
            400,
            "Bad request",
            "The account number is not found or invalid for the given origin.",
        );
        answer["instance"] = json!("/expressapi/rates");
        return (StatusCode::BAD_REQUEST, answer);
    }
    let kg: f64 = seen.body["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["weight"].as_f64())
        .sum();
    let products: Vec<Value> = [("P", "EXPRESS WORLDWIDE", 61.4, 2), ("K", "EXPRESS 9:00", 98.0, 1)]
        .iter()
        .map(|(code, name, price, days)| {
            json!({
                "productName": name, "productCode": code, "localProductCode": code,
                "networkTypeCode": "TD", "isCustomerAgreement": false,
                "weight": {"volumetric": 0, "provided": kg, "unitOfMeasurement": "metric"},
                "totalPrice": [
                    {"currencyType": "BILLC", "priceCurrency": "EUR", "price": price},
                    {"currencyType": "PULCL", "priceCurrency": "EUR", "price": price},
                    {"currencyType": "BASEC", "priceCurrency": "USD", "price": price * 1.1}
                ],
                "deliveryCapabilities": {"deliveryTypeCode": "QDDC",
                    "estimatedDeliveryDateAndTime": if *days == 1 { "2026-11-30T09:00:00" } else { "2026-12-01T23:59:00" },
                    "totalTransitDays": days}
            })
        })
        .collect();
    let body = json!({"products": products,
        "exchangeRates": [{"currentExchangeRate": 1.1, "currency": "USD", "baseCurrency": "EUR"}]});
    check(&specs().answer, &body, "the replay's own answer", v);
    (StatusCode::OK, body)
}
