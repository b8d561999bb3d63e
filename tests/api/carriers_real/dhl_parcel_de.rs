//! The DHL Parcel Germany adapter against a replay of its Shipping API v2 and Returns API that
//! checks every request against DHL's own OpenAPI descriptions (tests/fixtures/carriers/
//! dhl_parcel_de) with a JSON Schema validator, and answers only what their response schemas
//! allow: a label per parcel (PDF or ZPL), customs details abroad, a partly refused order
//! cancelled again, returns labels, cancelling, refusals, outages and timeouts.

use std::sync::OnceLock;

use base64::{Engine, engine::general_purpose::STANDARD};
use jsonschema::Draft::Draft4;
use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    replay::{Replay, Scenario, Seen, check, pdf, schema, zpl},
    setup,
};
use crate::fixtures::id_of;

pub(super) const API_KEY: &str = "dhl-api-KEY-123";
const USER: &str = "user-valid";
const PASSWORD: &str = "SandboxPasswort2023!";
const EKP: &str = "3333333333";
const SHIPPING: &str = "/parcel/de/shipping/v2";
const RETURNS: &str = "/parcel/de/shipping/returns/v1";

struct Specs {
    order: jsonschema::Validator,
    labels: jsonschema::Validator,
    status: jsonschema::Validator,
    return_order: jsonschema::Validator,
    return_answer: jsonschema::Validator,
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| {
        let shipping = "dhl_parcel_de/parcel-de-shipping-v2_2.yaml";
        let returns = "dhl_parcel_de/pp-parcel-returns.yaml";
        Specs {
            order: schema(shipping, "ShipmentOrderRequest", Draft4),
            labels: schema(shipping, "LabelDataResponse", Draft4),
            status: schema(shipping, "RequestStatus", Draft4),
            return_order: schema(returns, "ReturnOrder", Draft4),
            return_answer: schema(returns, "ReturnOrderConfirmation", Draft4),
        }
    })
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

fn ok_status(code: u16) -> Value {
    json!({"title": "OK", "statusCode": code, "status": code})
}

