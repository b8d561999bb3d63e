//! The DHL Express adapter against a replay of the MyDHL API 3.1 (create shipment with labels
//! per piece, tracking), as its published specification describes it.

use base64::{Engine, engine::general_purpose::STANDARD};
use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    replay::{Replay, Scenario, Seen, array, number, one_of, pdf, text, zpl},
    setup, wait_for_tracking,
};

pub(super) const PREFIX: &str = "/mydhlapi/test";
const USER: &str = "shipbase-user";
const PASSWORD: &str = "S3cret!pass";
/// The top-level keys the create-shipment request may have (additionalProperties: false).
const TOP_LEVEL: [&str; 24] = [
    "plannedShippingDateAndTime",
    "pickup",
    "productCode",
    "localProductCode",
    "getRateEstimates",
    "accounts",
    "valueAddedServices",
    "outputImageProperties",
    "customerReferences",
    "identifiers",
    "customerDetails",
    "content",
    "documentImages",
    "onDemandDelivery",
    "requestOndemandDeliveryURL",
    "shipmentNotification",
    "prepaidCharges",
    "getTransliteratedResponse",
    "estimatedDeliveryDate",
    "getAdditionalInformation",
    "parentShipment",
    "getOptionalInformation",
    "shipmentReference",
    "references",
];
const INCOTERMS: [&str; 16] = [
    "EXW", "FCA", "CPT", "CIP", "DPU", "DAP", "DDP", "FAS", "FOB", "CFR", "CIF", "DAF", "DAT",
    "DDU", "DEQ", "DES",
];

pub(super) fn authorized(seen: &Seen) -> bool {
    let expected = format!("Basic {}", STANDARD.encode(format!("{USER}:{PASSWORD}")));
    seen.headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        == Some(expected.as_str())
}

pub(super) fn problem(status: u16, title: &str, detail: &str) -> Value {
    json!({"instance": "/expressapi/shipments", "detail": detail, "title": title, "message": title, "status": status.to_string()})
}

