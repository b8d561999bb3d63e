//! The PostNord adapter against a replay of PostNord's Booking API (EDI labels, PDF and ZPL) and
//! Track and Trace v7, as their published specifications describe them.

use base64::{Engine, engine::general_purpose::STANDARD};
use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    replay::{Replay, Scenario, Seen, array, number, one_of, pdf, text, zpl},
    setup, wait_for_tracking,
};
use crate::fixtures::id_of;

pub const API_KEY: &str = "0123456789abcdef0123456789abcdef";
pub(super) const PREFIX: &str = "/rest/shipment";

/// PostNord as the replay plays it.
pub(super) fn postnord(
    seen: &Seen,
    scenario: Scenario,
    v: &mut Vec<String>,
) -> (StatusCode, Value) {
    if seen.query("apikey") != Some(API_KEY) {
        return (
            StatusCode::UNAUTHORIZED,
            json!({"message": "Invalid apikey",
            "compositeFault": {"faults": [{"faultCode": "API-001", "explanationText": "The apikey is not valid"}]}}),
        );
    }
    let path = seen.path.strip_prefix(PREFIX).unwrap_or_default();
    if seen.method == "GET"
        && path.starts_with("/v7/trackandtrace/id/")
        && path.ends_with("/public")
    {
        let id = &path["/v7/trackandtrace/id/".len()..path.len() - "/public".len()];
        return (StatusCode::OK, tracking(id));
    }
    let zpl_label = match (seen.method.as_str(), path) {
        ("POST", "/v3/edi/labels/pdf") => false,
        ("POST", "/v3/edi/labels/zpl") => true,
        _ => {
            v.push(format!("no such operation: {} {}", seen.method, seen.path));
            return (StatusCode::NOT_FOUND, Value::Null);
        }
    };
    if let Some(paper) = seen.query("paperSize")
        && (zpl_label || !["A4", "A5", "A6", "LETTER", "LABEL"].contains(&paper))
    {
        v.push(format!("paperSize {paper} is not allowed here"));
    }
    let body = &seen.body;
    let date = text(body, "/messageDate", 1, 40, v);
    if time::OffsetDateTime::parse(&date, &time::format_description::well_known::Rfc3339).is_err() {
        v.push(format!("messageDate {date:?} is not a date-time"));
    }
    text(body, "/messageId", 1, 35, v);
    one_of(
        body,
        "/updateIndicator",
        &["Original", "Update", "Deletion"],
        v,
    );
    let shipments = array(body, "/shipment", 1, 200, v);
    let mut items = Vec::new();
    for (i, _) in shipments.iter().enumerate() {
        let at = |rest: &str| format!("/shipment/{i}{rest}");
        text(body, &at("/service/basicServiceCode"), 1, 10, v);
        one_of(
            body,
            &at("/parties/consignor/issuerCode"),
            &["Z11", "Z12", "Z13", "Z14", "ZDL"],
            v,
        );
        text(
            body,
            &at("/parties/consignor/partyIdentification/partyId"),
            1,
            17,
            v,
        );
        text(
            body,
            &at("/parties/consignor/partyIdentification/partyIdType"),
            1,
            3,
            v,
        );
        for party in ["consignor", "consignee"] {
            let p = |rest: &str| at(&format!("/parties/{party}/party{rest}"));
            text(body, &p("/nameIdentification/name"), 1, 60, v);
            text(body, &p("/address/postalCode"), 1, 20, v);
            text(body, &p("/address/city"), 1, 35, v);
            text(body, &p("/address/countryCode"), 2, 2, v);
            for (n, _) in array(body, &p("/address/streets"), 1, 3, v)
                .iter()
                .enumerate()
            {
                text(body, &p(&format!("/address/streets/{n}")), 1, 50, v);
            }
        }
        for (g, _) in array(body, &at("/goodsItem"), 1, 200, v).iter().enumerate() {
            for (n, _) in array(body, &at(&format!("/goodsItem/{g}/items")), 1, 200, v)
                .iter()
                .enumerate()
            {
                let item = |rest: &str| at(&format!("/goodsItem/{g}/items/{n}{rest}"));
                text(body, &item("/itemIdentification/itemId"), 1, 35, v);
                number(body, &item("/grossWeight/value"), 0.0, v);
                one_of(body, &item("/grossWeight/unit"), &["KGM", "GRM", "TON"], v);
                items.push(());
            }
        }
    }
    match scenario {
        Scenario::Reject => {
            return (
                StatusCode::BAD_REQUEST,
                json!({"message": "Validation failed", "compositeFault": {"faults": [
                {"faultCode": "API-005", "explanationText": "Postal code is not valid for the country",
                 "paramValues": [{"param": "shipment[0].parties.consignee.party.address.postalCode", "value": "XX"}]}]}}),
            );
        }
        Scenario::Unauthorized => {
            return (
                StatusCode::FORBIDDEN,
                json!({"message": "Forbidden",
                "compositeFault": {"faults": [{"faultCode": "API-002", "explanationText": "The customer number is not allowed for this apikey"}]}}),
            );
        }
        Scenario::Down => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"message": "Service unavailable"}),
            );
        }
        Scenario::Ok | Scenario::Slow | Scenario::Revoked => {}
    }
    let shipment_id = "00370712345600000";
    let numbers: Vec<String> = (1..=items.len())
        .map(|n| format!("0037071234560000{n}"))
        .collect();
    let mut ids = vec![json!({"idType": "shipmentId", "value": shipment_id})];
    ids.extend(
        numbers
            .iter()
            .enumerate()
            .map(|(i, n)| json!({"idType": "itemId", "value": n, "printId": format!("p{i}")})),
    );
    let printouts: Vec<Value> = numbers
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let data = if zpl_label { zpl(n) } else { pdf(n) };
            json!({"itemIds": [{"itemIds": n, "printId": format!("p{i}"), "status": "OK"}],
                   "printout": {"id": i.to_string(), "type": "LABEL", "labelFormat": if zpl_label { "ZPL" } else { "PDF" },
                                "encoding": "base64", "data": STANDARD.encode(data)}})
        })
        .collect();
    (
        StatusCode::OK,
        json!({
            "bookingResponse": {"bookingId": "3YSFH8NG0LNREZO38UIN68B3RRWL4X", "idInformation": [{
                "status": "OK", "ids": ids,
                "urls": [{"type": "TRACKING", "url": format!("https://tracking.postnord.com/se/?id={shipment_id}")}]}]},
            "labelPrintout": printouts
        }),
    )
}