/// DHL Parcel Germany as the replay plays it.
pub(super) fn dhl(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    if super::dhl_parcel_de_tracking::is_tracking(seen) {
        return super::dhl_parcel_de_tracking::tracking(seen, scenario, v);
    }
    let basic = format!("Basic {}", STANDARD.encode(format!("{USER}:{PASSWORD}")));
    let header = |name: &str| seen.headers.get(name).and_then(|h| h.to_str().ok());
    if header("dhl-api-key") != Some(API_KEY)
        || header("authorization") != Some(basic.as_str())
        || scenario == Scenario::Unauthorized
    {
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
    match (seen.method.as_str(), seen.path.as_str()) {
        ("POST", path) if path == format!("{SHIPPING}/orders") => orders(seen, scenario, v),
        ("DELETE", path) if path == format!("{SHIPPING}/orders") => {
            if seen.query("profile") != Some("STANDARD_GRUPPENPROFIL") {
                v.push("profile is required".into());
            }
            let numbers: Vec<&String> = seen
                .query
                .iter()
                .filter(|(k, _)| k == "shipment")
                .map(|(_, n)| n)
                .collect();
            if numbers.is_empty() || numbers.len() > 30 {
                v.push("1 to 30 shipment numbers".into());
            }
            let refused = scenario == Scenario::Reject;
            let items: Vec<Value> = numbers
                .iter()
                .map(|n| {
                    if refused {
                        json!({"shipmentNo": n, "sstatus": {"title": "Bad Request", "statusCode": 400, "status": 400},
                               "validationMessages": [{"validationMessage": "The shipment has already been manifested.", "validationState": "Error"}]})
                    } else {
                        json!({"shipmentNo": n, "sstatus": ok_status(200)})
                    }
                })
                .collect();
            let status = if numbers.len() > 1 {
                StatusCode::MULTI_STATUS
            } else {
                StatusCode::OK
            };
            answer(
                status,
                &specs().labels,
                json!({"status": ok_status(status.as_u16()), "items": items}),
                v,
            )
        }
        ("POST", path) if path == format!("{RETURNS}/orders") => {
            check(&specs().return_order, &seen.body, "ReturnOrder", v);
            if seen.query("labelType") != Some("SHIPMENT_LABEL") {
                v.push("labelType SHIPMENT_LABEL asked for".into());
            }
            answer(
                StatusCode::CREATED,
                &specs().return_answer,
                json!({"sstatus": {"title": "Created", "status": 201, "detail": "Created"},
                       "shipmentNo": "999991587211", "label": {"b64": STANDARD.encode(pdf("return"))},
                       "routingCode": "40327653113+99000933090010"}),
                v,
            )
        }
        _ => {
            v.push(format!("no such operation: {} {}", seen.method, seen.path));
            (StatusCode::NOT_FOUND, Value::Null)
        }
    }
}

fn orders(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    check(&specs().order, &seen.body, "ShipmentOrderRequest", v);
    let format = seen.query("docFormat").unwrap_or("PDF");
    if !["PDF", "ZPL2"].contains(&format) || seen.query("includeDocs") != Some("include") {
        v.push("docFormat PDF or ZPL2 with includeDocs=include".into());
    }
    // What the description asks in words: the billing number's product digits.
    let shipments = seen.body["shipments"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (i, s) in shipments.iter().enumerate() {
        let product = s["product"].as_str().unwrap_or_default();
        let billing = s["billingNumber"].as_str().unwrap_or_default();
        let digits = match product {
            "V01PAK" => "01",
            "V53WPAK" => "53",
            "V54EPAK" => "54",
            "V62WP" | "V62KP" => "62",
            "V66WPI" => "66",
            _ => "",
        };
        if billing.len() != 14 || !billing.starts_with(EKP) || &billing[10..12] != digits {
            v.push(format!(
                "shipments[{i}].billingNumber {billing:?} is not for {product}"
            ));
        }
        for required in [
            "/shipper/name1",
            "/consignee/name1",
            "/details/weight/value",
        ] {
            if s.pointer(required).is_none() {
                v.push(format!("shipments[{i}]{required} is needed"));
            }
        }
        let outside = ["CHE", "GBR", "NOR", "USA"]
            .contains(&s["consignee"]["country"].as_str().unwrap_or_default());
        if outside && s.get("customs").is_none() {
            v.push(format!(
                "shipments[{i}]: customs details are needed outside the EU"
            ));
        }
    }
    if scenario == Scenario::Reject {
        return answer(
            StatusCode::BAD_REQUEST,
            &specs().labels,
            json!({"status": {"title": "Bad Request", "statusCode": 400, "status": 400, "detail": "An error occurred."},
                   "items": [{"sstatus": {"title": "Bad Request", "statusCode": 400, "status": 400},
                              "validationMessages": [{"property": "shipper.postalCode", "validationMessage": "Please enter a valid zip code.", "validationState": "Error"}]}]}),
            v,
        );
    }
    let items: Vec<Value> = shipments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let kg = s["details"]["weight"]["value"].as_f64().unwrap_or(0.0);
            if kg > 31.5 {
                return json!({"sstatus": {"title": "Bad Request", "statusCode": 400, "status": 400},
                    "validationMessages": [{"property": "details.weight", "validationMessage": "The weight is too high", "validationState": "Error"}]});
            }
            let number = format!("00340434161094042{:03}", i + 1);
            let label = if format == "ZPL2" {
                json!({"zpl2": String::from_utf8(zpl(&number)).unwrap(), "fileFormat": "ZPL2"})
            } else {
                json!({"b64": STANDARD.encode(pdf(&number)), "fileFormat": "PDF", "printFormat": "910-300-700"})
            };
            json!({"shipmentNo": number, "routingCode": "40327653113+99000933090010",
                   "sstatus": ok_status(200), "label": label, "validationMessages": []})
        })
        .collect();
    let status = if items.len() > 1 {
        StatusCode::MULTI_STATUS
    } else {
        StatusCode::OK
    };
    answer(
        status,
        &specs().labels,
        json!({"status": {"title": "OK", "statusCode": status.as_u16(), "status": status.as_u16(), "detail": "The Webservice call ran successfully."},
               "items": items}),
        v,
    )
}

