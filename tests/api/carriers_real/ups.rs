//! The UPS adapter against a replay of UPS's APIs that checks every request against UPS's own
//! OpenAPI descriptions (tests/fixtures/carriers/ups: OAuth client credentials, Shipping v2409,
//! Tracking v1) with a JSON Schema validator, plus the rules UPS writes only in prose (address
//! lines, phones abroad, the invoice form), and answers only what those descriptions' response
//! schemas allow: booking per package with GIF or ZPL labels, international invoices, Print
//! Return Labels, voiding on cancel, tracking, refusals, outages, timeouts and a token refresh.

use std::sync::OnceLock;

use base64::{Engine, engine::general_purpose::STANDARD};
use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    replay::{self, Replay, Scenario, Seen, check, zpl},
    setup, wait_for_tracking,
};
use crate::fixtures::id_of;

const CLIENT: &str = "shipbase-client";
const SECRET: &str = "ups-S3cret!";
pub(super) const ACCOUNT: &str = "A1B2C3";

/// The validators of the schemas the replay checks against, made once.
struct Specs {
    token_request: jsonschema::Validator,
    token_answer: jsonschema::Validator,
    token_error: jsonschema::Validator,
    ship_request: jsonschema::Validator,
    ship_answer: jsonschema::Validator,
    void_answer: jsonschema::Validator,
    track_answer: jsonschema::Validator,
    error: jsonschema::Validator,
}

/// The schema `name` of UPS's description `file` (OpenAPI 3.0.3, read as JSON Schema 2020-12:
/// UPS's schemas use nothing of draft 4 that 2020-12 reads differently).
pub(super) fn schema(file: &str, name: &str) -> jsonschema::Validator {
    replay::schema(&format!("ups/{file}"), name, jsonschema::Draft::Draft202012)
}

/// A schema written inline in the description (the token request's form).
fn inline(schema: Value) -> jsonschema::Validator {
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"))
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| {
        let oauth = "OAuthClientCredentials.yaml";
        let text = std::fs::read_to_string(format!(
            "{}/tests/fixtures/carriers/ups/{oauth}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let doc: Value = serde_yaml::from_str(&text).unwrap();
        let form = doc["paths"]["/security/v1/oauth/token"]["post"]["requestBody"]["content"]
            ["application/x-www-form-urlencoded"]["schema"]
            .clone();
        assert!(
            form.is_object(),
            "the token request's schema is in the description"
        );
        Specs {
            token_request: inline(form),
            token_answer: schema(oauth, "tokenSuccessResponse"),
            token_error: schema(oauth, "tokenErrorResponse"),
            ship_request: schema("Shipping.yaml", "SHIPRequestWrapper"),
            ship_answer: schema("Shipping.yaml", "SHIPResponseWrapper"),
            void_answer: schema("Shipping.yaml", "VOIDSHIPMENTResponseWrapper"),
            track_answer: schema("Tracking.yaml", "TrackApiResponse"),
            error: schema("Shipping.yaml", "ErrorResponse"),
        }
    })
}

/// An answer the replay plays, checked against its schema first (a replay that answered what
/// UPS cannot would prove nothing).
pub(super) fn answer(
    status: StatusCode,
    validator: &jsonschema::Validator,
    body: Value,
    v: &mut Vec<String>,
) -> (StatusCode, Value) {
    check(validator, &body, "the replay's own answer", v);
    (status, body)
}

fn error(
    status: StatusCode,
    code: &str,
    message: &str,
    v: &mut Vec<String>,
) -> (StatusCode, Value) {
    answer(
        status,
        &specs().error,
        json!({"response": {"errors": [{"code": code, "message": message}]}}),
        v,
    )
}

fn header<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.headers.get(name).and_then(|h| h.to_str().ok())
}

