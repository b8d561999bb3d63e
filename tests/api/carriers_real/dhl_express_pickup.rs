//! MyDHL pickups as the DHL Express replay plays them: each `POST /pickups` is checked against
//! DHL's MyDHL API description (tests/fixtures/carriers/dhl_express, OpenAPI 3.0: JSON Schema
//! draft 4, `additionalProperties: false` throughout) as
//! `supermodelIoLogisticsExpressPickupRequest` and answered with a
//! `supermodelIoLogisticsExpressPickupResponse`; each
//! `DELETE /pickups/{dispatchConfirmationNumber}` needs the `requestorName` and `reason` query
//! parameters the description requires. Every other call is the booking replay's.

use std::sync::OnceLock;

use jsonschema::Draft::Draft4;
use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    RealShop,
    dhl_express::{PREFIX, authorized, config, dhl, problem},
    replay::{Replay, Scenario, Seen, check, schema, text},
    setup,
};
use crate::fixtures::{assert_id, id_of, page_ids};

/// DHL's description (OpenAPI 3.0: JSON Schema draft 4).
const MYDHL: &str = "dhl_express/dpdhl-express-api-2.12.0_swagger_0.yaml";
/// The dispatch confirmation number of the description's example answer.
const CONFIRMATION: &str = "PRG221222000062";
const NOTE: &str = "Ring at the goods entrance";

struct Specs {
    request: jsonschema::Validator,
    answer: jsonschema::Validator,
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| Specs {
        request: schema(MYDHL, "supermodelIoLogisticsExpressPickupRequest", Draft4),
        answer: schema(MYDHL, "supermodelIoLogisticsExpressPickupResponse", Draft4),
    })
}

/// DHL Express with its pickup calls: `/pickups` here, the rest as `dhl` plays it.
fn carrier(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    let Some(rest) = seen
        .path
        .strip_prefix(PREFIX)
        .and_then(|p| p.strip_prefix("/pickups"))
    else {
        return dhl(seen, scenario, v);
    };
    if !authorized(seen) || scenario == Scenario::Unauthorized {
        return (StatusCode::UNAUTHORIZED, Value::Null);
    }
    if seen.headers.get("x-version").is_none() {
        v.push("the x-version header is required".into());
    }
    // The pickup calls' Message-Reference: minLength 28, maxLength 36.
    match seen
        .headers
        .get("message-reference")
        .and_then(|h| h.to_str().ok())
    {
        Some(reference) if (28..=36).contains(&reference.len()) => {}
        other => v.push(format!(
            "Message-Reference {other:?} is not 28..36 characters"
        )),
    }
    match (seen.method.as_str(), rest.strip_prefix('/')) {
        ("POST", None) if rest.is_empty() => book(seen, scenario, v),
        ("DELETE", Some(number)) => cancel(number, seen, scenario, v),
        _ => {
            v.push(format!("no such operation: {} {}", seen.method, seen.path));
            (StatusCode::NOT_FOUND, Value::Null)
        }
    }
}

/// `POST /pickups`.
fn book(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    check(&specs().request, &seen.body, "PickupRequest", v);
    let planned = text(&seen.body, "/plannedPickupDateAndTime", 1, 29, v);
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second] GMT[offset_hour sign:mandatory]:[offset_minute]"
    );
    if time::OffsetDateTime::parse(&planned, &format).is_err() {
        v.push(format!(
            "plannedPickupDateAndTime {planned:?} is not YYYY-MM-DDTHH:MM:SS GMT+hh:mm"
        ));
    }
    match scenario {
        Scenario::Reject => {
            let mut answer = problem(
                400,
                "Bad request",
                "8003: Account not allowed for this service. Please contact your DHL Express representative.",
            );
            answer["instance"] = json!("/expressapi/pickups");
            return (StatusCode::BAD_REQUEST, answer);
        }
        Scenario::Down => {
            let mut answer = problem(
                500,
                "Internal Server Error",
                "999: Process failure occurred.",
            );
            answer["instance"] = json!("/expressapi/pickups");
            return (StatusCode::INTERNAL_SERVER_ERROR, answer);
        }
        _ => {}
    }
    let body = json!({"dispatchConfirmationNumbers": [CONFIRMATION]});
    check(&specs().answer, &body, "the replay's own answer", v);
    (StatusCode::CREATED, body)
}

