//! UPS pickups against the UPS replay: each pickup request is checked against UPS's Pickup.yaml
//! (`PICKUPCreationRequestWrapper`, read as JSON Schema 2020-12 as the other UPS schemas) and
//! what its prose asks (one address line, the account when the account pays, HHmm times, at most
//! 999 packages a piece); a cancel goes by PRN (`CancelBy` 02 and the `Prn` header). The answers
//! validate against the response schemas. Everything else (the token, bookings) UPS plays as in
//! ups.rs.

use std::sync::OnceLock;

use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    RealShop,
    replay::{Replay, Scenario, Seen, check},
    setup,
    ups::{ACCOUNT, answer, config, ups},
};
use crate::fixtures::id_of;

struct Specs {
    request: jsonschema::Validator,
    answer: jsonschema::Validator,
    cancel: jsonschema::Validator,
    error: jsonschema::Validator,
}

/// Pickup.yaml's schema `name`. Two lengths in the file contradict the file itself and are
/// read as its formats say: `PickupDate` is declared 4..4 characters for a yyyyMMdd date, and
/// `TotalWeight.Weight` 6..6 where its prose allows one decimal and its example is "5.5".
fn schema(name: &str) -> jsonschema::Validator {
    let doc = description();
    let mut components = doc["components"].clone();
    let schemas = &mut components["schemas"];
    let date = &mut schemas["PickupCreationRequest_PickupDateInfo"]["properties"]["PickupDate"];
    assert_eq!(
        (&date["minLength"], &date["maxLength"]),
        (&json!(4), &json!(4)),
        "Pickup.yaml's PickupDate changed; look at the correction again"
    );
    *date = json!({"type": "string", "pattern": "^[0-9]{8}$"});
    let weight = &mut schemas["PickupCreationRequest_TotalWeight"]["properties"]["Weight"];
    assert_eq!(
        (&weight["minLength"], &weight["maxLength"]),
        (&json!(6), &json!(6)),
        "Pickup.yaml's Weight changed; look at the correction again"
    );
    *weight = json!({"type": "string", "pattern": "^[0-9]{1,5}(\\.[0-9])?$"});
    let root = json!({
        "allOf": [{"$ref": format!("#/components/schemas/{name}")}],
        "components": components,
    });
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .unwrap_or_else(|e| panic!("Pickup.yaml {name}: {e}"))
}

fn description() -> Value {
    let path = format!(
        "{}/tests/fixtures/carriers/ups/Pickup.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| Specs {
        request: schema("PICKUPCreationRequestWrapper"),
        answer: schema("PICKUPCreationResponseWrapper"),
        cancel: schema("PICKUPCancelResponseWrapper"),
        error: schema("ErrorResponse"),
    })
}

fn header<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.headers.get(name).and_then(|h| h.to_str().ok())
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

/// UPS's words for a pickup it will not book. Pickup.yaml has no error examples and UPS's
/// pickup error codes are on its Errors page, so the code stands in for one.
const REFUSAL: &str = "Pickup service is not available for the requested pickup date";

/// UPS with its Pickup API; every other path as `ups` plays it.
fn ups_with_pickups(seen: &Seen, scenario: Scenario, v: &mut Vec<String>) -> (StatusCode, Value) {
    let path = seen.path.as_str();
    let create = path
        .strip_prefix("/api/pickupcreation/")
        .and_then(|rest| rest.strip_suffix("/pickup"));
    let cancel = path
        .strip_prefix("/api/shipments/")
        .and_then(|rest| rest.split_once("/pickup/"));
    if create.is_none() && cancel.is_none() {
        return ups(seen, scenario, v);
    }
    let bearer = header(seen, "authorization").and_then(|a| a.strip_prefix("Bearer "));
    if !bearer.is_some_and(|b| b.starts_with("tok-")) {
        return error(
            StatusCode::UNAUTHORIZED,
            "250002",
            "Invalid Authentication Information.",
            v,
        );
    }
    // Optional in Pickup.yaml, with the lengths it gives when sent.
    if let Some(id) = header(seen, "transId")
        && id.len() != 32
    {
        v.push(format!("transId {id:?} is not 32 characters"));
    }
    if header(seen, "transactionSrc").is_some_and(|s| !(1..=512).contains(&s.len())) {
        v.push("transactionSrc is 1..512 characters".into());
    }
    match scenario {
        Scenario::Reject => return error(StatusCode::BAD_REQUEST, "9510105", REFUSAL, v),
        Scenario::Down => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "9500503",
                "The Pickup service is temporarily unavailable",
                v,
            );
        }
        _ => {}
    }
    match (seen.method.as_str(), create, cancel) {
        ("POST", Some(version), _) => book(seen, version, v),
        ("DELETE", _, Some((version, by))) => cancel_pickup(seen, version, by, v),
        _ => {
            v.push(format!("no such operation: {} {}", seen.method, seen.path));
            (StatusCode::NOT_FOUND, Value::Null)
        }
    }
}