pub(super) fn config(format: &str) -> Value {
    json!({"apiKey": API_KEY, "username": USER, "password": PASSWORD, "ekp": EKP,
           "returnsReceiverId": "deu", "sandbox": "true", "labelFormat": format})
}

fn toml(replay: &Replay, extra: &str) -> String {
    format!(
        "[carriers]\ndhl_parcel_de_url = \"{}\"\n{extra}",
        replay.url
    )
}

/// A pending shipment from the shop to Bonn with `parcels` (their weights).
pub(super) async fn shipment(
    shop: &super::RealShop,
    carrier: &Value,
    product: &str,
    weights: &[f64],
) -> (String, Value) {
    let mut body = shop.shop.body();
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    body["carrierSettings"]["productId"] = json!(product);
    body["carrierSettings"]["services"] = json!(["named_person_only", "visual_check_of_age_18"]);
    body["parties"][0]["countryCode"] = json!("DE");
    body["parties"][0]["city"] = json!("Bonn");
    body["parties"][0]["postalCode"] = json!("53113");
    body["parties"][0]["address1"] = json!("Kurt-Schumacher-Str. 20");
    body["parcels"] = Value::Array(
        weights
            .iter()
            .map(
                |w| json!({"weight": w, "dimensions": {"length": 30.5, "width": 20, "height": 10}}),
            )
            .collect(),
    );
    (id_of(&shop.shop.create(body.clone()).await), body)
}

#[tokio::test]
async fn books_each_parcel_with_dhls_label_and_cancels_a_partly_refused_order() {
    let replay = Replay::start(dhl).await;
    let shop = setup(&toml(&replay, "")).await;
    for (format, parcels) in [("pdf", 2usize), ("zpl", 1)] {
        let carrier = shop
            .carrier("dhl_parcel_de", config(format), "V01PAK")
            .await;
        assert_eq!(
            (&carrier["config"]["apiKey"], &carrier["config"]["password"]),
            (&json!("********"), &json!("********"))
        );
        let weights: Vec<f64> = (0..parcels).map(|i| 1.5 + i as f64).collect();
        let (id, _) = shipment(&shop, &carrier, "V01PAK", &weights).await;
        let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
        replay.assert_clean();
        let expected: Vec<String> = (1..=parcels)
            .map(|n| format!("00340434161094042{n:03}"))
            .collect();
        let numbers: Vec<&str> = booked["parcels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["trackingNumber"].as_str().unwrap())
            .collect();
        assert_eq!(numbers, expected);
        let labels = booked["documents"].as_array().unwrap();
        assert_eq!(labels.len(), parcels);
        for (label, number) in labels.iter().zip(&expected) {
            assert_eq!(label["format"], format);
            let content = STANDARD.decode(label["content"].as_str().unwrap()).unwrap();
            assert_eq!(
                content,
                if format == "zpl" {
                    zpl(number)
                } else {
                    pdf(number)
                }
            );
        }
        let request = replay.requests().pop().unwrap();
        assert_eq!(
            request.query("docFormat"),
            Some(if format == "zpl" { "ZPL2" } else { "PDF" })
        );
        let sent = &request.body["shipments"][0];
        assert_eq!(sent["billingNumber"], format!("{EKP}0101"));
        assert_eq!(sent["consignee"]["country"], "DEU");
        assert_eq!(
            sent["consignee"]["addressStreet"],
            "Kurt-Schumacher-Str. 20"
        );
        assert_eq!(
            sent["details"],
            json!({"weight": {"uom": "kg", "value": 1.5}, "dim": {"uom": "cm", "length": 31, "width": 20, "height": 10}})
        );
        assert_eq!(
            sent["services"],
            json!({"namedPersonOnly": true, "visualCheckOfAge": "A18"})
        );
        assert_eq!(sent["refNo"], "REF-1001");
        assert!(
            sent["consignee"].get("phone").is_none(),
            "no phone within Germany"
        );
    }

    // Two parcels, DHL refuses the second (too heavy): the first is cancelled again, nothing
    // is stored, and the problem says why.
    let carrier = shop.carrier("dhl_parcel_de", config("pdf"), "V01PAK").await;
    let (id, _) = shipment(&shop, &carrier, "V01PAK", &[2.0, 40.0]).await;
    let problem = shop
        .shop
        .post(&id, "/book", json!({}))
        .await
        .problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("details.weight: The weight is too high"),
        "{problem}"
    );
    let cancel = replay.requests().pop().unwrap();
    assert_eq!(
        (cancel.method.as_str(), cancel.query("shipment")),
        ("DELETE", Some("00340434161094042001"))
    );
    let shipment_now = shop.shop.get(&id).await;
    assert_eq!(
        (&shipment_now["status"], &shipment_now["documents"]),
        (&json!("pending"), &json!([]))
    );
    replay.assert_clean();
}