/// DHL Express as the replay plays it.
pub(super) fn dhl(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    if !authorized(seen) || scenario == Scenario::Unauthorized {
        return (StatusCode::UNAUTHORIZED, Value::Null);
    }
    if seen.headers.get("x-version").is_none() {
        v.push("the x-version header is required".into());
    }
    if let Some(reference) = seen
        .headers
        .get("message-reference")
        .and_then(|h| h.to_str().ok())
        && !(1..=36).contains(&reference.len())
    {
        v.push(format!(
            "Message-Reference {reference:?} is not 1..36 characters"
        ));
    }
    let path = seen.path.strip_prefix(PREFIX).unwrap_or_default();
    if seen.method == "GET" && path == "/tracking" {
        let piece = seen
            .query("pieceTrackingNumber")
            .unwrap_or_default()
            .to_string();
        if piece.is_empty() {
            v.push("tracking needs a shipmentTrackingNumber or pieceTrackingNumber".into());
        }
        return (StatusCode::OK, tracking());
    }
    if (seen.method.as_str(), path) == ("POST", "/rates") {
        return super::dhl_express_rates::rates(seen, scenario, v);
    }
    if (seen.method.as_str(), path) != ("POST", "/shipments") {
        v.push(format!("no such operation: {} {}", seen.method, seen.path));
        return (StatusCode::NOT_FOUND, Value::Null);
    }
    let body = &seen.body;
    for key in body.as_object().into_iter().flatten().map(|(k, _)| k) {
        if !TOP_LEVEL.contains(&key.as_str()) {
            v.push(format!("extraneous key [{key}] is not permitted"));
        }
    }
    let planned = text(body, "/plannedShippingDateAndTime", 1, 29, v);
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second] GMT[offset_hour sign:mandatory]:[offset_minute]"
    );
    if time::OffsetDateTime::parse(&planned, &format).is_err() {
        v.push(format!(
            "998: ShipTimeStamp {planned:?} is not well formatted"
        ));
    }
    if !body
        .pointer("/pickup/isRequested")
        .is_some_and(Value::is_boolean)
    {
        v.push("/pickup/isRequested is required (a boolean)".into());
    }
    text(body, "/productCode", 1, 6, v);
    for (i, _) in array(body, "/accounts", 1, 3, v).iter().enumerate() {
        one_of(
            body,
            &format!("/accounts/{i}/typeCode"),
            &["shipper", "payer", "duties-taxes"],
            v,
        );
        text(body, &format!("/accounts/{i}/number"), 1, 12, v);
    }
    for party in ["shipperDetails", "receiverDetails"] {
        let at = |rest: &str| format!("/customerDetails/{party}{rest}");
        text(body, &at("/postalAddress/postalCode"), 0, 12, v);
        text(body, &at("/postalAddress/cityName"), 1, 45, v);
        text(body, &at("/postalAddress/countryCode"), 2, 2, v);
        text(body, &at("/postalAddress/addressLine1"), 1, 45, v);
        for line in ["addressLine2", "addressLine3"] {
            if body
                .pointer(&at(&format!("/postalAddress/{line}")))
                .is_some()
            {
                text(body, &at(&format!("/postalAddress/{line}")), 1, 45, v);
            }
        }
        text(body, &at("/contactInformation/phone"), 1, 70, v);
        text(body, &at("/contactInformation/companyName"), 1, 100, v);
        text(body, &at("/contactInformation/fullName"), 1, 255, v);
    }
    let packages = array(body, "/content/packages", 1, 999, v);
    for (i, _) in packages.iter().enumerate() {
        number(body, &format!("/content/packages/{i}/weight"), 0.001, v);
    }
    if !body
        .pointer("/content/isCustomsDeclarable")
        .is_some_and(Value::is_boolean)
    {
        v.push("/content/isCustomsDeclarable is required (a boolean)".into());
    }
    let description = text(body, "/content/description", 1, 70, v);
    if description.starts_with(char::is_whitespace) {
        v.push("/content/description must not start with whitespace".into());
    }
    one_of(body, "/content/incoterm", &INCOTERMS, v);
    if body.pointer("/content/isCustomsDeclarable") == Some(&json!(true)) {
        // "If the shipment is dutiable, exportDeclaration element must be provided."
        for (i, _) in array(body, "/content/exportDeclaration/lineItems", 1, 999, v)
            .iter()
            .enumerate()
        {
            let at = |rest: &str| format!("/content/exportDeclaration/lineItems/{i}{rest}");
            number(body, &at("/number"), 1.0, v);
            text(body, &at("/description"), 1, 512, v);
            number(body, &at("/price"), 0.0, v);
            number(body, &at("/quantity/value"), 1.0, v);
            one_of(
                body,
                &at("/quantity/unitOfMeasurement"),
                &["PCS", "EA", "X", "BOX", "SET"],
                v,
            );
            text(body, &at("/manufacturerCountry"), 2, 2, v);
            if body
                .pointer(&at("/weight/grossValue"))
                .or(body.pointer(&at("/weight/netValue")))
                .is_none()
            {
                v.push(format!(
                    "{}: either the gross or the net weight",
                    at("/weight")
                ));
            }
        }
        if body.pointer("/content/exportDeclaration/invoice").is_some() {
            text(body, "/content/exportDeclaration/invoice/number", 1, 35, v);
            let date = text(body, "/content/exportDeclaration/invoice/date", 10, 10, v);
            if time::Date::parse(
                &date,
                time::macros::format_description!("[year]-[month]-[day]"),
            )
            .is_err()
            {
                v.push(format!("invoice date {date:?} is not YYYY-MM-DD"));
            }
        }
    }
    one_of(
        body,
        "/content/unitOfMeasurement",
        &["metric", "imperial"],
        v,
    );
    one_of(
        body,
        "/outputImageProperties/encodingFormat",
        &["pdf", "zpl", "lp2", "epl"],
        v,
    );
    match scenario {
        Scenario::Reject => {
            return (
                StatusCode::BAD_REQUEST,
                problem(
                    400,
                    "Bad request",
                    "7008: The requested Special Service Code #/valueAddedServices/0/serviceCode 'AA' is not available between this origin and destination.",
                ),
            );
        }
        Scenario::Down => {
            let mut answer = problem(
                500,
                "Internal Server Error",
                "999: Process failure occurred. Process ID associated for that transaction (1234567890)",
            );
            // The specification's own 500 examples name the status `code`.
            answer.as_object_mut().unwrap().remove("status");
            answer["code"] = "500".into();
            return (StatusCode::INTERNAL_SERVER_ERROR, answer);
        }
        _ => {}
    }
    let zpl_label = body.pointer("/outputImageProperties/encodingFormat") == Some(&json!("zpl"));
    let linked = body["getAdditionalInformation"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|i| i["typeCode"] == "linkLabelsByPieces" && i["isRequested"] == true);
    let numbers: Vec<String> = (1..=packages.len())
        .map(|n| format!("JD01460000461723077{n}"))
        .collect();
    let documents: Vec<Value> = if linked {
        numbers.iter().enumerate().map(|(i, n)| json!({"imageFormat": if zpl_label { "ZPL" } else { "PDF" },
            "content": STANDARD.encode(if zpl_label { zpl(n) } else { pdf(n) }), "typeCode": "label", "packageReferenceNumber": i + 1})).collect()
    } else {
        vec![
            json!({"imageFormat": "PDF", "content": STANDARD.encode(pdf("all")), "typeCode": "label"}),
        ]
    };
    (
        StatusCode::CREATED,
        json!({
            "shipmentTrackingNumber": "5374534616",
            "trackingUrl": "https://express.api.dhl.com/mydhlapi/shipments/5374534616/tracking",
            "packages": numbers.iter().enumerate().rev().map(|(i, n)| json!({"referenceNumber": i + 1, "trackingNumber": n})).collect::<Vec<_>>(),
            "documents": documents
        }),
    )
}