/// The version enum of both operations: v2409 only.
fn version_is_valid(version: &str, v: &mut Vec<String>) {
    if version != "v2409" {
        v.push(format!("version {version:?} is not v2409"));
    }
}

/// `POST /api/pickupcreation/{version}/pickup`: the PRN counts the pickups booked.
fn book(seen: &Seen, version: &str, v: &mut Vec<String>) -> (StatusCode, Value) {
    version_is_valid(version, v);
    check(
        &specs().request,
        &seen.body,
        "PICKUPCreationRequestWrapper",
        v,
    );
    let request = &seen.body["PickupCreationRequest"];
    prose(request, v);
    answer(
        StatusCode::OK,
        &specs().answer,
        json!({"PickupCreationResponse": {
            "Response": {"ResponseStatus": {"Code": "1", "Description": "Success"},
                         "TransactionReference": request["Request"]["TransactionReference"].clone()},
            "PRN": prn(seen.earlier + 1),
            "RateStatus": {"Code": "04", "Description": "Rate not requested"}}}),
        v,
    )
}

/// The replay's `n`th PRN (11 characters).
fn prn(n: usize) -> String {
    format!("2929602E{n:03}")
}

/// `DELETE /api/shipments/{version}/pickup/{CancelBy}`.
fn cancel_pickup(seen: &Seen, version: &str, by: &str, v: &mut Vec<String>) -> (StatusCode, Value) {
    version_is_valid(version, v);
    if !["01", "02"].contains(&by) {
        v.push(format!("CancelBy {by:?} is not 01 or 02"));
    }
    // "Required if CancelBy = prn."
    if by == "02" && header(seen, "prn").is_none_or(str::is_empty) {
        v.push("the Prn header is required to cancel by PRN".into());
    }
    answer(
        StatusCode::OK,
        &specs().cancel,
        json!({"PickupCancelResponse": {
            "Response": {"ResponseStatus": {"Code": "1", "Description": "Success"}},
            "PickupType": "01"}}),
        v,
    )
}

