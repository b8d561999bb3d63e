//! PostNord pickups as the PostNord replay plays them: `POST /v3/pickups/ids` ("Book Pickup by
//! item ID", domestic items in SE, DK and FI only) is checked against PostNord's Booking APIs
//! description 3.5.29.1 (tests/fixtures/carriers/postnord, Swagger 2.0: JSON Schema draft 4) as an
//! array of `pickupIdInfo`, and answered with a `bookingResponse`; refusals with its
//! `errorResponse`. PostNord's API cancels nothing: a pickup is cancelled in Shipbase only. Every
//! other call is the booking replay's.

use std::sync::OnceLock;

use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    RealShop,
    postnord::{PREFIX, config, postnord},
    replay::{Replay, Scenario, Seen, check},
    setup,
};
use crate::fixtures::id_of;

const BOOKING_ID: &str = "3YSFH8NG0LNREZO38UIN68B3RRWL4X";

/// A definition of the description, or an array of one, as a JSON Schema.
fn definition(schema: Value) -> jsonschema::Validator {
    let path = format!(
        "{}/tests/fixtures/carriers/postnord/booking-3.5.29.1.swagger.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut root = schema;
    root["definitions"] = doc["definitions"].clone();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&root)
        .unwrap_or_else(|e| panic!("{e}"))
}

struct Specs {
    ids: jsonschema::Validator,
    booking: jsonschema::Validator,
    error: jsonschema::Validator,
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| Specs {
        ids: definition(json!({"type": "array", "minItems": 1,
                               "items": {"$ref": "#/definitions/pickupIdInfo"}})),
        booking: definition(json!({"$ref": "#/definitions/bookingResponse"})),
        error: definition(json!({"$ref": "#/definitions/errorResponse"})),
    })
}

/// PostNord with its pickup call: `/v3/pickups/ids` here, the rest as `postnord` plays it.
fn carrier(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    if seen.path != format!("{PREFIX}/v3/pickups/ids") || seen.query("apikey").is_none() {
        return postnord(seen, scenario, v);
    }
    if seen.method != "POST" {
        v.push(format!(
            "{} is not an operation of /v3/pickups/ids",
            seen.method
        ));
    }
    check(&specs().ids, &seen.body, "pickupIdInfo[]", v);
    for (i, item) in seen.body.as_array().into_iter().flatten().enumerate() {
        for key in ["earliestPickupDate", "latestPickupDate"] {
            let at = item[key].as_str().unwrap_or_default();
            if time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                .is_err()
            {
                v.push(format!("[{i}].{key} {at:?} is not a date-time"));
            }
        }
    }
    let (status, answer) = match scenario {
        Scenario::Reject => (
            StatusCode::BAD_REQUEST,
            json!({"message": "Invalid pickup request",
                   "compositeFault": {"faults": [{"faultCode": "API-005",
                       "explanationText": "Pickup date is a public holiday",
                       "paramValues": [{"param": "earliestPickupDate", "value": "2031-03-04"}]}]}}),
        ),
        Scenario::Down => (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"message": "Service unavailable"}),
        ),
        _ => {
            let ids: Vec<Value> = seen
                .body
                .as_array()
                .into_iter()
                .flatten()
                .map(|item| json!({"status": "OK", "ids": [{"idType": "itemId", "value": item["itemId"]}]}))
                .collect();
            (
                StatusCode::CREATED,
                json!({"bookingId": BOOKING_ID, "idInformation": ids}),
            )
        }
    };
    let what = if status.is_success() {
        "bookingResponse"
    } else {
        "errorResponse"
    };
    let validator = if status.is_success() {
        &specs().booking
    } else {
        &specs().error
    };
    check(validator, &answer, what, v);
    (status, answer)
}