/// UPS as the replay plays it.
pub(super) fn ups(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    if seen.path == "/security/v1/oauth/token" {
        return token(seen, scenario, v);
    }
    let Some(bearer) = header(seen, "authorization").and_then(|a| a.strip_prefix("Bearer ")) else {
        return error(
            StatusCode::UNAUTHORIZED,
            "250002",
            "Invalid Authentication Information.",
            v,
        );
    };
    if !bearer.starts_with("tok-") || (scenario == Scenario::Revoked && bearer == "tok-0") {
        return error(
            StatusCode::UNAUTHORIZED,
            "250002",
            "Invalid Authentication Information.",
            v,
        );
    }
    match header(seen, "transId") {
        Some(id) if id.len() == 32 => {}
        other => v.push(format!("transId {other:?} is not 32 characters")),
    }
    if !header(seen, "transactionSrc").is_some_and(|s| (1..=512).contains(&s.len())) {
        v.push("transactionSrc is required (1..512 characters)".into());
    }
    match scenario {
        Scenario::Reject if seen.method != "GET" => {
            return error(
                StatusCode::BAD_REQUEST,
                "120100",
                "Missing or invalid shipper number",
                v,
            );
        }
        Scenario::Down => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "190001",
                "The Shipping service is temporarily unavailable",
                v,
            );
        }
        _ => {}
    }
    let path = seen.path.as_str();
    if seen.method == "POST" && path == "/api/shipments/v2409/ship" {
        return ship(seen, v);
    }
    if seen.method == "DELETE"
        && let Some(number) = path.strip_prefix("/api/shipments/v2409/void/cancel/")
    {
        if number.len() != 18 || !number.starts_with("1Z") {
            v.push(format!(
                "{number:?} is not a shipment identification number"
            ));
        }
        return answer(
            StatusCode::OK,
            &specs().void_answer,
            json!({"VoidShipmentResponse": {
                "Response": {"ResponseStatus": {"Code": "1", "Description": "Success"}},
                "SummaryResult": {"Status": {"Code": "1", "Description": "Voided"}}}}),
            v,
        );
    }
    if seen.method == "GET"
        && let Some(number) = path.strip_prefix("/api/track/v1/details/")
    {
        if !(7..=34).contains(&number.len()) {
            v.push(format!("inquiryNumber {number:?} is not 7..34 characters"));
        }
        for (name, allowed) in [
            ("returnSignature", ["true", "false"]),
            ("returnMilestones", ["true", "false"]),
            ("returnPOD", ["true", "false"]),
        ] {
            if seen.query(name).is_some_and(|q| !allowed.contains(&q)) {
                v.push(format!("{name} is the text true or false"));
            }
        }
        return answer(StatusCode::OK, &specs().track_answer, tracking(number), v);
    }
    if seen.method == "POST"
        && let Some(option) = path.strip_prefix("/api/rating/v2409/")
    {
        return super::ups_rating::rating(seen, option, v);
    }
    if seen.method == "POST"
        && let Some(option) = path.strip_prefix("/api/addressvalidation/v2/")
    {
        return super::ups_rating::address_validation(seen, option, v);
    }
    v.push(format!("no such operation: {} {}", seen.method, seen.path));
    (StatusCode::NOT_FOUND, Value::Null)
}

/// OAuth client credentials: Basic authentication with the client's ID and secret, a form.
fn token(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    let expected = format!("Basic {}", STANDARD.encode(format!("{CLIENT}:{SECRET}")));
    if header(seen, "content-type") != Some("application/x-www-form-urlencoded") {
        v.push("the token request is a form".into());
    }
    let form: serde_json::Map<String, Value> = url::form_urlencoded::parse(&seen.raw)
        .map(|(k, val)| (k.into_owned(), Value::String(val.into_owned())))
        .collect();
    check(
        &specs().token_request,
        &Value::Object(form.clone()),
        "the token form",
        v,
    );
    if form.get("grant_type") != Some(&json!("client_credentials")) {
        v.push("grant_type must be client_credentials".into());
    }
    if header(seen, "authorization") != Some(expected.as_str())
        || scenario == Scenario::Unauthorized
    {
        return answer(
            StatusCode::UNAUTHORIZED,
            &specs().token_error,
            json!({"response": {"errors": [{"code": "10401", "message": "ClientId is Invalid"}]}}),
            v,
        );
    }
    answer(
        StatusCode::OK,
        &specs().token_answer,
        json!({"token_type": "Bearer", "issued_at": "1795000000000", "client_id": CLIENT,
               "access_token": format!("tok-{}", seen.earlier), "expires_in": "14399",
               "refresh_count": "0", "status": "approved"}),
        v,
    )
}