fn tracking(id: &str) -> Value {
    json!({"TrackingInformationResponse": {"shipments": [{"shipmentId": "00370712345600000", "status": "DELIVERED",
    "service": {"code": "18", "sourceSystem": "PN", "name": "PostNord Parcel"},
    "items": [{"itemId": id, "status": "DELIVERED", "events": [
        {"eventTime": "2026-11-20T08:00:00Z", "eventCode": "EDI_RECEIVED", "eventDescription": "The shipment has been booked",
         "status": "CREATED", "location": {"locationId": "0", "locationType": "UNDEF"}},
        {"eventTime": "2026-11-20T18:10:00Z", "eventCode": "ITEM_SORTED", "eventDescription": "The item is under transportation",
         "status": "EN_ROUTE", "location": {"locationId": "1234", "locationType": "HUB", "displayName": "Stockholm", "countryCode": "SE"}},
        {"eventTime": "2026-11-21T11:30:00Z", "eventCode": "ITEM_DELIVERED", "eventDescription": "The item has been delivered",
         "status": "DELIVERED", "location": {"locationId": "5678", "locationType": "DELIVERY_POINT", "displayName": "Göteborg", "countryCode": "SE"}}
    ]}]}]}})
}

pub(super) fn config(format: &str) -> Value {
    json!({"apiKey": API_KEY, "customerNumber": "1234567890", "issuerCode": "Z12", "sandbox": true, "labelFormat": format})
}