/// What Pickup.yaml asks in words.
fn prose(request: &Value, v: &mut Vec<String>) {
    // "If 01 is the payment method, then ShipperAccountNumber and ShipperAccount CountryCode
    // must be provided."
    if request["PaymentMethod"] == "01" && request["Shipper"]["Account"]["AccountNumber"] != ACCOUNT
    {
        v.push("Shipper.Account is the paying account with PaymentMethod 01".into());
    }
    let address = &request["PickupAddress"];
    // "For Jan. 2010 release, only one AddressLine is allowed."
    if address["AddressLine"].as_array().map_or(0, Vec::len) != 1 {
        v.push("PickupAddress.AddressLine: exactly one line".into());
    }
    // "Required for US, Canada, and Vietnam (VN)."
    if matches!(address["CountryCode"].as_str(), Some("US" | "CA" | "VN"))
        && !address["StateProvince"].is_string()
    {
        v.push("PickupAddress.StateProvince is required in the US, Canada and Vietnam".into());
    }
    let codes: [(&str, &[&str]); 4] = [
        ("RatePickupIndicator", &["Y", "N"]),
        ("AlternateAddressIndicator", &["Y", "N"]),
        ("OverweightIndicator", &["Y", "N"]),
        ("PaymentMethod", &["00", "01", "03", "04", "05", "06", "07"]),
    ];
    for (key, allowed) in codes {
        if let Some(value) = request[key].as_str()
            && !allowed.contains(&value)
        {
            v.push(format!("{key} {value:?} is not one of {allowed:?}"));
        }
    }
    if !["Y", "N"].contains(&address["ResidentialIndicator"].as_str().unwrap_or_default()) {
        v.push("PickupAddress.ResidentialIndicator is Y or N".into());
    }
    // HHmm, local; "CloseTime minus ReadyTime must be greater than the LeadTime".
    let info = &request["PickupDateInfo"];
    let minutes = |key: &str| -> Option<u32> {
        let text = info[key].as_str()?;
        if text.len() != 4 || !text.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let (h, m): (u32, u32) = (text[..2].parse().ok()?, text[2..].parse().ok()?);
        (h < 24 && m < 60).then_some(h * 60 + m)
    };
    match (minutes("ReadyTime"), minutes("CloseTime")) {
        (Some(ready), Some(close)) if close > ready => {}
        _ => v.push("PickupDateInfo: ReadyTime and CloseTime are HHmm, CloseTime the later".into()),
    }
    let date = info["PickupDate"].as_str().unwrap_or_default();
    if jiff::civil::Date::strptime("%Y%m%d", date).is_err() {
        v.push(format!("PickupDate {date:?} is not yyyyMMdd"));
    }
    // "Max per service: 999".
    for (i, piece) in request["PickupPiece"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let quantity = piece["Quantity"].as_str().unwrap_or_default();
        if !quantity
            .parse::<u32>()
            .is_ok_and(|n| (1..=999).contains(&n))
        {
            v.push(format!(
                "PickupPiece[{i}].Quantity {quantity:?} is not 1..999"
            ));
        }
    }
    if request.get("TrackingData").is_some()
        && request.get("TrackingDataWithReferenceNumber").is_some()
    {
        v.push("TrackingData and TrackingDataWithReferenceNumber cannot both be present".into());
    }
}

fn toml(replay: &Replay) -> String {
    format!("[carriers]\nups_url = \"{}\"\n", replay.url)
}

fn pickups(shop: &RealShop) -> String {
    format!("/orgs/{}/pickups", shop.shop.org.id)
}

async fn request_pickup(shop: &RealShop, body: Value) -> crate::helpers::Reply {
    shop.shop
        .app
        .post(&pickups(shop), &shop.shop.org.token, body)
        .await
}

async fn get_pickup(shop: &RealShop, id: &str) -> Value {
    shop.shop
        .app
        .get(&format!("{}/{id}", pickups(shop)), &shop.shop.org.token)
        .await
        .expect(200)
}

/// A pickup on 4 March 2031 from 09:30 to 17:00 at `address` of `shipments`.
fn pickup_body(carrier: &Value, address: &str, shipments: &[&str]) -> Value {
    json!({"carrierId": carrier["id"], "date": "2031-03-04", "readyFrom": "09:30",
           "readyUntil": "17:00", "senderAddressId": address, "shipmentIds": shipments})
}

/// The last pickup request UPS was sent.
fn last_creation(replay: &Replay) -> Value {
    replay
        .requests()
        .into_iter()
        .rfind(|r| r.method == "POST" && r.path == "/api/pickupcreation/v2409/pickup")
        .unwrap_or_else(|| panic!("no pickup was requested"))
        .body["PickupCreationRequest"]
        .clone()
}