/// The rules UPS's description states only in words, for what the adapter sends.
fn prose(shipment: &Value, v: &mut Vec<String>) {
    for who in ["Shipper", "ShipTo", "ShipFrom"] {
        let lines = shipment[who]["Address"]["AddressLine"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if lines.is_empty()
            || lines.len() > 3
            || lines.iter().any(|l| {
                l.as_str()
                    .is_none_or(|l| l.is_empty() || l.chars().count() > 35)
            })
        {
            v.push(format!(
                "{who}.Address.AddressLine: 1 to 3 lines of 1..35 characters"
            ));
        }
        if shipment[who]["Name"]
            .as_str()
            .is_none_or(|n| n.chars().count() > 35)
        {
            v.push(format!("{who}.Name: at most 35 characters"));
        }
        let address = &shipment[who]["Address"];
        if matches!(address["CountryCode"].as_str(), Some("US" | "CA"))
            && address["StateProvinceCode"]
                .as_str()
                .is_none_or(|s| s.len() != 2 || !s.chars().all(|c| c.is_ascii_uppercase()))
        {
            v.push(format!(
                "{who}.Address.StateProvinceCode: a state or province code is required for US and CA"
            ));
        }
    }
    if shipment["PaymentInformation"]["ShipmentCharge"][0]["BillShipper"]["AccountNumber"]
        != shipment["Shipper"]["ShipperNumber"]
    {
        v.push("BillShipper.AccountNumber must be the ShipperNumber".into());
    }
    let international = shipment["ShipTo"]["Address"]["CountryCode"]
        != shipment["ShipFrom"]["Address"]["CountryCode"];
    if international {
        for who in ["Shipper", "ShipTo"] {
            if !shipment[who]["Phone"]["Number"].is_string()
                || !shipment[who]["AttentionName"].is_string()
            {
                v.push(format!(
                    "{who}: Phone and AttentionName are required abroad"
                ));
            }
        }
        if !shipment["Description"].is_string() {
            v.push("Description is required abroad".into());
        }
    }
    let domestic_us = !international
        && matches!(
            shipment["ShipFrom"]["Address"]["CountryCode"].as_str(),
            Some("US" | "PR")
        );
    if domestic_us
        && shipment["ShipmentServiceOptions"]
            .get("DeliveryConfirmation")
            .is_some()
    {
        v.push("DeliveryConfirmation goes per package within the US".into());
    }
    if shipment.get("ReturnService").is_some() {
        for (i, package) in shipment["Package"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if !package["Description"].is_string() {
                v.push(format!(
                    "Package[{i}].Description is required with a return service"
                ));
            }
        }
    }
    if let Some(forms) = shipment.pointer("/ShipmentServiceOptions/InternationalForms") {
        for key in [
            "InvoiceNumber",
            "InvoiceDate",
            "ReasonForExport",
            "CurrencyCode",
        ] {
            if !forms[key].is_string() {
                v.push(format!(
                    "InternationalForms.{key} is required for an invoice"
                ));
            }
        }
        for (i, product) in forms["Product"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if !product["Unit"].is_object() || !product["PartNumber"].is_string() {
                v.push(format!(
                    "Product[{i}]: Unit and PartNumber are required for an invoice"
                ));
            }
        }
    }
}

/// A one-colour GIF standing for UPS's label picture of `number`.
fn gif_label(number: &str) -> Vec<u8> {
    let (width, height) = (120u16, 80u16);
    let mut out = Vec::new();
    {
        let mut encoder =
            gif::Encoder::new(&mut out, width, height, &[0, 0, 0, 255, 255, 255]).unwrap();
        // The number's bytes make the first pixels, so that each label differs.
        let mut pixels = vec![1u8; usize::from(width) * usize::from(height)];
        for (i, b) in number.bytes().enumerate() {
            pixels[i] = b % 2;
        }
        let frame = gif::Frame {
            width,
            height,
            buffer: std::borrow::Cow::Owned(pixels),
            ..gif::Frame::default()
        };
        encoder.write_frame(&frame).unwrap();
    }
    out
}

fn ship(seen: &Seen, v: &mut Vec<String>) -> (StatusCode, Value) {
    check(&specs().ship_request, &seen.body, "ShipmentRequest", v);
    let request = &seen.body["ShipmentRequest"];
    let shipment = &request["Shipment"];
    prose(shipment, v);
    if !request["LabelSpecification"].is_object() {
        v.push("LabelSpecification is required for these shipments".into());
    }
    let zpl_label = request["LabelSpecification"]["LabelImageFormat"]["Code"] == "ZPL";
    let packages = shipment["Package"].as_array().map_or(0, Vec::len);
    let returned = shipment.get("ReturnService").is_some();
    let results: Vec<Value> = (1..=packages)
        .map(|n| {
            let number = format!("1Z{ACCOUNT}{}{n:08}", if returned { "90" } else { "03" });
            let image = if zpl_label {
                zpl(&number)
            } else {
                gif_label(&number)
            };
            json!({"TrackingNumber": number, "ShippingLabel": {
                "ImageFormat": {"Code": if zpl_label { "ZPL" } else { "GIF" }},
                "GraphicImage": STANDARD.encode(image)}})
        })
        .collect();
    let first = results
        .first()
        .map(|r| r["TrackingNumber"].clone())
        .unwrap_or_default();
    answer(
        StatusCode::OK,
        &specs().ship_answer,
        json!({"ShipmentResponse": {
            "Response": {"ResponseStatus": {"Code": "1", "Description": "Success"},
                         "TransactionReference": request["Request"]["TransactionReference"].clone()},
            "ShipmentResults": {
                "ShipmentCharges": {
                    "TransportationCharges": {"CurrencyCode": "EUR", "MonetaryValue": "21.40"},
                    "ServiceOptionsCharges": {"CurrencyCode": "EUR", "MonetaryValue": "0.00"},
                    "TotalCharges": {"CurrencyCode": "EUR", "MonetaryValue": "21.40"}},
                "BillingWeight": {"UnitOfMeasurement": {"Code": "KGS"}, "Weight": "000002.0"},
                "ShipmentIdentificationNumber": first,
                "PackageResults": results}}}),
        v,
    )
}

fn tracking(number: &str) -> Value {
    json!({"trackResponse": {"shipment": [{"inquiryNumber": number, "package": [{
    "trackingNumber": number,
    "currentStatus": {"type": "D", "code": "FS", "description": "Delivered", "statusCode": "011"},
    "activity": [
        {"date": "20261121", "time": "115923", "gmtDate": "20261121", "gmtTime": "105923", "gmtOffset": "+01:00",
         "location": {"address": {"city": "AARHUS", "countryCode": "DK"}},
         "status": {"type": "D", "code": "FS", "description": "DELIVERED", "statusCode": "011"}},
        {"date": "20261121", "time": "085014", "gmtDate": "20261121", "gmtTime": "075014", "gmtOffset": "+01:00",
         "location": {"address": {"city": "AARHUS", "countryCode": "DK"}},
         "status": {"type": "I", "code": "OT", "description": "Out For Delivery Today", "statusCode": "021"}},
        {"date": "20261120", "time": "135621", "gmtDate": "20261120", "gmtTime": "125621", "gmtOffset": "+01:00",
         "location": {"address": {"city": "KASTRUP", "countryCode": "DK"}},
         "status": {"type": "P", "code": "PU", "description": "Pickup Scan ", "statusCode": "038"}}
    ]}]}]}})
}

pub(super) fn config(format: &str) -> Value {
    json!({"clientId": CLIENT, "clientSecret": SECRET, "accountNumber": ACCOUNT, "sandbox": "true", "labelFormat": format})
}

fn toml(replay: &Replay, extra: &str) -> String {
    format!("[carriers]\nups_url = \"{}\"\n{extra}", replay.url)
}

fn count(replay: &Replay, path: &str) -> usize {
    replay
        .requests()
        .iter()
        .filter(|r| r.path.starts_with(path))
        .count()
}

#[tokio::test]
async fn books_with_ups_labels_per_package_and_keeps_its_token() {
    let replay = Replay::start(ups).await;
    let shop = setup(&toml(&replay, "")).await;
    for (format, parcels) in [("pdf", 2), ("zpl", 1)] {
        let carrier = shop.carrier("ups", config(format), "11").await;
        assert_eq!(carrier["config"]["clientSecret"], "********");
        let mut body = shop.shop.body();
        body["carrierSettings"]["carrierId"] = carrier["id"].clone();
        body["carrierSettings"]["productId"] = json!("11");
        body["carrierSettings"]["services"] = json!(["signature", "saturday_delivery"]);
        body["parcels"] = Value::Array(
            (0..parcels)
                .map(|i| json!({"weight": 1.25 + i as f64, "dimensions": {"length": 30.5, "width": 20, "height": 10}}))
                .collect(),
        );
        let id = id_of(&shop.shop.create(body).await);
        let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
        replay.assert_clean();
        let numbers: Vec<&str> = booked["parcels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["trackingNumber"].as_str().unwrap())
            .collect();
        let expected: Vec<String> = (1..=parcels)
            .map(|n| format!("1Z{ACCOUNT}03{n:08}"))
            .collect();
        assert_eq!(numbers, expected);
        assert_eq!(
            booked["tracking"]["url"],
            format!("https://www.ups.com/track?tracknum={}", expected[0])
        );
        let labels = booked["documents"].as_array().unwrap();
        assert_eq!(labels.len(), parcels);
        for (label, number) in labels.iter().zip(&expected) {
            assert_eq!(
                (&label["format"], &label["size"]),
                (&json!(format), &json!("100X150"))
            );
            let content = STANDARD.decode(label["content"].as_str().unwrap()).unwrap();
            if format == "zpl" {
                assert_eq!(content, zpl(number));
            } else {
                assert!(content.starts_with(b"%PDF-"), "the GIF is made a PDF page");
            }
        }
        let request = replay
            .requests()
            .into_iter()
            .rfind(|r| r.path.ends_with("/ship"))
            .unwrap();
        let sent = &request.body["ShipmentRequest"]["Shipment"];
        assert_eq!(sent["Service"]["Code"], "11");
        assert_eq!(sent["Shipper"]["ShipperNumber"], ACCOUNT);
        assert_eq!(sent["ShipTo"]["Address"]["City"], "Aarhus");
        assert_eq!(
            sent["Package"][0]["PackageWeight"],
            json!({"UnitOfMeasurement": {"Code": "KGS"}, "Weight": "1.3"})
        );
        assert_eq!(sent["Package"][0]["Dimensions"]["Length"], "31");
        assert_eq!(
            sent["ShipmentServiceOptions"]["SaturdayDeliveryIndicator"],
            ""
        );
        assert_eq!(
            sent["ShipmentServiceOptions"]["DeliveryConfirmation"]["DCISType"],
            "1"
        );
        assert_eq!(
            request.body["ShipmentRequest"]["LabelSpecification"]["LabelImageFormat"]["Code"],
            if format == "zpl" { "ZPL" } else { "GIF" }
        );
    }
    // Two bookings, one access token: it is kept until it runs out.
    assert_eq!(count(&replay, "/security/v1/oauth/token"), 1);
    assert_eq!(count(&replay, "/api/shipments/v2409/ship"), 2);
}

#[tokio::test]
async fn goods_abroad_carry_the_invoice_form_and_lines_without_customs_data_are_refused_first() {
    let replay = Replay::start(ups).await;
    let shop = setup(&toml(&replay, "")).await;
    let carrier = shop.carrier("ups", config("pdf"), "65").await;
    let mut body = shop.shop.body();
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    body["carrierSettings"]["productId"] = json!("65");
    body["parties"][0]["countryCode"] = json!("NO");
    body["parties"][0]["city"] = json!("Oslo");
    body["parties"][0]["postalCode"] = json!("0150");
    body["parcels"] = json!([{"weight": 2.0, "orderLines": [{"sku": "TS-1", "quantity": 2}]}]);
    let id = id_of(&shop.shop.create(body.clone()).await);
    let problem = shop
        .shop
        .post(&id, "/book", json!({}))
        .await
        .problem(409, "invalid_state");
    assert!(
        problem["detail"].as_str().unwrap().contains("unitPrice"),
        "{problem}"
    );
    assert_eq!(count(&replay, "/api/"), 0, "UPS is not asked");

    body["parcels"] = json!([{"weight": 2.0, "orderLines": [
        {"sku": "TS-1", "quantity": 3, "description": "Cotton T-shirt", "unitPrice": 100.0, "currency": "DKK",
         "countryOfOrigin": "PT", "tarrifNumber": "6109.10"},
        {"sku": "MUG-7", "quantity": 1, "unitPrice": 60.0, "currency": "DKK", "countryOfOrigin": "DK"}]}]);
    let id = id_of(&shop.shop.create(body.clone()).await);
    let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    replay.assert_clean();
    assert_eq!(booked["status"], "processing");
    let request = replay.requests().pop().unwrap();
    let shipment = &request.body["ShipmentRequest"]["Shipment"];
    let forms = &shipment["ShipmentServiceOptions"]["InternationalForms"];
    assert_eq!(forms["FormType"], json!(["01"]));
    assert_eq!(forms["CurrencyCode"], "DKK");
    assert_eq!(forms["InvoiceNumber"], "REF-1001");
    assert_eq!(forms["Contacts"]["SoldTo"]["Address"]["City"], "Oslo");
    assert_eq!(
        forms["Product"][0],
        json!({"Description": ["Cotton T-shirt"], "Unit": {"Number": "3", "Value": "100.00", "UnitOfMeasurement": {"Code": "PCS"}},
               "PartNumber": "TS-1", "OriginCountryCode": "PT", "CommodityCode": "610910"})
    );
    assert_eq!(forms["Product"][1]["Description"], json!(["MUG-7"]));
    assert_eq!(shipment["ShipTo"]["Phone"]["Number"], "4512345678");
    assert_eq!(shipment["ReferenceNumber"], json!([{"Value": "REF-1001"}]));

    // To the United States: the state UPS requires comes from the ZIP code.
    body["parties"][0]["countryCode"] = json!("US");
    body["parties"][0]["city"] = json!("New York");
    body["parties"][0]["postalCode"] = json!("10001");
    let id = id_of(&shop.shop.create(body).await);
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    replay.assert_clean();
    let request = replay.requests().pop().unwrap();
    let shipment = &request.body["ShipmentRequest"]["Shipment"];
    assert_eq!(shipment["ShipTo"]["Address"]["StateProvinceCode"], "NY");
    assert!(
        shipment["ShipFrom"]["Address"]
            .get("StateProvinceCode")
            .is_none()
    );
}

#[tokio::test]
async fn a_return_is_a_print_return_label_and_cancelling_voids_the_booking() {
    let replay = Replay::start(ups).await;
    let shop = setup(&toml(&replay, "")).await;
    let carrier = shop.carrier("ups", config("pdf"), "11").await;
    let mut body = shop.shop.body();
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    body["carrierSettings"]["productId"] = json!("11");
    body["parcels"] = json!([{"weight": 1.0, "orderLines": [{"sku": "MUG-7", "quantity": 1, "description": "Blue mug"}]}]);
    let id = id_of(&shop.shop.create(body.clone()).await);
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
    assert_eq!(
        ret["parcels"][0]["trackingNumber"],
        format!("1Z{ACCOUNT}9000000001")
    );
    let request = replay.requests().pop().unwrap();
    let shipment = &request.body["ShipmentRequest"]["Shipment"];
    assert_eq!(shipment["ReturnService"], json!({"Code": "9"}));
    // The shop is the shipper and the destination; the customer is where it comes from.
    assert_eq!(shipment["ShipFrom"]["Address"]["City"], "Aarhus");
    assert_eq!(shipment["ShipTo"]["Name"], shipment["Shipper"]["Name"]);
    assert_eq!(shipment["Package"][0]["Description"], "Blue mug");

    // A booked shipment cancelled: UPS voids it first.
    let id = id_of(&shop.shop.create(body.clone()).await);
    let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    let number = booked["tracking"]["number"].as_str().unwrap().to_string();
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
            .contains("Missing or invalid shipper number"),
        "{problem}"
    );
    assert_eq!(
        shop.shop.get(&id).await["status"],
        "processing",
        "nothing changed"
    );
    replay.set(Scenario::Ok);
    let cancelled = shop
        .shop
        .app
        .set_shipment_status(&shop.shop.org, &id, "cancelled")
        .await;
    assert_eq!(cancelled["status"], "cancelled");
    let voids: Vec<String> = replay
        .requests()
        .iter()
        .filter(|r| r.method == "DELETE")
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(
        voids.last().unwrap(),
        &format!("/api/shipments/v2409/void/cancel/{number}")
    );
    replay.assert_clean();
}

#[tokio::test]
async fn tracking_activity_maps_to_shipbase_statuses() {
    let replay = Replay::start(ups).await;
    let shop = setup(&toml(&replay, "tracking_interval_seconds = 1\n")).await;
    let carrier = shop.carrier("ups", config("pdf"), "11").await;
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
        tracking["events"][0]["occurredAt"],
        "2026-11-21T10:59:23.000Z"
    );
    assert_eq!(tracking["events"][0]["location"], "AARHUS, DK");
    let request = replay
        .requests()
        .into_iter()
        .find(|r| r.method == "GET")
        .unwrap();
    assert_eq!(
        request.path,
        format!("/api/track/v1/details/1Z{ACCOUNT}0300000001")
    );
    assert_eq!(request.query("locale"), Some("en_US"));
    replay.assert_clean();
}