#[tokio::test]
async fn goods_leaving_the_customs_union_carry_customs_details_and_returns_get_a_returns_label() {
    let replay = Replay::start(dhl).await;
    let shop = setup(&toml(&replay, "")).await;
    let carrier = shop
        .carrier("dhl_parcel_de", config("pdf"), "V53WPAK")
        .await;
    let (_, mut body) = shipment(&shop, &carrier, "V53WPAK", &[2.0]).await;
    body["parties"][0]["countryCode"] = json!("CH");
    body["parties"][0]["city"] = json!("Zürich");
    body["parties"][0]["postalCode"] = json!("8001");
    body["parcels"] = json!([{"weight": 2.0, "orderLines": [
        {"sku": "TS-1", "quantity": 3, "description": "Cotton T-shirt", "unitPrice": 19.99, "currency": "EUR",
         "countryOfOrigin": "PT", "tarrifNumber": "6109.10"},
        {"sku": "MUG-7", "quantity": 1, "unitPrice": 12.5, "currency": "EUR", "countryOfOrigin": "DE"}]}]);
    let id = id_of(&shop.shop.create(body).await);
    let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    replay.assert_clean();
    assert_eq!(booked["status"], "processing");
    let sent = replay.requests().pop().unwrap().body["shipments"][0].clone();
    assert_eq!(sent["billingNumber"], format!("{EKP}5301"));
    assert_eq!(sent["consignee"]["country"], "CHE");
    assert_eq!(sent["consignee"]["phone"], "+4512345678");
    assert_eq!(sent["services"]["endorsement"], "RETURN");
    let customs = &sent["customs"];
    assert_eq!(
        (&customs["exportType"], &customs["invoiceNo"]),
        (&json!("COMMERCIAL_GOODS"), &json!("REF-1001"))
    );
    assert_eq!(
        customs["items"][0],
        json!({"itemDescription": "Cotton T-shirt", "packagedQuantity": 3, "itemValue": {"currency": "EUR", "value": 19.99},
               "itemWeight": {"uom": "kg", "value": 0.5}, "countryOfOrigin": "PRT", "hsCode": "610910"})
    );

    // A return of a German shipment: DHL's Returns API, the customer's street and house apart.
    let (id, _) = shipment(&shop, &carrier, "V01PAK", &[1.0]).await;
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    shop.shop
        .app
        .set_shipment_status(&shop.shop.org, &id, "dispatched")
        .await;
    let ret = shop
        .shop
        .post_empty(&id, "/create-return")
        .await
        .expect(201);
    replay.assert_clean();
    assert_eq!(
        (&ret["type"], &ret["status"]),
        (&json!("inbound"), &json!("processing"))
    );
    assert_eq!(ret["parcels"][0]["trackingNumber"], "999991587211");
    let request = replay.requests().pop().unwrap();
    assert_eq!(request.path, format!("{RETURNS}/orders"));
    assert_eq!(request.body["receiverId"], "deu");
    assert_eq!(
        (
            &request.body["shipper"]["addressStreet"],
            &request.body["shipper"]["addressHouse"]
        ),
        (&json!("Kurt-Schumacher-Str."), &json!("20"))
    );
}