/// `DELETE /pickups/{dispatchConfirmationNumber}`: 200 without a body.
fn cancel(
    number: &str,
    seen: &Seen,
    scenario: Scenario,
    v: &mut Vec<String>,
) -> (StatusCode, Value) {
    if number.is_empty() || number.contains('/') {
        v.push(format!("{number:?} is not a dispatch confirmation number"));
    }
    for name in ["requestorName", "reason"] {
        if seen.query(name).is_none_or(|value| value.trim().is_empty()) {
            v.push(format!("Missing mandatory parameters: {name}"));
        }
    }
    let instance = format!("/expressapi/pickups/{number}");
    if scenario == Scenario::Down {
        let mut answer = problem(
            500,
            "Internal Server Error",
            "999: Process failure occurred.",
        );
        answer["instance"] = json!(instance);
        return (StatusCode::INTERNAL_SERVER_ERROR, answer);
    }
    if number != CONFIRMATION {
        let mut answer = problem(
            404,
            "Pickup not found",
            "Cancellation of booking was not successful. Requested Pickup was not found",
        );
        answer["instance"] = json!(instance);
        return (StatusCode::NOT_FOUND, answer);
    }
    (StatusCode::OK, Value::Null)
}

/// A shop on the replay with a DHL Express carrier and a booked shipment of two parcels (1 and
/// 2 kg, 30 × 20 × 10 cm): the shop, the carrier and the shipment's id.
async fn booked(replay: &Replay) -> (RealShop, Value, String) {
    let shop = setup(&format!(
        "[carriers]\ndhl_express_url = \"{}{PREFIX}\"\n",
        replay.url
    ))
    .await;
    let carrier = shop.carrier("dhl_express", config("pdf"), "U").await;
    let id = shop.shipment(&carrier, 2).await;
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    (shop, carrier, id)
}

/// A pickup at the shop's address (Glostrup, Denmark) of `shipment`.
fn pickup_body(shop: &RealShop, carrier: &Value, shipment: &str) -> Value {
    json!({
        "carrierId": carrier["id"],
        "date": "2031-03-04",
        "readyFrom": "09:30",
        "readyUntil": "17:00",
        "senderAddressId": id_of(&shop.shop.address),
        "shipmentIds": [shipment],
        "note": NOTE
    })
}