fn tracking() -> Value {
    json!({"shipments": [{"shipmentTrackingNumber": "5374534616", "status": "Success", "productCode": "U", "events": [
        {"date": "2026-11-20", "time": "13:56:21", "GMTOffset": "+01:00", "typeCode": "PU", "description": "Shipment picked up",
         "serviceArea": [{"code": "CPH", "description": "Copenhagen-DK"}]},
        {"date": "2026-11-21", "time": "10:50:14", "GMTOffset": "+01:00", "typeCode": "WC", "description": "Shipment is out with courier for delivery",
         "serviceArea": [{"code": "AAR", "description": "Aarhus-DK"}]},
        {"date": "2026-11-21", "time": "11:59:23", "GMTOffset": "+01:00", "typeCode": "OK", "description": "Delivered",
         "serviceArea": [{"code": "AAR", "description": "Aarhus-DK"}], "signedBy": "", "remarks": [{"value": "ignored"}]}
    ]}]})
}

pub(super) fn config(format: &str) -> Value {
    json!({"username": USER, "password": PASSWORD, "accountNumber": "123456789", "sandbox": "true", "labelFormat": format})
}

#[tokio::test]
async fn books_with_dhls_labels_one_per_package_in_order() {
    let replay = Replay::start(dhl).await;
    let shop = setup(&format!(
        "[carriers]\ndhl_express_url = \"{}{PREFIX}\"\n",
        replay.url
    ))
    .await;
    for (format, parcels) in [("pdf", 1), ("zpl", 3)] {
        let carrier = shop.carrier("dhl_express", config(format), "U").await;
        assert_eq!(carrier["config"]["password"], "********");
        let id = shop.shipment(&carrier, parcels).await;
        let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
        replay.assert_clean();
        let expected: Vec<String> = (1..=parcels)
            .map(|n| format!("JD01460000461723077{n}"))
            .collect();
        let numbers: Vec<&str> = booked["parcels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["trackingNumber"].as_str().unwrap())
            .collect();
        assert_eq!(
            numbers, expected,
            "in package order although DHL listed them backwards"
        );
        assert_eq!(
            booked["tracking"]["url"],
            "https://express.api.dhl.com/mydhlapi/shipments/5374534616/tracking"
        );
        let labels = booked["documents"].as_array().unwrap();
        assert_eq!(labels.len(), parcels);
        for (label, number) in labels.iter().zip(&expected) {
            assert_eq!(
                (&label["format"], &label["size"]),
                (&json!(format), &json!("100X150"))
            );
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
        assert_eq!(request.body["productCode"], "U");
        assert_eq!(
            request.body["content"]["packages"]
                .as_array()
                .unwrap()
                .len(),
            parcels
        );
        assert_eq!(
            request.body["customerDetails"]["receiverDetails"]["postalAddress"]["cityName"],
            "Aarhus"
        );
        assert_eq!(request.headers.get("x-version").unwrap(), "3.1.0");
    }
}

#[tokio::test]
async fn refusals_are_422_outages_502_and_dutiable_routes_carry_an_export_declaration() {
    let replay = Replay::start(dhl).await;
    let shop = setup(&format!(
        "[carriers]\ndhl_express_url = \"{}{PREFIX}\"\ntimeout_seconds = 1\n",
        replay.url
    ))
    .await;
    let carrier = shop.carrier("dhl_express", config("pdf"), "U").await;
    let id = shop.shipment(&carrier, 1).await;
    let book = || shop.shop.post(&id, "/book", json!({}));
    replay.set(Scenario::Reject);
    let problem = book().await.problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("7008: The requested Special Service Code"),
        "{problem}"
    );
    replay.set(Scenario::Unauthorized);
    let problem = book().await.problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("username and password"),
        "{problem}"
    );
    assert!(!problem.to_string().contains(PASSWORD));
    replay.set(Scenario::Down);
    let problem = book().await.problem(502, "carrier_unavailable");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("999: Process failure"),
        "{problem}"
    );
    // No answer in time: DHL may have booked it, so the shipment waits for a decision.
    replay.set(Scenario::Slow);
    book().await.problem(504, "carrier_timeout");
    book().await.problem(409, "booking_outcome_unknown");
    replay.assert_clean();
    let shipment = shop.shop.get(&id).await;
    assert_eq!(
        (&shipment["status"], &shipment["documents"]),
        (&json!("pending"), &json!([]))
    );

    // Denmark to Norway needs a customs declaration, made from the order lines; lines that lack
    // what customs needs are refused before DHL is asked.
    replay.set(Scenario::Ok);
    let asked = replay.requests().len();
    let mut body = shop.shop.body();
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    body["carrierSettings"]["productId"] = json!("P");
    body["parties"][0]["countryCode"] = json!("NO");
    body["parties"][0]["postalCode"] = json!("0150");
    body["parcels"] = json!([{"weight": 2.0, "orderLines": [{"sku": "TS-1", "quantity": 2}]}]);
    let id = crate::fixtures::id_of(&shop.shop.create(body.clone()).await);
    let problem = shop
        .shop
        .post(&id, "/book", json!({}))
        .await
        .problem(409, "invalid_state");
    assert!(
        problem["detail"].as_str().unwrap().contains("unitPrice"),
        "{problem}"
    );
    assert_eq!(replay.requests().len(), asked);
    body["parcels"] = json!([{"weight": 2.0, "orderLines": [
        {"sku": "TS-1", "quantity": 3, "description": "Cotton T-shirt", "unitPrice": 100.0, "currency": "DKK",
         "countryOfOrigin": "PT", "tarrifNumber": "610910"},
        {"sku": "MUG-7", "quantity": 1, "unitPrice": 60.0, "currency": "DKK", "countryOfOrigin": "DK"}]}]);
    let id = crate::fixtures::id_of(&shop.shop.create(body).await);
    let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    replay.assert_clean();
    assert_eq!(booked["status"], "processing");
    let content = replay.requests().pop().unwrap().body["content"].clone();
    assert_eq!(
        (
            &content["isCustomsDeclarable"],
            &content["declaredValue"],
            &content["declaredValueCurrency"]
        ),
        (&json!(true), &json!(360.0), &json!("DKK"))
    );
    let lines = content["exportDeclaration"]["lineItems"]
        .as_array()
        .unwrap();
    assert_eq!(
        lines[0]["commodityCodes"],
        json!([{"typeCode": "outbound", "value": "610910"}])
    );
    assert_eq!(
        (
            &lines[0]["quantity"]["value"],
            &lines[0]["weight"]["grossValue"]
        ),
        (&json!(3), &json!(1.5))
    );
    assert_eq!(
        (&lines[1]["description"], &lines[1]["manufacturerCountry"]),
        (&json!("MUG-7"), &json!("DK"))
    );
}

#[tokio::test]
async fn tracking_checkpoints_map_to_shipbase_statuses() {
    let replay = Replay::start(dhl).await;
    let shop = setup(&format!(
        "[carriers]\ndhl_express_url = \"{}{PREFIX}\"\ntracking_interval_seconds = 1\n",
        replay.url
    ))
    .await;
    let carrier = shop.carrier("dhl_express", config("pdf"), "U").await;
    let id = shop.shipment(&carrier, 1).await;
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    let tracking = wait_for_tracking(&shop.shop, &id, "delivered").await;
    let statuses: Vec<&str> = tracking["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["delivered", "out_for_delivery", "picked_up"]);
    assert_eq!(
        tracking["events"][0]["occurredAt"], "2026-11-21T10:59:23.000Z",
        "converted to UTC"
    );
    assert_eq!(tracking["events"][0]["location"], "Aarhus-DK");
    let request = replay
        .requests()
        .into_iter()
        .find(|r| r.method == "GET")
        .unwrap();
    assert_eq!(
        request.query("pieceTrackingNumber"),
        Some("JD014600004617230771")
    );
    replay.assert_clean();
}