#[tokio::test]
async fn cancelling_refusals_outages_and_timeouts() {
    let replay = Replay::start(dhl).await;
    let shop = setup(&toml(&replay, "timeout_seconds = 1\n")).await;
    let carrier = shop.carrier("dhl_parcel_de", config("pdf"), "V01PAK").await;
    let (id, _) = shipment(&shop, &carrier, "V01PAK", &[1.0, 2.0]).await;
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    // Closed for the day: DHL refuses to cancel, and nothing changes.
    replay.set(Scenario::Reject);
    let problem = shop
        .shop
        .post(&id, "/status", json!({"status": "cancelled"}))
        .await
        .problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("already been manifested"),
        "{problem}"
    );
    assert_eq!(shop.shop.get(&id).await["status"], "processing");
    replay.set(Scenario::Ok);
    let cancelled = shop
        .shop
        .app
        .set_shipment_status(&shop.shop.org, &id, "cancelled")
        .await;
    assert_eq!(cancelled["status"], "cancelled");
    let request = replay.requests().pop().unwrap();
    let numbers: Vec<&str> = request
        .query
        .iter()
        .filter(|(k, _)| k == "shipment")
        .map(|(_, n)| n.as_str())
        .collect();
    assert_eq!(
        numbers,
        ["00340434161094042001", "00340434161094042002"],
        "every parcel"
    );

    let (id, _) = shipment(&shop, &carrier, "V01PAK", &[1.0]).await;
    let book = || shop.shop.post(&id, "/book", json!({}));
    replay.set(Scenario::Reject);
    let problem = book().await.problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("shipper.postalCode: Please enter a valid zip code."),
        "{problem}"
    );
    replay.set(Scenario::Unauthorized);
    let problem = book().await.problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("API key, user or password"),
        "{problem}"
    );
    assert!(!problem.to_string().contains(PASSWORD) && !problem.to_string().contains(API_KEY));
    replay.set(Scenario::Down);
    let problem = book().await.problem(502, "carrier_unavailable");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("Backend system not reachable."),
        "{problem}"
    );
    replay.set(Scenario::Slow);
    book().await.problem(504, "carrier_timeout");
    book().await.problem(409, "booking_outcome_unknown");
    replay.assert_clean();
}

#[test]
fn the_descriptions_catch_what_dhl_would_refuse() {
    let wrong = json!({"profile": "STANDARD_GRUPPENPROFIL", "shipments": [{"product": "V07PAK", "billingNumber": "33333333330101",
        "shipper": {"name1": "Shop", "addressStreet": "Str. 1", "city": "Bonn", "country": "DE"},
        "consignee": {"name1": "Maria", "addressStreet": "Str. 2", "city": "Bonn", "country": "DEU"},
        "details": {"weight": {"uom": "lb", "value": 1}, "dim": {"uom": "cm", "length": 30.5, "width": 20, "height": 10}}}]});
    let mut found = Vec::new();
    check(&specs().order, &wrong, "request", &mut found);
    let text = found.join("\n");
    for expected in [
        "/shipments/0/product",
        "/shipments/0/shipper",
        "/shipments/0/details/weight/uom",
        "/shipments/0/details/dim/length",
    ] {
        assert!(text.contains(expected), "{expected} not found in {text}");
    }
}
