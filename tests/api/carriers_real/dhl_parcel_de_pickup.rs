//! DHL Parcel Germany's pickups against a replay of its Parcel DE Pickup API v3, and its
//! end-of-day close against the Shipping API v2's `POST /manifests`. The replay checks every
//! request against DHL's own OpenAPI descriptions (tests/fixtures/carriers/dhl_parcel_de) with a
//! JSON Schema validator and answers only what their response schemas allow: an access token
//! from DHL's authentication API (OAuth 2 password grant) kept between calls, a pickup order
//! confirmed by its order ID and cancelled by it, refusals, and a close that DHL refuses
//! shipment by shipment. Bookings are played as dhl_parcel_de.rs plays them.

use std::sync::OnceLock;

use base64::{Engine, engine::general_purpose::STANDARD};
use jsonschema::Draft::Draft4;
use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    RealShop,
    dhl_parcel_de::{API_KEY, config, dhl},
    replay::{Replay, Scenario, Seen, check, schema},
    setup,
};
use crate::fixtures::{assert_id, id_of};

const SECRET: &str = "dhl-api-SECRET-789";
const ACCESS_TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.replay-access-token";
const TOKEN: &str = "/parcel/de/account/auth/ropc/v1/token";
const PICKUP: &str = "/parcel/de/transportation/pickup/v3";
const MANIFESTS: &str = "/parcel/de/shipping/v2/manifests";
const BOOKINGS: &str = "/parcel/de/shipping/v2/orders";
/// DHL's order IDs are uuids without hyphens.
const ORDER_ID: &str = "4f6e1c2a9b3d47e8a1c0b2d3e4f5a6b7";
const DATE: &str = "2031-03-04";

struct Specs {
    order: jsonschema::Validator,
    confirmation: jsonschema::Validator,
    refused: jsonschema::Validator,
    order_id: jsonschema::Validator,
    cancelled: jsonschema::Validator,
    manifest: jsonschema::Validator,
    closed: jsonschema::Validator,
    status: jsonschema::Validator,
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| {
        let shipping = "dhl_parcel_de/parcel-de-shipping-v2_2.yaml";
        let named = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});
        // The 422 body is declared at the operation, not among the schemas.
        let refusal = pickup_description()["paths"]["/orders"]["post"]["responses"]["422"]
            ["content"]["application/json; charset=utf-8"]["schema"]
            .clone();
        Specs {
            order: pickup_schema(named("PickupOrder")),
            confirmation: pickup_schema(named("OrderResponse")),
            refused: pickup_schema(refusal),
            order_id: pickup_schema(named("OrderID")),
            cancelled: pickup_schema(named("CancelResult")),
            manifest: schema(shipping, "ShipmentManifestingRequest", Draft4),
            closed: schema(shipping, "MultipleManifestResponse", Draft4),
            status: schema(shipping, "RequestStatus", Draft4),
        }
    })
}

/// The Pickup API's description with its discriminators written out. OpenAPI's
/// `discriminator` picks the one member of a `oneOf` by the `type` property; JSON Schema knows
/// no discriminator, and without it a `FixedDate` (`type` and `value`) is a `PickupASAP` (`type`
/// only) as well, so that no order with a date would pass. Each member is held to its mapping's
/// `type` value instead, which is what the discriminator says.
fn pickup_description() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let path = format!(
            "{}/tests/fixtures/carriers/dhl_parcel_de/parcel-de-pickup-v3.yaml",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut doc: Value = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        discriminate(&mut doc["components"]);
        doc
    })
}