#[tokio::test]
async fn books_with_postnords_own_labels_one_number_per_parcel() {
    let replay = Replay::start(postnord).await;
    let shop = setup(&format!(
        "[carriers]\npostnord_url = \"{}{PREFIX}\"\n",
        replay.url
    ))
    .await;
    for (format, parcels) in [("pdf", 1), ("zpl", 2)] {
        let carrier = shop.carrier("postnord", config(format), "18").await;
        let id = shop.shipment(&carrier, parcels).await;
        let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
        replay.assert_clean();
        let numbers: Vec<&str> = booked["parcels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["trackingNumber"].as_str().unwrap())
            .collect();
        let expected: Vec<String> = (1..=parcels)
            .map(|n| format!("0037071234560000{n}"))
            .collect();
        assert_eq!(numbers, expected);
        assert_eq!(booked["tracking"]["number"], json!(expected[0]));
        assert_eq!(
            booked["tracking"]["url"],
            "https://tracking.postnord.com/se/?id=00370712345600000"
        );
        let labels = booked["documents"].as_array().unwrap();
        assert_eq!(labels.len(), parcels, "{format}");
        for (label, number) in labels.iter().zip(&expected) {
            let content = STANDARD.decode(label["content"].as_str().unwrap()).unwrap();
            assert_eq!(label["format"], format);
            assert_eq!(
                content,
                if format == "zpl" {
                    zpl(number)
                } else {
                    pdf(number)
                },
                "PostNord's own label"
            );
        }
        let request = replay.requests().pop().unwrap();
        assert_eq!(request.path, format!("{PREFIX}/v3/edi/labels/{format}"));
        let items = request.body["shipment"][0]["goodsItem"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(items, parcels);
        assert_eq!(
            request.body["shipment"][0]["service"]["basicServiceCode"],
            "18"
        );
        assert_eq!(
            request.body["shipment"][0]["parties"]["consignee"]["party"]["nameIdentification"]["name"],
            "Jane Receiver"
        );
    }
}

#[tokio::test]
async fn refusals_are_422_naming_what_postnord_refused_and_outages_502_with_nothing_stored() {
    let replay = Replay::start(postnord).await;
    let shop = setup(&format!(
        "[carriers]\npostnord_url = \"{}{PREFIX}\"\ntimeout_seconds = 1\n",
        replay.url
    ))
    .await;
    let carrier = shop.carrier("postnord", config("pdf"), "18").await;
    let id = shop.shipment(&carrier, 1).await;
    let book = || shop.shop.post(&id, "/book", json!({}));
    replay.set(Scenario::Reject);
    let problem = book().await.problem(422, "carrier_rejected");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("Postal code is not valid for the country") && detail.contains("API-005"),
        "{detail}"
    );
    replay.set(Scenario::Unauthorized);
    let problem = book().await.problem(422, "carrier_rejected");
    assert!(
        problem["detail"].as_str().unwrap().contains("API key"),
        "{problem}"
    );
    replay.set(Scenario::Down);
    let problem = book().await.problem(502, "carrier_unavailable");
    assert!(
        problem["detail"].as_str().unwrap().contains("503"),
        "{problem}"
    );
    // No answer in time: PostNord may have booked it, so the shipment waits for a decision.
    replay.set(Scenario::Slow);
    let problem = book().await.problem(504, "carrier_timeout");
    assert!(
        problem["detail"].as_str().unwrap().contains("in time"),
        "{problem}"
    );
    book().await.problem(409, "booking_outcome_unknown");
    replay.assert_clean();
    let shipment = shop.shop.get(&id).await;
    assert_eq!(
        (
            &shipment["status"],
            &shipment["documents"],
            &shipment["tracking"]
        ),
        (&json!("pending"), &json!([]), &Value::Null)
    );
    // Nothing of the key leaks into answers or logs of the refusals.
    assert!(!problem.to_string().contains(API_KEY));
}

#[tokio::test]
async fn the_api_key_is_stored_sealed_and_shown_as_set() {
    let replay = Replay::start(postnord).await;
    let shop = setup(&format!(
        "[carriers]\npostnord_url = \"{}{PREFIX}\"\n",
        replay.url
    ))
    .await;
    let carrier = shop.carrier("postnord", config("pdf"), "18").await;
    assert_eq!(carrier["config"]["apiKey"], "********");
    assert_eq!(carrier["config"]["customerNumber"], "1234567890");
    let path = format!("/orgs/{}/carriers/{}", shop.shop.org.id, id_of(&carrier));
    let got = shop
        .shop
        .app
        .get(&path, &shop.shop.org.token)
        .await
        .expect(200);
    assert_eq!(got["config"]["apiKey"], "********");
    // Sent back masked, the key is kept: booking still authenticates.
    let mut body = json!({"name": "PostNord", "carrierSlug": "postnord", "config": got["config"], "senderAddressId": got["senderAddressId"]});
    body["config"]["paperSize"] = json!("A6");
    shop.shop
        .app
        .put(&path, &shop.shop.org.token, body.clone())
        .await
        .expect(200);
    let id = shop.shipment(&carrier, 1).await;
    let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    assert_eq!(booked["documents"][0]["size"], "100X150");
    assert_eq!(
        replay.requests().pop().unwrap().query("apikey"),
        Some(API_KEY)
    );
    // The database holds no copy of the key in clear.
    let db = std::fs::read(shop.shop.app.dir.path().join("data").join("shipbase.db"))
        .unwrap_or_default();
    let wal = std::fs::read(
        shop.shop
            .app
            .dir
            .path()
            .join("data")
            .join("shipbase.db-wal"),
    )
    .unwrap_or_default();
    for bytes in [db, wal] {
        assert!(
            !bytes
                .windows(API_KEY.len())
                .any(|w| w == API_KEY.as_bytes()),
            "the key is stored in clear"
        );
    }
    // A mask with no key behind it is refused.
    let create = json!({"name": "PostNord 2", "carrierSlug": "postnord", "config": got["config"], "senderAddressId": got["senderAddressId"]});
    let problem = shop
        .shop
        .app
        .post(
            &format!("/orgs/{}/carriers", shop.shop.org.id),
            &shop.shop.org.token,
            create,
        )
        .await
        .problem(400, "validation_failed");
    assert_eq!(crate::helpers::error_fields(&problem), ["config.apiKey"]);
}

#[tokio::test]
async fn tracking_is_fetched_for_shipments_on_their_way() {
    let replay = Replay::start(postnord).await;
    let shop = setup(&format!(
        "[carriers]\npostnord_url = \"{}{PREFIX}\"\ntracking_interval_seconds = 1\n",
        replay.url
    ))
    .await;
    let carrier = shop.carrier("postnord", config("pdf"), "18").await;
    let id = shop.shipment(&carrier, 1).await;
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    let tracking = wait_for_tracking(&shop.shop, &id, "delivered").await;
    let statuses: Vec<&str> = tracking["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["delivered", "in_transit", "created"],
        "newest first: {tracking}"
    );
    assert_eq!(tracking["events"][0]["location"], "Göteborg, SE");
    assert_eq!(
        tracking["events"][0]["occurredAt"],
        "2026-11-21T11:30:00.000Z"
    );
    let request = replay
        .requests()
        .into_iter()
        .find(|r| r.method == "GET")
        .unwrap();
    assert_eq!(
        request.path,
        format!("{PREFIX}/v7/trackandtrace/id/00370712345600001/public")
    );
    replay.assert_clean();
}