#[tokio::test]
async fn a_pickup_of_a_booked_shipment_is_booked_and_cancelled_with_dhls_number() {
    let replay = Replay::start(carrier).await;
    let (shop, dhl_carrier, shipment) = booked(&replay).await;
    let (app, token) = (&shop.shop.app, &shop.shop.org.token);
    let pickups = format!("/orgs/{}/pickups", shop.shop.org.id);

    let pickup = app
        .post(&pickups, token, pickup_body(&shop, &dhl_carrier, &shipment))
        .await
        .expect(201);
    replay.assert_clean();
    assert_id(&pickup["id"], "pck");
    let id = id_of(&pickup);
    assert_eq!(
        (
            &pickup["status"],
            &pickup["confirmationNumber"],
            &pickup["error"]
        ),
        (&json!("booked"), &json!(CONFIRMATION), &Value::Null)
    );
    assert_eq!(pickup["carrierId"], dhl_carrier["id"]);
    assert_eq!(
        (&pickup["date"], &pickup["readyFrom"], &pickup["readyUntil"]),
        (&json!("2031-03-04"), &json!("09:30"), &json!("17:00"))
    );
    assert_eq!(pickup["shipmentIds"], json!([shipment]));
    assert_eq!(pickup["note"], NOTE);

    let asked = replay
        .requests()
        .into_iter()
        .find(|r| r.method == "POST" && r.path == format!("{PREFIX}/pickups"))
        .expect("DHL was asked for the pickup");
    assert_eq!(
        asked.headers.get("message-reference").unwrap(),
        id.as_str(),
        "DHL logs the request under the pickup's id"
    );
    let body = &asked.body;
    assert_eq!(
        body["plannedPickupDateAndTime"], "2031-03-04T09:30:00 GMT+01:00",
        "ready from 09:30 in Glostrup, on Danish winter time"
    );
    assert_eq!(body["closeTime"], "17:00");
    assert_eq!(
        body["accounts"],
        json!([{"typeCode": "shipper", "number": "123456789"}])
    );
    assert_eq!(body["specialInstructions"], json!([{"value": NOTE}]));
    let shipper = &body["customerDetails"]["shipperDetails"];
    assert_eq!(
        shipper["postalAddress"],
        json!({"postalCode": "2600", "cityName": "Glostrup", "countryCode": "DK",
               "addressLine1": "Industrivej 1", "addressLine2": "Building B"})
    );
    assert_eq!(
        (
            &shipper["contactInformation"]["companyName"],
            &shipper["contactInformation"]["fullName"]
        ),
        (&json!("Main Warehouse"), &json!("Alice Sender"))
    );
    let details = body["shipmentDetails"].as_array().unwrap();
    assert_eq!(details.len(), 1, "one per shipment: {body}");
    assert_eq!(
        (
            &details[0]["productCode"],
            &details[0]["isCustomsDeclarable"],
            &details[0]["unitOfMeasurement"]
        ),
        (&json!("U"), &json!(false), &json!("metric")),
        "Glostrup to Aarhus crosses no customs border"
    );
    let packages = details[0]["packages"].as_array().unwrap();
    let weights: Vec<f64> = packages
        .iter()
        .map(|p| p["weight"].as_f64().unwrap())
        .collect();
    assert_eq!(weights, [1.0, 2.0]);
    assert_eq!(
        packages[0]["dimensions"],
        json!({"length": 30.0, "width": 20.0, "height": 10.0})
    );

    let path = format!("{pickups}/{id}");
    let got = app.get(&path, token).await.expect(200);
    assert_eq!(
        (&got["status"], &got["confirmationNumber"]),
        (&json!("booked"), &json!(CONFIRMATION))
    );
    let list = app.get(&pickups, token).await.expect(200);
    assert_eq!(page_ids(&list), std::slice::from_ref(&id));

    let cancelled = app.delete(&path, token).await.expect(200);
    assert_eq!(cancelled, json!({"message": "pickup cancelled"}));
    let cancelling = replay
        .requests()
        .into_iter()
        .find(|r| r.method == "DELETE")
        .expect("DHL was asked to cancel");
    assert_eq!(cancelling.path, format!("{PREFIX}/pickups/{CONFIRMATION}"));
    assert_eq!(cancelling.query("requestorName"), Some("Alice Sender"));
    assert!(
        cancelling.query("reason").is_some_and(|r| !r.is_empty()),
        "{:?}",
        cancelling.query
    );
    let reference = cancelling
        .headers
        .get("message-reference")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(reference.contains(CONFIRMATION), "{reference}");
    assert_eq!(
        app.get(&path, token).await.expect(200)["status"],
        "cancelled"
    );
    replay.assert_clean();
}

#[tokio::test]
async fn dhls_refusals_are_422_with_its_words_and_its_outages_502() {
    let replay = Replay::start(carrier).await;
    let (shop, dhl_carrier, shipment) = booked(&replay).await;
    let (app, token) = (&shop.shop.app, &shop.shop.org.token);
    let pickups = format!("/orgs/{}/pickups", shop.shop.org.id);
    let body = pickup_body(&shop, &dhl_carrier, &shipment);
    let create = || app.post(&pickups, token, body.clone());
    let detail = |problem: &Value| problem["detail"].as_str().unwrap().to_string();

    replay.set(Scenario::Reject);
    let problem = create().await.problem(422, "carrier_rejected");
    assert!(
        detail(&problem).contains(
            "8003: Account not allowed for this service. Please contact your DHL Express representative."
        ),
        "{problem}"
    );
    replay.set(Scenario::Unauthorized);
    let problem = create().await.problem(422, "carrier_rejected");
    assert!(
        detail(&problem).contains("username and password"),
        "{problem}"
    );
    assert!(
        !problem
            .to_string()
            .contains(config("pdf")["password"].as_str().unwrap())
    );
    replay.set(Scenario::Down);
    let problem = create().await.problem(502, "carrier_unavailable");
    assert!(
        detail(&problem).contains("999: Process failure occurred."),
        "{problem}"
    );
    // DHL booked none of them, so none is kept.
    let list = app.get(&pickups, token).await.expect(200);
    assert!(page_ids(&list).is_empty(), "{list}");

    // A pickup DHL cannot cancel for the moment stays booked, to be cancelled later.
    replay.set(Scenario::Ok);
    let pickup = create().await.expect(201);
    let path = format!("{pickups}/{}", id_of(&pickup));
    replay.set(Scenario::Down);
    let problem = app
        .delete(&path, token)
        .await
        .problem(502, "carrier_unavailable");
    assert!(
        detail(&problem).contains("999: Process failure"),
        "{problem}"
    );
    assert_eq!(app.get(&path, token).await.expect(200)["status"], "booked");
    replay.set(Scenario::Ok);
    app.delete(&path, token).await.expect(200);
    assert_eq!(
        app.get(&path, token).await.expect(200)["status"],
        "cancelled"
    );
    replay.assert_clean();
}