#[tokio::test]
async fn refusals_outages_and_timeouts() {
    let replay = Replay::start(ups).await;
    let shop = setup(&toml(&replay, "timeout_seconds = 1\n")).await;
    let carrier = shop.carrier("ups", config("pdf"), "11").await;
    let id = shop.shipment(&carrier, 1).await;
    let book = || shop.shop.post(&id, "/book", json!({}));
    replay.set(Scenario::Unauthorized);
    let problem = book().await.problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("client ID and secret"),
        "{problem}"
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("ClientId is Invalid"),
        "{problem}"
    );
    assert!(!problem.to_string().contains(SECRET));
    replay.set(Scenario::Reject);
    let problem = book().await.problem(422, "carrier_rejected");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("Missing or invalid shipper number (UPS error 120100)"),
        "{problem}"
    );
    replay.set(Scenario::Down);
    let problem = book().await.problem(502, "carrier_unavailable");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("temporarily unavailable"),
        "{problem}"
    );
    replay.set(Scenario::Slow);
    book().await.problem(504, "carrier_timeout");
    book().await.problem(409, "booking_outcome_unknown");
    let shipment = shop.shop.get(&id).await;
    assert_eq!(
        (&shipment["status"], &shipment["documents"]),
        (&json!("pending"), &json!([]))
    );

    replay.assert_clean();
}