#[tokio::test]
async fn books_a_pickup_of_a_booked_shipment_and_its_confirmation_is_the_prn() {
    let replay = Replay::start(ups_with_pickups).await;
    let shop = setup(&toml(&replay)).await;
    let carrier = shop.carrier("ups", config("pdf"), "11").await;
    let shipment = shop.shipment(&carrier, 2).await;
    shop.shop.app.book_shipment(&shop.shop.org, &shipment).await;
    let address = id_of(&shop.shop.address);
    let mut body = pickup_body(&carrier, &address, &[shipment.as_str()]);
    body["note"] = json!("Ring at the goods entrance");
    let pickup = request_pickup(&shop, body).await.expect(201);
    replay.assert_clean();
    let id = pickup["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("pck_"), "{pickup}");
    assert_eq!(
        (
            &pickup["status"],
            &pickup["confirmationNumber"],
            &pickup["error"]
        ),
        (&json!("booked"), &json!(prn(1)), &Value::Null)
    );
    assert_eq!(
        (
            &pickup["carrierId"],
            &pickup["date"],
            &pickup["readyFrom"],
            &pickup["readyUntil"]
        ),
        (
            &carrier["id"],
            &json!("2031-03-04"),
            &json!("09:30"),
            &json!("17:00")
        )
    );
    assert_eq!(pickup["shipmentIds"], json!([shipment]));
    assert_eq!(pickup["senderAddressId"], json!(address));
    assert_eq!(pickup["note"], "Ring at the goods entrance");

    let sent = last_creation(&replay);
    assert_eq!(
        sent["PickupDateInfo"],
        json!({"PickupDate": "20310304", "ReadyTime": "0930", "CloseTime": "1700"})
    );
    // Two parcels of UPS Standard (11) to Denmark: one piece, the service as its 3-digit code.
    assert_eq!(
        sent["PickupPiece"],
        json!([{"ServiceCode": "011", "Quantity": "2", "DestinationCountryCode": "DK", "ContainerCode": "01"}])
    );
    assert_eq!(
        sent["TotalWeight"],
        json!({"Weight": "3.0", "UnitOfMeasurement": "KGS"})
    );
    assert_eq!(sent["OverweightIndicator"], "N");
    assert_eq!(
        sent["PickupAddress"],
        json!({"CompanyName": "Main Warehouse", "ContactName": "Alice Sender",
               "AddressLine": ["Industrivej 1, Building B"], "City": "Glostrup", "PostalCode": "2600",
               "CountryCode": "DK", "ResidentialIndicator": "N", "Phone": {"Number": "4570000000"}})
    );
    assert_eq!(
        sent["Shipper"],
        json!({"Account": {"AccountNumber": ACCOUNT, "AccountCountryCode": "DK"}})
    );
    assert_eq!(sent["PaymentMethod"], "01");
    assert_eq!(sent["RatePickupIndicator"], "N");
    assert_eq!(sent["ReferenceNumber"], json!(id));
    assert_eq!(
        sent["Request"]["TransactionReference"]["CustomerContext"],
        json!(id)
    );
    assert_eq!(sent["SpecialInstruction"], "Ring at the goods entrance");
    assert_eq!(
        sent["Notification"],
        json!({"ConfirmationEmailAddress": "warehouse@example.com"})
    );

    // Read back, alone and in the list.
    let got = get_pickup(&shop, &id).await;
    assert_eq!(
        (&got["status"], &got["confirmationNumber"]),
        (&json!("booked"), &json!(prn(1)))
    );
    let list = shop
        .shop
        .app
        .get(&pickups(&shop), &shop.shop.org.token)
        .await
        .expect(200);
    let ids: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [id.as_str()]);
}