/// POST …/pickups with an `Idempotency-Key`.
async fn send_pickup(shop: &RealShop, key: &str, body: &Value) -> crate::helpers::Reply {
    let app = &shop.shop.app;
    let request = app
        .client
        .post(app.url(&format!("/orgs/{}/pickups", shop.shop.org.id)))
        .bearer_auth(&shop.shop.org.token)
        .header("Idempotency-Key", key)
        .json(body);
    crate::helpers::Reply::read(request.send().await.expect("request")).await
}

#[tokio::test]
async fn a_pickup_dhl_does_not_answer_in_time_is_unknown_asked_once_and_cancelled_here() {
    let replay = Replay::start(carrier).await;
    let shop = setup(&format!(
        "[carriers]\ndhl_express_url = \"{}{PREFIX}\"\ntimeout_seconds = 1\n",
        replay.url
    ))
    .await;
    let dhl_carrier = shop.carrier("dhl_express", config("pdf"), "U").await;
    let shipment = shop.shipment(&dhl_carrier, 1).await;
    shop.shop.app.book_shipment(&shop.shop.org, &shipment).await;
    let before = replay.arrived();
    replay.set_delay(std::time::Duration::from_millis(2500));
    let body = pickup_body(&shop, &dhl_carrier, &shipment);

    let first = send_pickup(&shop, "pickup-1", &body)
        .await
        .problem(504, "carrier_timeout");
    // The same key gets the same answer, and DHL is not asked again.
    let retry = send_pickup(&shop, "pickup-1", &body).await;
    assert_eq!(retry.header("idempotent-replayed"), "true");
    assert_eq!(
        retry.problem(504, "carrier_timeout")["detail"],
        first["detail"]
    );
    super::exactly_once::wait_for_arrivals(&replay, before + 1).await;

    // Kept as unknown, with why; DHL was given the pickup's id as the request's reference.
    let (app, token) = (&shop.shop.app, &shop.shop.org.token);
    let pickups = format!("/orgs/{}/pickups", shop.shop.org.id);
    let list = app.get(&pickups, token).await.expect(200);
    assert_eq!(list["total"], 1, "{list}");
    let pickup = list["data"][0].clone();
    assert_eq!(
        (&pickup["status"], &pickup["confirmationNumber"]),
        (&json!("unknown"), &Value::Null)
    );
    assert!(
        pickup["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{pickup}"
    );
    // The replay records a request once it has answered it (after its delay).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let asked = loop {
        let found = replay
            .requests()
            .into_iter()
            .find(|r| r.method == "POST" && r.path.ends_with("/pickups"));
        match found {
            Some(asked) => break asked,
            None if std::time::Instant::now() > deadline => panic!("DHL was asked for the pickup"),
            None => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    };
    let reference = asked.headers["message-reference"]
        .to_str()
        .unwrap_or_default()
        .to_string();
    assert!(reference.contains(&id_of(&pickup)), "{reference}");

    // Cancelled here only: nothing to cancel at DHL without its number, and the answer says so.
    replay.set_delay(std::time::Duration::ZERO);
    let path = format!("{pickups}/{}", id_of(&pickup));
    let said = app.delete(&path, token).await.expect(200);
    assert!(
        said["message"]
            .as_str()
            .is_some_and(|m| m.contains("check with the carrier")),
        "{said}"
    );
    assert!(
        replay.requests().iter().all(|r| r.method != "DELETE"),
        "no cancel reached DHL"
    );
    assert_eq!(
        app.get(&path, token).await.expect(200)["status"],
        "cancelled"
    );
    replay.assert_clean();
}