fn discriminate(node: &mut Value) {
    match node {
        Value::Object(map) => {
            if let (Some(Value::Array(members)), Some(discriminator)) =
                (map.get("oneOf").cloned(), map.get("discriminator").cloned())
            {
                let property = discriminator["propertyName"].as_str().unwrap().to_string();
                let mapping = discriminator["mapping"].as_object().unwrap();
                let written: Vec<Value> = members
                    .iter()
                    .map(|member| {
                        let target = member["$ref"].as_str().unwrap();
                        let values: Vec<&String> = mapping
                            .iter()
                            .filter(|(_, to)| to.as_str() == Some(target))
                            .map(|(value, _)| value)
                            .collect();
                        assert!(!values.is_empty(), "{target} has no discriminator value");
                        let mut held = serde_json::Map::new();
                        held.insert(property.clone(), json!({"enum": values}));
                        json!({"allOf": [member, {"properties": held}]})
                    })
                    .collect();
                map.insert("oneOf".into(), Value::Array(written));
                map.remove("discriminator");
            }
            for value in map.values_mut() {
                discriminate(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(discriminate),
        _ => {}
    }
}

/// `schema` (a `$ref` into the Pickup API's schemas, or one that holds such refs) as a validator.
fn pickup_schema(schema: Value) -> jsonschema::Validator {
    let root = json!({
        "allOf": [schema.clone()],
        "components": pickup_description()["components"],
    });
    jsonschema::options()
        .with_draft(Draft4)
        .build(&root)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
}

fn answer(
    status: StatusCode,
    validator: &jsonschema::Validator,
    body: Value,
    v: &mut Vec<String>,
) -> (StatusCode, Value) {
    check(validator, &body, "the replay's own answer", v);
    (status, body)
}

/// DHL as the replay plays it: the authentication API, the Pickup API and the close; the
/// Shipping API's bookings as dhl_parcel_de.rs plays them, each with numbers of its own.
fn dhl_de(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    match (seen.method.as_str(), seen.path.as_str()) {
        ("POST", TOKEN) => token(seen, v),
        (_, path) if path.starts_with(PICKUP) => pickup_api(seen, scenario, v),
        ("POST", MANIFESTS) => close_api(seen, scenario, v),
        ("POST", BOOKINGS) => {
            let (status, mut body) = dhl(seen, scenario, v);
            numbered(&mut body, seen.earlier);
            (status, body)
        }
        _ => dhl(seen, scenario, v),
    }
}

/// The booking replay numbers every order's parcels from 001; DHL numbers no two shipments
/// alike, and the close names them by number. Each order gets numbers of its own here.
fn numbered(body: &mut Value, earlier: usize) {
    let Some(items) = body.get_mut("items").and_then(Value::as_array_mut) else {
        return;
    };
    for item in items {
        let renumbered = item["shipmentNo"]
            .as_str()
            .map(|n| format!("003404341610{:05}{}", earlier + 1, &n[n.len() - 3..]));
        if let Some(number) = renumbered {
            item["shipmentNo"] = json!(number);
        }
    }
}

/// DHL's authentication API: a token for the app's key and secret and the user's credentials,
/// all in a form body.
fn token(seen: &Seen, v: &mut Vec<String>) -> (StatusCode, Value) {
    let content_type = seen
        .headers
        .get("content-type")
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if !content_type.starts_with("application/x-www-form-urlencoded") {
        v.push(format!("the token request is a form, not {content_type:?}"));
    }
    let form: Vec<(String, String)> = url::form_urlencoded::parse(&seen.raw)
        .into_owned()
        .collect();
    let field = |name: &str| {
        form.iter()
            .find(|(k, _)| k == name)
            .map(|(_, value)| value.as_str())
    };
    if field("grant_type") != Some("password") {
        v.push("grant_type=password (DHL's tokens are a password grant)".into());
    }
    let settings = config("pdf");
    let given = [
        ("username", settings["username"].as_str()),
        ("password", settings["password"].as_str()),
        ("client_id", Some(API_KEY)),
        ("client_secret", Some(SECRET)),
    ];
    if given.iter().any(|(name, value)| field(name) != *value) {
        return (
            StatusCode::UNAUTHORIZED,
            json!({"error": "invalid_client", "error_description": "Invalid client or user credentials."}),
        );
    }
    (
        StatusCode::OK,
        json!({"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 1799}),
    )
}

fn pickup_api(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    let bearer = format!("Bearer {ACCESS_TOKEN}");
    let authorization = seen
        .headers
        .get("authorization")
        .and_then(|h| h.to_str().ok());
    // The Pickup API's errors other than 422 have no body in the description.
    if authorization != Some(bearer.as_str()) || scenario == Scenario::Unauthorized {
        return (StatusCode::UNAUTHORIZED, Value::Null);
    }
    if scenario == Scenario::Down {
        return (StatusCode::SERVICE_UNAVAILABLE, Value::Null);
    }
    let orders = format!("{PICKUP}/orders");
    match seen.method.as_str() {
        "POST" if seen.path == orders => order(seen, scenario, v),
        "DELETE" if seen.path == orders => {
            let ids: Vec<&String> = seen
                .query
                .iter()
                .filter(|(k, _)| k == "orderID")
                .map(|(_, id)| id)
                .collect();
            if ids.is_empty() || ids.len() > 100 {
                v.push("orderID: 1 to 100 order IDs".into());
            }
            for id in &ids {
                check(&specs().order_id, &json!(id), "orderID", v);
            }
            let body = if scenario == Scenario::Reject {
                let failed: Vec<Value> = ids
                    .iter()
                    .map(|id| json!({"orderID": id, "orderState": "ABGEHOLT", "message": "The pickup order has already been carried out."}))
                    .collect();
                json!({"confirmedCancellations": [], "failedCancellations": failed})
            } else {
                let done: Vec<Value> = ids
                    .iter()
                    .map(|id| json!({"orderID": id, "orderState": "STORNIERT", "message": "The pickup order was cancelled."}))
                    .collect();
                json!({"confirmedCancellations": done, "failedCancellations": []})
            };
            answer(StatusCode::OK, &specs().cancelled, body, v)
        }
        _ => {
            v.push(format!("no such operation: {} {}", seen.method, seen.path));
            (StatusCode::NOT_FOUND, Value::Null)
        }
    }
}

fn order(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    check(&specs().order, &seen.body, "PickupOrder", v);
    // The schema has them on the order; its examples put them into pickupLocation, which the
    // schema does not forbid, so it is checked here.
    if seen.body.get("businessHours").is_none()
        || seen.body["pickupLocation"].get("businessHours").is_some()
    {
        v.push("businessHours belong on the order (PickupOrder.businessHours)".into());
    }
    if seen.query("validate") == Some("true") {
        v.push("validate=true books nothing".into());
    }
    if scenario == Scenario::Reject {
        let billing = seen.body["customerDetails"]["billingNumber"]
            .as_str()
            .unwrap_or_default();
        return answer(
            StatusCode::UNPROCESSABLE_ENTITY,
            &specs().refused,
            json!([{"errorCode": 456, "title": "Unknown billingnumber", "instance": "customerDetails.billingNumber", "detail": billing}]),
            v,
        );
    }
    let confirmed: Vec<Value> = seen.body["shipmentDetails"]["shipments"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let mut one = json!({"transportationType": s["transportationType"], "orderDate": "2031-03-03T10:15:00"});
            if let Some(number) = s.get("shipmentNo") {
                one["shipmentNo"] = number.clone();
            }
            one
        })
        .collect();
    let date = seen.body["pickupDetails"]["pickupDate"]["value"]
        .as_str()
        .unwrap_or(DATE);
    answer(
        StatusCode::OK,
        &specs().confirmation,
        json!({"confirmation": {"type": "ORDERPICKUP", "value": {
            "orderID": ORDER_ID, "pickupDate": date, "freeOfCharge": true, "pickupType": "EZA",
            "confirmedShipments": confirmed}}}),
        v,
    )
}

/// `POST /manifests`: with the booking's API key and user. `Reject`: DHL refuses the first
/// shipment of each call and closes the others.
fn close_api(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    let settings = config("pdf");
    let basic = format!(
        "Basic {}",
        STANDARD.encode(format!(
            "{}:{}",
            settings["username"].as_str().unwrap(),
            settings["password"].as_str().unwrap()
        ))
    );
    let header = |name: &str| seen.headers.get(name).and_then(|h| h.to_str().ok());
    if header("dhl-api-key") != Some(API_KEY) || header("authorization") != Some(basic.as_str()) {
        return answer(
            StatusCode::UNAUTHORIZED,
            &specs().status,
            json!({"title": "Unauthorized", "statusCode": 401, "status": 401, "detail": "Unauthorized for given resource."}),
            v,
        );
    }
    if scenario == Scenario::Down {
        return answer(
            StatusCode::INTERNAL_SERVER_ERROR,
            &specs().status,
            json!({"title": "Internal Server Error", "statusCode": 500, "status": 500, "detail": "Backend system not reachable."}),
            v,
        );
    }
    check(
        &specs().manifest,
        &seen.body,
        "ShipmentManifestingRequest",
        v,
    );
    if seen.body["profile"] != "STANDARD_GRUPPENPROFIL" {
        v.push("profile: the standard user group profile".into());
    }
    if seen.query("all") == Some("true") {
        v.push("all=true would close every shipment of the account".into());
    }
    let numbers: Vec<&str> = seen.body["shipmentNumbers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if numbers.is_empty() {
        v.push("the close names the shipments it closes".into());
    }
    let items: Vec<Value> = numbers
        .iter()
        .enumerate()
        .map(|(i, number)| {
            if scenario == Scenario::Reject && i == 0 {
                json!({"shipmentNo": number, "sstatus": {"title": "Bad Request", "statusCode": 400, "status": 400,
                       "detail": "Shipment not found or already cancelled."}})
            } else {
                json!({"shipmentNo": number, "sstatus": {"title": "OK", "statusCode": 200, "status": 200}})
            }
        })
        .collect();
    answer(
        StatusCode::MULTI_STATUS,
        &specs().closed,
        json!({"status": {"title": "Multi-Status", "statusCode": 207, "status": 207, "detail": "Multiple shipments were processed."},
               "items": items}),
        v,
    )
}

fn toml(replay: &Replay) -> String {
    format!("[carriers]\ndhl_parcel_de_url = \"{}\"\n", replay.url)
}

/// The booking settings with the app's secret, which pickups need.
fn settings() -> Value {
    let mut settings = config("pdf");
    settings["apiSecret"] = json!(SECRET);
    settings
}

/// A sender address in Bonn; its id.
async fn bonn(shop: &RealShop) -> String {
    let mut warehouse = crate::fixtures::sender_address_body();
    warehouse["name"] = json!("Lager Bonn");
    warehouse["address1"] = json!("Charles-de-Gaulle-Str. 20");
    warehouse["address2"] = json!("Lieferanteneingang");
    warehouse["zipcode"] = json!("53113");
    warehouse["city"] = json!("Bonn");
    warehouse["countryCode"] = json!("DE");
    warehouse["state"] = json!("Nordrhein-Westfalen");
    warehouse["phone"] = json!("+49228123456");
    warehouse["customs"] = json!({"eori": "DE123456789012345"});
    id_of(
        &shop
            .shop
            .app
            .create_sender_address_with(&shop.shop.org, warehouse)
            .await,
    )
}

/// A shipment from `address` to Köln with parcels of `weights`, booked with `carrier`.
async fn booked(shop: &RealShop, carrier: &Value, address: &str, weights: &[f64]) -> Value {
    let mut body = shop.shop.body();
    body["senderAddressId"] = json!(address);
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    body["carrierSettings"]["productId"] = json!("V01PAK");
    body["carrierSettings"]["services"] = json!(["named_person_only"]);
    body["parties"][0]["countryCode"] = json!("DE");
    body["parties"][0]["city"] = json!("Köln");
    body["parties"][0]["postalCode"] = json!("50667");
    body["parties"][0]["address1"] = json!("Hohe Str. 1");
    body["parcels"] = Value::Array(weights.iter().map(|w| json!({"weight": w})).collect());
    let id = id_of(&shop.shop.create(body).await);
    shop.shop.app.book_shipment(&shop.shop.org, &id).await
}

/// The tracking numbers of a shipment's parcels.
fn numbers(shipment: &Value) -> Vec<String> {
    shipment["parcels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["trackingNumber"].as_str().unwrap().to_string())
        .collect()
}

fn pickups_path(shop: &RealShop) -> String {
    format!("/orgs/{}/pickups", shop.shop.org.id)
}

/// The shipment numbers of each close call so far, in order.
fn close_calls(replay: &Replay) -> Vec<Vec<String>> {
    replay
        .requests()
        .iter()
        .filter(|r| r.path == MANIFESTS)
        .map(|r| {
            r.body["shipmentNumbers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn a_pickup_from_germany_is_ordered_with_a_kept_token_and_cancelled_by_its_order_id() {
    let replay = Replay::start(dhl_de).await;
    let shop = setup(&toml(&replay)).await;
    let carrier = shop.carrier("dhl_parcel_de", settings(), "V01PAK").await;
    let address = bonn(&shop).await;
    let first = booked(&shop, &carrier, &address, &[1.5, 2.0]).await;
    let second = booked(&shop, &carrier, &address, &[0.5]).await;
    let pickup = shop
        .shop
        .app
        .post(
            &pickups_path(&shop),
            &shop.shop.org.token,
            json!({"carrierId": carrier["id"], "date": DATE, "readyFrom": "09:00", "readyUntil": "17:30",
                   "senderAddressId": address, "shipmentIds": [first["id"], second["id"]],
                   "note": "Bitte am Lieferanteneingang klingeln."}),
        )
        .await
        .expect(201);
    replay.assert_clean();
    assert_id(&pickup["id"], "pck");
    assert_eq!(
        (
            &pickup["status"],
            &pickup["confirmationNumber"],
            &pickup["date"]
        ),
        (&json!("booked"), &json!(ORDER_ID), &json!(DATE))
    );
    assert_eq!(pickup["shipmentIds"], json!([first["id"], second["id"]]));

    let sent = replay
        .requests()
        .into_iter()
        .find(|r| r.path == format!("{PICKUP}/orders"))
        .unwrap();
    assert_eq!(
        sent.headers
            .get("authorization")
            .and_then(|h| h.to_str().ok()),
        Some(format!("Bearer {ACCESS_TOKEN}").as_str())
    );
    let body = &sent.body;
    let ekp = config("pdf")["ekp"].as_str().unwrap().to_string();
    assert_eq!(
        body["customerDetails"],
        json!({"billingNumber": format!("{ekp}0101")})
    );
    assert_eq!(
        body["pickupLocation"],
        json!({"type": "Address", "pickupAddress": {"name1": "Lager Bonn", "name2": "Lieferanteneingang",
               "addressStreet": "Charles-de-Gaulle-Str.", "addressHouse": "20", "postalCode": "53113",
               "city": "Bonn", "country": "DE"}})
    );
    assert_eq!(
        body["businessHours"],
        json!([{"timeFrom": "09:00", "timeUntil": "17:30"}])
    );
    assert_eq!(
        body["contactPerson"],
        json!([{"name": "Alice Sender", "phone": "+49228123456", "email": "warehouse@example.com"}])
    );
    assert_eq!(
        body["pickupDetails"],
        json!({"pickupDate": {"type": "Date", "value": DATE}, "totalWeight": {"uom": "kg", "value": 4.0},
               "comment": "Bitte am Lieferanteneingang klingeln."})
    );
    // One PAKET per parcel, each with its shipment number: DHL books every parcel as a shipment.
    let parcels: Vec<String> = numbers(&first)
        .into_iter()
        .chain(numbers(&second))
        .collect();
    assert_eq!(parcels.len(), 3);
    let expected: Vec<Value> = parcels
        .iter()
        .map(|n| json!({"transportationType": "PAKET", "replacement": false, "shipmentNo": n, "customerReference": "REF-1001"}))
        .collect();
    assert_eq!(body["shipmentDetails"], json!({"shipments": expected}));

    let path = format!("{}/{}", pickups_path(&shop), id_of(&pickup));
    let cancelled = shop
        .shop
        .app
        .delete(&path, &shop.shop.org.token)
        .await
        .expect(200);
    assert_eq!(cancelled, json!({"message": "pickup cancelled"}));
    let request = replay.requests().pop().unwrap();
    assert_eq!(
        (
            request.method.as_str(),
            request.path.as_str(),
            request.query("orderID")
        ),
        (
            "DELETE",
            format!("{PICKUP}/orders").as_str(),
            Some(ORDER_ID)
        )
    );
    let now = shop
        .shop
        .app
        .get(&path, &shop.shop.org.token)
        .await
        .expect(200);
    assert_eq!(now["status"], "cancelled");
    // One token for both calls, asked with the app's key and secret and the user's credentials.
    let tokens: Vec<Seen> = replay
        .requests()
        .into_iter()
        .filter(|r| r.path == TOKEN)
        .collect();
    assert_eq!(tokens.len(), 1, "the token is kept between calls");
    replay.assert_clean();
}

#[tokio::test]
async fn pickups_dhl_cannot_take_are_refused_and_one_collected_already_stays_booked() {
    let replay = Replay::start(dhl_de).await;
    let shop = setup(&toml(&replay)).await;
    let address = bonn(&shop).await;
    let body = |carrier: &Value, address: &str| {
        json!({"carrierId": carrier["id"], "date": DATE, "readyFrom": "10:00", "readyUntil": "16:00",
               "senderAddressId": address})
    };
    let pickups = pickups_path(&shop);
    let post = |body: Value| shop.shop.app.post(&pickups, &shop.shop.org.token, body);

    // Without the app's secret no token can be had: refused before DHL is asked.
    let without_secret = shop.carrier("dhl_parcel_de", config("pdf"), "V01PAK").await;
    let problem = post(body(&without_secret, &address))
        .await
        .problem(409, "invalid_state");
    assert!(
        problem["detail"].as_str().unwrap().contains("apiSecret"),
        "{problem}"
    );
    // DHL collects in Germany only.
    let carrier = shop.carrier("dhl_parcel_de", settings(), "V01PAK").await;
    let problem = post(body(&carrier, &id_of(&shop.shop.address)))
        .await
        .problem(409, "invalid_state");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("dhl_parcel_de"),
        "{problem}"
    );
    assert!(replay.requests().is_empty(), "DHL was not asked");

    // DHL refuses the order (422): nothing is kept, and the problem gives DHL's words.
    replay.set(Scenario::Reject);
    let problem = post(body(&carrier, &address))
        .await
        .problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("customerDetails.billingNumber: Unknown billingnumber"),
        "{problem}"
    );
    let list = shop
        .shop
        .app
        .get(&pickups, &shop.shop.org.token)
        .await
        .expect(200);
    assert_eq!(list["total"], 0, "{list}");
    // Without shipments DHL is told one parcel of the least weight.
    let sent = replay.requests().pop().unwrap();
    assert_eq!(
        sent.body["shipmentDetails"],
        json!({"shipments": [{"transportationType": "PAKET", "replacement": false}]})
    );
    assert_eq!(
        sent.body["pickupDetails"]["totalWeight"],
        json!({"uom": "kg", "value": 0.1})
    );
    assert!(sent.body["pickupDetails"].get("comment").is_none());

    // Collected already: DHL does not cancel it, and it stays booked until DHL does.
    replay.set(Scenario::Ok);
    let pickup = post(body(&carrier, &address)).await.expect(201);
    let path = format!("{pickups}/{}", id_of(&pickup));
    replay.set(Scenario::Reject);
    let problem = shop
        .shop
        .app
        .delete(&path, &shop.shop.org.token)
        .await
        .problem(422, "carrier_rejected");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("already been carried out") && detail.contains("ABGEHOLT"),
        "{problem}"
    );
    let now = shop
        .shop
        .app
        .get(&path, &shop.shop.org.token)
        .await
        .expect(200);
    assert_eq!(now["status"], "booked");
    replay.set(Scenario::Ok);
    shop.shop
        .app
        .delete(&path, &shop.shop.org.token)
        .await
        .expect(200);
    replay.assert_clean();
}

#[tokio::test]
async fn the_days_close_names_every_parcel_thirty_a_call_and_leaves_out_what_dhl_refuses() {
    let replay = Replay::start(dhl_de).await;
    let shop = setup(&toml(&replay)).await;
    let carrier = shop.carrier("dhl_parcel_de", config("pdf"), "V01PAK").await;
    let address = bonn(&shop).await;
    let first = booked(&shop, &carrier, &address, &[1.0, 2.0]).await;
    let second = booked(&shop, &carrier, &address, &[0.5]).await;
    let manifests = format!("/orgs/{}/manifests", shop.shop.org.id);
    let close = || {
        shop.shop.app.post(
            &manifests,
            &shop.shop.org.token,
            json!({"carrierId": carrier["id"]}),
        )
    };

    // DHL refuses the first shipment of the call: the manifest holds the other, and names the
    // refused one with DHL's words.
    replay.set(Scenario::Reject);
    let manifest = close().await.expect(201);
    replay.assert_clean();
    let calls = close_calls(&replay);
    assert_eq!(calls.len(), 1);
    let mut sent = calls[0].clone();
    sent.sort();
    let mut all: Vec<String> = numbers(&first)
        .into_iter()
        .chain(numbers(&second))
        .collect();
    all.sort();
    assert_eq!(sent, all, "every parcel's number");
    let (refused, kept) = if numbers(&first).contains(&calls[0][0]) {
        (&first, &second)
    } else {
        (&second, &first)
    };
    assert_eq!(
        manifest["refused"],
        json!([{"shipmentId": refused["id"], "trackingNumber": numbers(refused)[0],
                "message": "Shipment not found or already cancelled."}])
    );
    assert_eq!(manifest["shipmentIds"], json!([kept["id"]]));
    assert_eq!(
        (&manifest["shipmentCount"], &manifest["carrierReference"]),
        (&json!(1), &Value::Null)
    );

    // The refused one alone, refused again: no manifest, and DHL's words.
    let problem = close().await.problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("Shipment not found or already cancelled."),
        "{problem}"
    );
    replay.set(Scenario::Down);
    close().await.problem(502, "carrier_unavailable");

    // With thirty parcels more, the close takes two calls: thirty numbers, then the rest.
    replay.set(Scenario::Ok);
    let big = booked(&shop, &carrier, &address, &[1.0; 30]).await;
    let before = close_calls(&replay).len();
    let manifest = close().await.expect(201);
    replay.assert_clean();
    let calls: Vec<Vec<String>> = close_calls(&replay).into_iter().skip(before).collect();
    let sizes: Vec<usize> = calls.iter().map(Vec::len).collect();
    let expected = numbers(refused).len() + 30;
    assert_eq!(sizes, [30, expected - 30]);
    let mut sent: Vec<String> = calls.concat();
    sent.sort();
    let mut all: Vec<String> = numbers(refused).into_iter().chain(numbers(&big)).collect();
    all.sort();
    assert_eq!(sent, all);
    assert_eq!(manifest["refused"], json!([]));
    assert_eq!(manifest["shipmentCount"], 2);
    assert_eq!(manifest["parcelCount"], json!(expected));
    let mut closed: Vec<&str> = manifest["shipmentIds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    closed.sort();
    let mut wanted = vec![refused["id"].as_str().unwrap(), big["id"].as_str().unwrap()];
    wanted.sort();
    assert_eq!(closed, wanted);
}

#[test]
fn the_descriptions_catch_what_dhl_would_refuse() {
    // A billing number too short, an address without its house number and with the country in
    // three letters, a date without its value, a shipment without its transportation type.
    let wrong = json!({"customerDetails": {"billingNumber": "3333"},
        "pickupLocation": {"type": "Address", "pickupAddress": {"name1": "Lager", "addressStreet": "Str.",
            "postalCode": "53113", "city": "Bonn", "country": "DEU"}},
        "pickupDetails": {"pickupDate": {"type": "Date"}},
        "shipmentDetails": {"shipments": [{"shipmentNo": "1"}]}});
    let mut found = Vec::new();
    check(&specs().order, &wrong, "request", &mut found);
    let text = found.join("\n");
    for expected in [
        "/customerDetails/billingNumber",
        "/pickupLocation",
        "/pickupDetails/pickupDate",
        "/shipmentDetails/shipments/0",
    ] {
        assert!(text.contains(expected), "{expected} not found in {text}");
    }
    // And a right one passes: the discriminators hold each member to its type.
    let right = json!({"customerDetails": {"billingNumber": "33333333330101"},
        "pickupLocation": {"type": "Address", "pickupAddress": {"name1": "Lager", "addressStreet": "Str.",
            "addressHouse": "1", "postalCode": "53113", "city": "Bonn", "country": "DE"}},
        "businessHours": [{"timeFrom": "09:00", "timeUntil": "17:00"}],
        "pickupDetails": {"pickupDate": {"type": "Date", "value": DATE}},
        "shipmentDetails": {"shipments": [{"transportationType": "PAKET"}]}});
    let mut found = Vec::new();
    check(&specs().order, &right, "request", &mut found);
    assert!(found.is_empty(), "{found:?}");
    // An order confirmation without its order ID would pass as a validation's confirmation
    // but for the discriminator.
    let mut found = Vec::new();
    check(
        &specs().confirmation,
        &json!({"confirmation": {"type": "ORDERPICKUP", "value": {"pickupDate": DATE,
            "freeOfCharge": true, "pickupType": "EZA"}}}),
        "answer",
        &mut found,
    );
    assert!(
        !found.is_empty(),
        "an order confirmation needs its order ID"
    );
}