#[tokio::test]
async fn a_token_ups_revoked_is_replaced_once_and_the_booking_goes_through() {
    let replay = Replay::start(ups).await;
    let shop = setup(&toml(&replay, "")).await;
    let carrier = shop.carrier("ups", config("pdf"), "11").await;
    let first = shop.shipment(&carrier, 1).await;
    shop.shop.app.book_shipment(&shop.shop.org, &first).await;
    assert_eq!(count(&replay, "/security/v1/oauth/token"), 1);
    // The kept token (tok-0) revoked: UPS answers 401, a new token is asked for once, and the
    // booking goes through with it.
    replay.set(Scenario::Revoked);
    let id = shop.shipment(&carrier, 1).await;
    let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    assert_eq!(booked["status"], "processing");
    assert_eq!(count(&replay, "/security/v1/oauth/token"), 2);
    let ships: Vec<String> = replay
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/ship"))
        .map(|r| {
            r.headers
                .get("authorization")
                .unwrap()
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ships, ["Bearer tok-0", "Bearer tok-0", "Bearer tok-1"]);
    replay.assert_clean();
}

#[test]
fn the_descriptions_catch_what_ups_would_refuse() {
    // UPS's own first example as written: a package and a charge that are not arrays, numbers
    // where strings go, no label size.
    let wrong = json!({"ShipmentRequest": {"Request": {"RequestOption": "nonvalidate"}, "Shipment": {
        "Shipper": {"Name": "A", "ShipperNumber": ACCOUNT, "Address": {"AddressLine": ["x"], "City": "Y", "CountryCode": "DK"}},
        "ShipTo": {"Name": "B", "Address": {"AddressLine": ["x"], "City": "Y", "CountryCode": "DK"}},
        "PaymentInformation": {"ShipmentCharge": {"Type": "01", "BillShipper": {"AccountNumber": ACCOUNT}}},
        "Service": {"Code": 11},
        "Package": {"Packaging": {"Code": "02"}, "PackageWeight": {"UnitOfMeasurement": {"Code": "KGS"}, "Weight": 1.5}}},
        "LabelSpecification": {"LabelImageFormat": {"Code": "GIF"}}}});
    let mut found = Vec::new();
    check(&specs().ship_request, &wrong, "request", &mut found);
    let text = found.join("\n");
    for expected in [
        "/ShipmentRequest/Shipment/Package",
        "/ShipmentRequest/Shipment/PaymentInformation/ShipmentCharge",
        "/ShipmentRequest/Shipment/Service/Code",
        "LabelStockSize",
    ] {
        assert!(text.contains(expected), "{expected} not found in {text}");
    }
    // And the answers the replay plays are held to the response schemas.
    let mut found = Vec::new();
    check(
        &specs().ship_answer,
        &json!({"ShipmentResponse": {"Response": {}, "ShipmentResults": {}}}),
        "answer",
        &mut found,
    );
    assert!(
        found.iter().any(|f| f.contains("BillingWeight")),
        "{found:?}"
    );
}

#[tokio::test]
async fn within_the_us_signatures_and_references_go_per_package_and_states_come_from_zip_codes() {
    let replay = Replay::start(ups).await;
    let shop = setup(&toml(&replay, "")).await;
    let carrier = shop.carrier("ups", config("pdf"), "03").await;
    let mut warehouse = crate::fixtures::sender_address_body();
    warehouse["address1"] = json!("600 Congress Ave");
    warehouse["zipcode"] = json!("78701");
    warehouse["city"] = json!("Austin");
    warehouse["countryCode"] = json!("US");
    warehouse["state"] = json!("TX");
    warehouse["phone"] = json!("+15125550100");
    let address = shop
        .shop
        .app
        .create_sender_address_with(&shop.shop.org, warehouse)
        .await;
    let mut body = shop.shop.body();
    body["senderAddressId"] = json!(id_of(&address));
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    body["carrierSettings"]["productId"] = json!("03");
    body["carrierSettings"]["services"] = json!(["adult_signature"]);
    body["parties"][0]["countryCode"] = json!("US");
    body["parties"][0]["city"] = json!("New York");
    body["parties"][0]["postalCode"] = json!("10001");
    body["parcels"] = json!([{"weight": 1.0}, {"weight": 2.0}]);
    let id = id_of(&shop.shop.create(body).await);
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    replay.assert_clean();
    let request = replay.requests().pop().unwrap();
    let shipment = &request.body["ShipmentRequest"]["Shipment"];
    assert_eq!(
        (
            &shipment["Shipper"]["Address"]["StateProvinceCode"],
            &shipment["ShipFrom"]["Address"]["StateProvinceCode"],
            &shipment["ShipTo"]["Address"]["StateProvinceCode"]
        ),
        (&json!("TX"), &json!("TX"), &json!("NY"))
    );
    for package in shipment["Package"].as_array().unwrap() {
        assert_eq!(
            package["PackageServiceOptions"],
            json!({"DeliveryConfirmation": {"DCISType": "3"}})
        );
        assert_eq!(package["ReferenceNumber"], json!([{"Value": "REF-1001"}]));
    }
    assert!(
        shipment.get("ShipmentServiceOptions").is_none(),
        "{shipment}"
    );
    assert!(shipment.get("ReferenceNumber").is_none());
}