async fn booked(replay: &Replay, parcels: usize) -> (RealShop, Value, String) {
    let shop = setup(&format!(
        "[carriers]\npostnord_url = \"{}{PREFIX}\"\n",
        replay.url
    ))
    .await;
    let carrier = shop.carrier("postnord", config("pdf"), "18").await;
    let id = shop.shipment(&carrier, parcels).await;
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    (shop, carrier, id)
}

fn pickup_body(shop: &RealShop, carrier: &Value, shipments: &[&str]) -> Value {
    json!({
        "carrierId": carrier["id"],
        "date": "2031-03-04",
        "readyFrom": "10:00",
        "readyUntil": "15:30",
        "senderAddressId": id_of(&shop.shop.address),
        "shipmentIds": shipments,
    })
}

#[tokio::test]
async fn a_pickup_names_each_booked_parcel_and_is_cancelled_here_only() {
    let replay = Replay::start(carrier).await;
    let (shop, postnord_carrier, shipment) = booked(&replay, 2).await;
    let (app, token) = (&shop.shop.app, &shop.shop.org.token);
    let pickups = format!("/orgs/{}/pickups", shop.shop.org.id);
    let pickup = app
        .post(
            &pickups,
            token,
            pickup_body(&shop, &postnord_carrier, &[&shipment]),
        )
        .await
        .expect(201);
    assert_eq!(
        (&pickup["status"], &pickup["confirmationNumber"]),
        (&json!("booked"), &json!(BOOKING_ID))
    );
    let asked = replay
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/v3/pickups/ids"))
        .expect("PostNord was asked");
    let numbers: Vec<Value> = shop.shop.get(&shipment).await["parcels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["trackingNumber"].clone())
        .collect();
    let items = asked.body.as_array().unwrap();
    assert_eq!(
        items
            .iter()
            .map(|i| i["itemId"].clone())
            .collect::<Vec<_>>(),
        numbers
    );
    // Glostrup, Denmark: 10:00 and 15:30 local on 4 March, UTC+1.
    assert_eq!(items[0]["earliestPickupDate"], "2031-03-04T10:00:00+01:00");
    assert_eq!(items[0]["latestPickupDate"], "2031-03-04T15:30:00+01:00");

    let path = format!("{pickups}/{}", id_of(&pickup));
    let said = app.delete(&path, token).await.expect(200);
    assert_eq!(
        said["message"],
        format!(
            "pickup cancelled here; postnord takes no cancellations through its API, so call it to cancel booking {BOOKING_ID}"
        )
    );
    assert_eq!(
        app.get(&path, token).await.expect(200)["status"],
        "cancelled"
    );
    let calls = replay
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/v3/pickups/ids"))
        .count();
    assert_eq!(calls, 1, "nothing was sent to cancel");
    replay.assert_clean();
}

#[tokio::test]
async fn postnord_needs_booked_domestic_parcels_and_its_refusals_keep_nothing() {
    let replay = Replay::start(carrier).await;
    let (shop, postnord_carrier, shipment) = booked(&replay, 1).await;
    let (app, token) = (&shop.shop.app, &shop.shop.org.token);
    let pickups = format!("/orgs/{}/pickups", shop.shop.org.id);

    let problem = app
        .post(&pickups, token, pickup_body(&shop, &postnord_carrier, &[]))
        .await
        .expect(400);
    assert_eq!(problem["errors"][0]["field"], "shipmentIds", "{problem}");

    replay.set(Scenario::Reject);
    let problem = app
        .post(
            &pickups,
            token,
            pickup_body(&shop, &postnord_carrier, &[&shipment]),
        )
        .await
        .problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("Pickup date is a public holiday")),
        "{problem}"
    );
    replay.set(Scenario::Down);
    app.post(
        &pickups,
        token,
        pickup_body(&shop, &postnord_carrier, &[&shipment]),
    )
    .await
    .problem(502, "carrier_unavailable");
    let list = app.get(&pickups, token).await.expect(200);
    assert_eq!(list["total"], 0, "{list}");
    replay.assert_clean();
}