#[tokio::test]
async fn pieces_go_per_service_and_destination_and_a_pickup_of_no_shipments_is_one_package() {
    let replay = Replay::start(ups_with_pickups).await;
    let shop = setup(&toml(&replay)).await;
    let carrier = shop.carrier("ups", config("pdf"), "11").await;
    let standard = shop.shipment(&carrier, 2).await;
    let another = shop.shipment(&carrier, 1).await;
    // Goods to Norway with UPS Worldwide Saver (65), invoiced.
    let mut body = shop.shop.body();
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    body["carrierSettings"]["productId"] = json!("65");
    body["parties"][0]["countryCode"] = json!("NO");
    body["parties"][0]["city"] = json!("Oslo");
    body["parties"][0]["postalCode"] = json!("0150");
    body["parcels"] = json!([{"weight": 2.0, "orderLines": [
        {"sku": "TS-1", "quantity": 3, "description": "Cotton T-shirt", "unitPrice": 100.0,
         "currency": "DKK", "countryOfOrigin": "PT", "tarrifNumber": "6109.10"}]}]);
    let abroad = id_of(&shop.shop.create(body).await);
    for id in [&standard, &another, &abroad] {
        shop.shop.app.book_shipment(&shop.shop.org, id).await;
    }
    let address = id_of(&shop.shop.address);
    let pickup = request_pickup(
        &shop,
        pickup_body(
            &carrier,
            &address,
            &[standard.as_str(), abroad.as_str(), another.as_str()],
        ),
    )
    .await
    .expect(201);
    replay.assert_clean();
    assert_eq!(pickup["confirmationNumber"], prn(1));
    let sent = last_creation(&replay);
    assert_eq!(
        sent["PickupPiece"],
        json!([
            {"ServiceCode": "011", "Quantity": "3", "DestinationCountryCode": "DK", "ContainerCode": "01"},
            {"ServiceCode": "065", "Quantity": "1", "DestinationCountryCode": "NO", "ContainerCode": "01"}
        ])
    );
    assert_eq!(sent["TotalWeight"]["Weight"], "6.0");

    // No shipments named: UPS is told one package of UPS Standard within the country.
    let pickup = request_pickup(&shop, pickup_body(&carrier, &address, &[]))
        .await
        .expect(201);
    replay.assert_clean();
    assert_eq!(
        (&pickup["confirmationNumber"], &pickup["shipmentIds"]),
        (&json!(prn(2)), &json!([]))
    );
    let sent = last_creation(&replay);
    assert_eq!(
        sent["PickupPiece"],
        json!([{"ServiceCode": "011", "Quantity": "1", "DestinationCountryCode": "DK", "ContainerCode": "01"}])
    );
    assert_eq!(sent["TotalWeight"]["Weight"], "0.1");
    assert!(sent.get("SpecialInstruction").is_none(), "{sent}");

    // In the United States: UPS Ground, and the state UPS requires there.
    let mut warehouse = crate::fixtures::sender_address_body();
    warehouse["address1"] = json!("600 Congress Ave");
    warehouse["address2"] = Value::Null;
    warehouse["zipcode"] = json!("78701");
    warehouse["city"] = json!("Austin");
    warehouse["countryCode"] = json!("US");
    warehouse["state"] = json!("TX");
    warehouse["phone"] = json!("+15125550100");
    let texas = shop
        .shop
        .app
        .create_sender_address_with(&shop.shop.org, warehouse)
        .await;
    request_pickup(&shop, pickup_body(&carrier, &id_of(&texas), &[]))
        .await
        .expect(201);
    replay.assert_clean();
    let sent = last_creation(&replay);
    assert_eq!(
        (
            &sent["PickupAddress"]["StateProvince"],
            &sent["PickupAddress"]["AddressLine"],
            &sent["PickupAddress"]["PostalCode"]
        ),
        (&json!("TX"), &json!(["600 Congress Ave"]), &json!("78701"))
    );
    assert_eq!(
        sent["PickupPiece"],
        json!([{"ServiceCode": "003", "Quantity": "1", "DestinationCountryCode": "US", "ContainerCode": "01"}])
    );
    assert_eq!(sent["Shipper"]["Account"]["AccountCountryCode"], "US");
}

#[tokio::test]
async fn cancelling_sends_the_prn_and_a_refused_cancel_keeps_the_pickup() {
    let replay = Replay::start(ups_with_pickups).await;
    let shop = setup(&toml(&replay)).await;
    let carrier = shop.carrier("ups", config("pdf"), "11").await;
    let address = id_of(&shop.shop.address);
    let pickup = request_pickup(&shop, pickup_body(&carrier, &address, &[]))
        .await
        .expect(201);
    let id = pickup["id"].as_str().unwrap().to_string();
    let path = format!("{}/{id}", pickups(&shop));
    let cancels = || {
        replay
            .requests()
            .into_iter()
            .filter(|r| r.method == "DELETE")
            .collect::<Vec<_>>()
    };

    replay.set(Scenario::Reject);
    let problem = shop
        .shop
        .app
        .delete(&path, &shop.shop.org.token)
        .await
        .problem(422, "carrier_rejected");
    assert!(
        problem["detail"].as_str().unwrap().contains(REFUSAL),
        "{problem}"
    );
    assert_eq!(get_pickup(&shop, &id).await["status"], "booked");

    replay.set(Scenario::Ok);
    let done = shop
        .shop
        .app
        .delete(&path, &shop.shop.org.token)
        .await
        .expect(200);
    assert_eq!(done, json!({"message": "pickup cancelled"}));
    let cancel = cancels().pop().unwrap();
    assert_eq!(cancel.path, "/api/shipments/v2409/pickup/02");
    assert_eq!(
        cancel.headers.get("prn").and_then(|h| h.to_str().ok()),
        Some(prn(1).as_str())
    );
    assert!(cancel.raw.is_empty(), "a cancel has no body");
    let got = get_pickup(&shop, &id).await;
    assert_eq!(
        (&got["status"], &got["confirmationNumber"]),
        (&json!("cancelled"), &json!(prn(1)))
    );
    assert_eq!(cancels().len(), 2, "UPS was asked twice, no more");
    replay.assert_clean();
}

#[tokio::test]
async fn a_ups_refusal_or_outage_books_no_pickup() {
    let replay = Replay::start(ups_with_pickups).await;
    let shop = setup(&toml(&replay)).await;
    let carrier = shop.carrier("ups", config("pdf"), "11").await;
    let address = id_of(&shop.shop.address);
    let body = pickup_body(&carrier, &address, &[]);

    replay.set(Scenario::Reject);
    let problem = request_pickup(&shop, body.clone())
        .await
        .problem(422, "carrier_rejected");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("{REFUSAL} (UPS error 9510105)")),
        "{problem}"
    );

    replay.set(Scenario::Down);
    let problem = request_pickup(&shop, body)
        .await
        .problem(502, "carrier_unavailable");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("temporarily unavailable"),
        "{problem}"
    );

    // Nothing was booked, so nothing is kept.
    let list = shop
        .shop
        .app
        .get(&pickups(&shop), &shop.shop.org.token)
        .await
        .expect(200);
    assert_eq!(list["data"], json!([]));
    replay.assert_clean();
}

#[test]
fn the_description_catches_what_ups_would_refuse() {
    // UPS's own first example as written: no Request (which the schema requires) and the
    // address line as a string, not the array the schema declares.
    let doc = description();
    let example = &doc["paths"]["/pickupcreation/{version}/pickup"]["post"]["requestBody"]["content"]
        ["application/json"]["examples"]["1"]["value"];
    assert!(example.is_object(), "the example is in the description");
    let mut found = Vec::new();
    check(&specs().request, example, "example", &mut found);
    let text = found.join("\n");
    assert!(
        found
            .iter()
            .any(|f| f.contains("\"Request\"") && f.contains("required")),
        "{text}"
    );
    assert!(
        text.contains("/PickupCreationRequest/PickupAddress/AddressLine"),
        "{text}"
    );
    // Its date and weight are well formed once the two lengths are read as the formats say.
    assert!(
        !text.contains("PickupDate") && !text.contains("TotalWeight"),
        "{text}"
    );
    // And what the corrections still refuse.
    let mut request = example.clone();
    request["PickupCreationRequest"]["PickupDateInfo"]["PickupDate"] = json!("2031-03-04");
    request["PickupCreationRequest"]["TotalWeight"]["Weight"] = json!(5.5);
    let mut found = Vec::new();
    check(&specs().request, &request, "request", &mut found);
    let text = found.join("\n");
    for expected in [
        "/PickupCreationRequest/PickupDateInfo/PickupDate",
        "/PickupCreationRequest/TotalWeight/Weight",
    ] {
        assert!(text.contains(expected), "{expected} not found in {text}");
    }
}
