//! Operations on one shipment: booking and its PDF labels, raw documents, the status machine,
//! deletion, applying a shipping rule and tracking events (SPEC §3, row 14; DESIGN §7, §16).

use std::time::Duration;

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Value, json};

use crate::{
    fixtures::{
        SHIPMENT_STATUSES, Shop, assert_id, assert_invalid, assert_timestamp, id_of, parcel_body,
        with,
    },
    helpers::header,
};

/// The moves of the status machine (DESIGN §7); every other pair is refused.
const ALLOWED: [(&str, &str); 16] = [
    ("draft", "pending"),
    ("draft", "cancelled"),
    ("pending", "processing"),
    ("pending", "on_hold"),
    ("pending", "error"),
    ("pending", "cancelled"),
    ("on_hold", "pending"),
    ("on_hold", "cancelled"),
    ("processing", "dispatched"),
    ("processing", "partly_dispatched"),
    ("processing", "error"),
    ("processing", "cancelled"),
    ("error", "pending"),
    ("error", "cancelled"),
    ("partly_dispatched", "dispatched"),
    ("partly_dispatched", "error"),
];

const UNKNOWN_SHIPMENT: &str = "shp_01ARZ3NDEKTSV4RRFFQ69G5FAV";

/// Page size in PDF points: A4 is 210 × 297 mm, the label 100 × 150 mm.
const A4_POINTS: (f32, f32) = (595.276, 841.89);
const LABEL_POINTS: (f32, f32) = (283.465, 425.197);

/// A body with two parcels: 1.25 kg holding 1 × SKU-1 and 2 kg holding 3 × SKU-2.
fn two_parcels(shop: &Shop) -> Value {
    let parcels = json!([
        parcel_body(1.25, &[("SKU-1", 1)]),
        parcel_body(2.0, &[("SKU-2", 3)])
    ]);
    with(shop.body(), "parcels", parcels)
}

fn documents_of(shipment: &Value) -> Vec<Value> {
    shipment["documents"]
        .as_array()
        .unwrap_or_else(|| panic!("no documents in {shipment}"))
        .clone()
}

fn number(object: &lopdf::Object) -> f32 {
    match object {
        lopdf::Object::Integer(i) => *i as f32,
        lopdf::Object::Real(r) => *r,
        other => panic!("not a number: {other:?}"),
    }
}

/// Checks one label document of `shipment`: its fields, that its content is a one-page PDF of
/// `points` whose text holds the tracking number. Returns the PDF's bytes.
#[track_caller]
/// Checks the label of parcel `n` (from 0) of `shipment`: its file, size, and that it prints the
/// parcel's own tracking number.
fn check_label(
    document: &Value,
    shipment: &Value,
    n: usize,
    size: &str,
    points: (f32, f32),
) -> Vec<u8> {
    assert_id(&document["id"], "doc");
    assert_eq!(document["shipmentId"], shipment["id"], "{document}");
    assert_eq!(document["documentType"], "label");
    assert_eq!(document["format"], "pdf");
    assert_eq!(document["size"], size);
    assert_timestamp(&document["createdAt"]);
    assert_timestamp(&document["updatedAt"]);
    let content = document["content"].as_str().unwrap_or_default();
    let bytes = STANDARD.decode(content).expect("content is base64");
    assert!(bytes.starts_with(b"%PDF-"), "not a PDF");
    let pdf = lopdf::Document::load_mem(&bytes).expect("a readable PDF");
    let pages = pdf.get_pages();
    assert_eq!(pages.len(), 1, "one page");
    let media_box: Vec<f32> = pdf
        .get_dictionary(pages[&1])
        .and_then(|page| page.get(b"MediaBox"))
        .and_then(lopdf::Object::as_array)
        .expect("a MediaBox")
        .iter()
        .map(number)
        .collect();
    assert_eq!(media_box.len(), 4, "{media_box:?}");
    let (w, h) = points;
    assert!(
        media_box[0].abs() < 0.01
            && media_box[1].abs() < 0.01
            && (media_box[2] - w).abs() < 0.01
            && (media_box[3] - h).abs() < 0.01,
        "{size}: MediaBox {media_box:?}"
    );
    let tracking = shipment["parcels"][n]["trackingNumber"]
        .as_str()
        .unwrap_or_default();
    assert!(!tracking.is_empty(), "{shipment}");
    let text = pdf.extract_text(&[1]).expect("text");
    assert!(text.contains(tracking), "{tracking} not in {text:?}");
    bytes
}

async fn download(shop: &Shop, id: &str, document_id: &str) -> reqwest::Response {
    shop.app
        .client
        .get(
            shop.app
                .url(&shop.path(id, &format!("/documents/{document_id}"))),
        )
        .bearer_auth(&shop.org.token)
        .send()
        .await
        .expect("request")
}

// Booking.

#[tokio::test]
async fn booking_a_pending_shipment_gives_tracking_and_one_a4_label_per_parcel() {
    let shop = Shop::new().await;
    let created = shop.create(two_parcels(&shop)).await;
    let id = id_of(&created);
    let booked = shop.post_empty(&id, "/book").await.expect(200);
    assert_eq!(booked["status"], "processing");
    let number = booked["tracking"]["number"].as_str().unwrap_or_default();
    assert!(!number.is_empty(), "{booked}");
    let url = booked["tracking"]["url"].as_str().unwrap_or_default();
    assert!(
        url.starts_with("https://") && url.contains(number),
        "tracking url {url:?} for {number}"
    );
    let documents = documents_of(&booked);
    assert_eq!(documents.len(), 2, "one label per parcel");
    for (n, document) in documents.iter().enumerate() {
        check_label(document, &booked, n, "A4", A4_POINTS);
    }
    assert_ne!(documents[0]["id"], documents[1]["id"]);
    // One tracking number per parcel; the shipment's is the first parcel's.
    let parcels = &booked["parcels"];
    assert_ne!(parcels[0]["trackingNumber"], parcels[1]["trackingNumber"]);
    assert_eq!(booked["tracking"]["number"], parcels[0]["trackingNumber"]);
    assert_eq!(shop.get(&id).await, booked);
}

#[tokio::test]
async fn a_carrier_configured_for_100x150_books_100x150_labels() {
    let shop = Shop::new().await;
    let carrier = shop
        .app
        .create_carrier_with(
            &shop.org,
            json!({
                "name": "Thermal",
                "carrierSlug": "sandbox",
                "config": {"labelSize": "100X150"},
                "senderAddressId": id_of(&shop.address)
            }),
        )
        .await;
    let mut body = shop.body();
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    let id = id_of(&shop.create(body).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let documents = documents_of(&booked);
    assert_eq!(documents.len(), 1);
    check_label(&documents[0], &booked, 0, "100X150", LABEL_POINTS);
}

#[tokio::test]
async fn a_document_downloads_as_application_pdf_with_the_bytes_of_its_content() {
    let shop = Shop::new().await;
    let id = id_of(&shop.create(two_parcels(&shop)).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let reference = booked["reference"].as_str().unwrap_or_default().to_string();
    for (n, document) in documents_of(&booked).into_iter().enumerate() {
        let expected = check_label(&document, &booked, n, "A4", A4_POINTS);
        let response = download(&shop, &id, &id_of(&document)).await;
        assert_eq!(response.status().as_u16(), 200);
        // Labels are numbered per shipment: <reference>-label-1.pdf, -2.pdf, …
        assert_eq!(
            header(response.headers(), "content-disposition"),
            format!("attachment; filename=\"{reference}-label-{}.pdf\"", n + 1)
        );
        assert_eq!(
            header(response.headers(), "content-type"),
            "application/pdf"
        );
        let bytes = response.bytes().await.expect("body");
        assert_eq!(bytes.as_ref(), expected.as_slice());
    }
}

#[tokio::test]
async fn an_unknown_document_is_404() {
    let shop = Shop::new().await;
    let id = id_of(&shop.create(shop.body()).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let document_id = id_of(&documents_of(&booked)[0]);
    let other = id_of(&shop.create(shop.body()).await);
    for path in [
        shop.path(&id, "/documents/doc_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        // A real document, asked for under another shipment.
        shop.path(&other, &format!("/documents/{document_id}")),
        shop.path(UNKNOWN_SHIPMENT, &format!("/documents/{document_id}")),
    ] {
        shop.app
            .get(&path, &shop.org.token)
            .await
            .problem(404, "not_found");
    }
}

#[tokio::test]
async fn booking_twice_is_409_and_keeps_the_first_booking() {
    let shop = Shop::new().await;
    let id = id_of(&shop.create(shop.body()).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    shop.post_empty(&id, "/book")
        .await
        .problem(409, "invalid_state");
    assert_eq!(shop.get(&id).await, booked);
}

#[tokio::test]
async fn booking_outside_pending_is_409_and_keeps_the_status() {
    let shop = Shop::new().await;
    for status in ["draft", "on_hold", "error", "cancelled", "dispatched"] {
        let created = shop
            .create(with(shop.body(), "status", json!(status)))
            .await;
        let id = id_of(&created);
        let reply = shop.post_empty(&id, "/book").await;
        assert_eq!(reply.status.as_u16(), 409, "{status}: {}", reply.text);
        reply.problem(409, "invalid_state");
        let after = shop.get(&id).await;
        assert_eq!(after["status"], status);
        assert!(after["tracking"].is_null(), "{after}");
        assert_eq!(after["documents"], json!([]), "{after}");
    }
}

#[tokio::test]
async fn booking_an_unknown_shipment_is_404() {
    let shop = Shop::new().await;
    shop.post_empty(UNKNOWN_SHIPMENT, "/book")
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn the_manual_carrier_books_with_the_given_tracking_number_and_url_template() {
    let shop = Shop::new().await;
    let carrier = shop
        .app
        .create_carrier_with(
            &shop.org,
            json!({
                "name": "Own agreement",
                "carrierSlug": "manual",
                "config": {"trackingUrlTemplate": "https://track.example/{number}"},
                "senderAddressId": id_of(&shop.address)
            }),
        )
        .await;
    let mut body = shop.body();
    body["carrierSettings"] = json!({
        "carrierId": carrier["id"],
        "productId": "standard",
        "additionalParameters": {"trackingNumber": "OWN123456789"}
    });
    let id = id_of(&shop.create(body).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    assert_eq!(booked["status"], "processing");
    assert_eq!(booked["tracking"]["number"], "OWN123456789");
    assert_eq!(
        booked["tracking"]["url"],
        "https://track.example/OWN123456789"
    );
    let documents = documents_of(&booked);
    assert_eq!(documents.len(), 1);
    check_label(&documents[0], &booked, 0, "A4", A4_POINTS);
}

// The status machine.

#[tokio::test]
async fn every_status_move_follows_the_status_machine() {
    let shop = Shop::new().await;
    let mut checked = 0;
    for from in SHIPMENT_STATUSES {
        for to in SHIPMENT_STATUSES {
            let created = shop.create(with(shop.body(), "status", json!(from))).await;
            let id = id_of(&created);
            let reply = shop.post(&id, "/status", json!({"status": to})).await;
            if ALLOWED.contains(&(from, to)) {
                assert_eq!(reply.status.as_u16(), 200, "{from} -> {to}: {}", reply.text);
                assert_eq!(reply.body["status"], to, "{from} -> {to}");
                assert_eq!(shop.get(&id).await["status"], to, "{from} -> {to}");
            } else {
                assert_eq!(reply.status.as_u16(), 409, "{from} -> {to}: {}", reply.text);
                reply.problem(409, "invalid_state");
                assert_eq!(shop.get(&id).await, created, "{from} -> {to}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 64);
}

#[tokio::test]
async fn an_unknown_status_value_is_400_and_changes_nothing() {
    let shop = Shop::new().await;
    let created = shop.create(shop.body()).await;
    let id = id_of(&created);
    for status in [json!("shipped"), json!(""), json!("PENDING")] {
        assert_invalid(
            shop.post(&id, "/status", json!({"status": status})).await,
            "status",
        );
    }
    assert_invalid(shop.post(&id, "/status", json!({})).await, "status");
    assert_eq!(shop.get(&id).await, created);
}

#[tokio::test]
async fn moving_an_unknown_shipment_is_404() {
    let shop = Shop::new().await;
    shop.post(UNKNOWN_SHIPMENT, "/status", json!({"status": "cancelled"}))
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn a_status_move_advances_updated_at() {
    let shop = Shop::new().await;
    let created = shop.create(shop.body()).await;
    let id = id_of(&created);
    // Timestamps have millisecond precision; make sure one has passed.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let moved = shop
        .app
        .set_shipment_status(&shop.org, &id, "on_hold")
        .await;
    assert_timestamp(&moved["updatedAt"]);
    let (before, after) = (
        created["updatedAt"].as_str().unwrap_or_default(),
        moved["updatedAt"].as_str().unwrap_or_default(),
    );
    assert!(after > before, "{before} -> {after}");
    assert_eq!(moved["createdAt"], created["createdAt"]);
    assert_eq!(shop.get(&id).await["updatedAt"], moved["updatedAt"]);
}

// Deletion.

#[tokio::test]
async fn deleting_a_draft_or_pending_shipment_answers_a_message_and_then_404() {
    let shop = Shop::new().await;
    for status in ["draft", "pending"] {
        let id = id_of(
            &shop
                .create(with(shop.body(), "status", json!(status)))
                .await,
        );
        let path = shop.path(&id, "");
        let deleted = shop.app.delete(&path, &shop.org.token).await.expect(200);
        let message = deleted["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{status}: {deleted}");
        shop.app
            .get(&path, &shop.org.token)
            .await
            .problem(404, "not_found");
        shop.app
            .delete(&path, &shop.org.token)
            .await
            .problem(404, "not_found");
    }
    let list = shop
        .app
        .get(&format!("/orgs/{}/shipments", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    assert_eq!(list["total"], 0);
}

#[tokio::test]
async fn deleting_a_shipment_in_any_other_status_is_409_and_keeps_it() {
    let shop = Shop::new().await;
    for status in SHIPMENT_STATUSES
        .iter()
        .filter(|s| !matches!(**s, "draft" | "pending"))
    {
        let created = shop
            .create(with(shop.body(), "status", json!(status)))
            .await;
        let id = id_of(&created);
        let reply = shop.app.delete(&shop.path(&id, ""), &shop.org.token).await;
        assert_eq!(reply.status.as_u16(), 409, "{status}: {}", reply.text);
        reply.problem(409, "invalid_state");
        assert_eq!(shop.get(&id).await, created, "{status}");
    }
}

// Applying a shipping rule.

/// A rule on a second sandbox carrier with product, services and parameters of its own.
async fn express_rule(shop: &Shop) -> (Value, Value) {
    let carrier = shop
        .app
        .create_carrier(&shop.org, &id_of(&shop.address))
        .await;
    let rule = shop
        .app
        .create_rule(
            &shop.org,
            json!({
                "name": "Express with care",
                "carrierId": id_of(&carrier),
                "productId": "express",
                "services": ["insurance", "saturday"],
                "additionalParameters": [
                    {"name": "labelText", "val": "Fragile"},
                    {"name": "dropCode", "val": "42"}
                ],
                "senderAddressId": id_of(&shop.address)
            }),
        )
        .await;
    (carrier, rule)
}

#[tokio::test]
async fn applying_a_rule_overwrites_the_carrier_settings_and_links_the_rule() {
    let shop = Shop::new().await;
    let (carrier, rule) = express_rule(&shop).await;
    let mut body = shop.body();
    body["carrierSettings"]["additionalParameters"] = json!({"old": "value"});
    let id = id_of(&shop.create(body).await);
    let applied = shop
        .post(
            &id,
            "/apply-shipping-rule",
            json!({"shippingRuleId": rule["id"]}),
        )
        .await
        .expect(200);
    assert_eq!(
        applied["carrierSettings"],
        json!({
            "carrierId": carrier["id"],
            "productId": "express",
            "services": ["insurance", "saturday"],
            "additionalParameters": {"labelText": "Fragile", "dropCode": "42"}
        })
    );
    assert_eq!(applied["shippingRuleId"], rule["id"]);
    assert_eq!(applied["status"], "pending");
    let got = shop.get(&id).await;
    assert_eq!(got["carrierSettings"], applied["carrierSettings"]);
    assert_eq!(got["shippingRuleId"], rule["id"]);
    let summary = &got["shippingRule"];
    assert_eq!(summary["id"], rule["id"]);
    assert_eq!(summary["name"], "Express with care");
    assert_eq!(summary["carrierId"], carrier["id"]);
    assert_eq!(summary["productId"], "express");
    assert_eq!(summary["services"], json!(["insurance", "saturday"]));
    assert_eq!(summary["senderAddressId"], shop.address["id"]);
    assert!(summary["returnShippingRuleId"].is_null(), "{summary}");
    assert_eq!(summary["autoCreateReturnShipment"], false);
}

#[tokio::test]
async fn applying_an_unknown_or_foreign_rule_is_400_naming_shipping_rule_id() {
    let shop = Shop::new().await;
    let other = shop.app.create_org();
    let (address, carrier) = shop.app.create_address_and_carrier(&other).await;
    let foreign = shop
        .app
        .create_rule(
            &other,
            crate::fixtures::rule_body(&id_of(&carrier), &id_of(&address)),
        )
        .await;
    let created = shop.create(shop.body()).await;
    let id = id_of(&created);
    for rule_id in [
        json!("rul_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        foreign["id"].clone(),
    ] {
        let reply = shop
            .post(
                &id,
                "/apply-shipping-rule",
                json!({"shippingRuleId": rule_id}),
            )
            .await;
        assert_invalid(reply, "shippingRuleId");
    }
    assert_eq!(shop.get(&id).await, created);
}

#[tokio::test]
async fn applying_a_rule_after_booking_is_409_and_changes_nothing() {
    let shop = Shop::new().await;
    let (_, rule) = express_rule(&shop).await;
    let id = id_of(&shop.create(shop.body()).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    shop.post(
        &id,
        "/apply-shipping-rule",
        json!({"shippingRuleId": rule["id"]}),
    )
    .await
    .problem(409, "invalid_state");
    let after = shop.get(&id).await;
    assert_eq!(after, booked);
    assert!(after["shippingRuleId"].is_null(), "{after}");
}

// Tracking events.

fn event(status: &str, description: &str, location: &str, occurred_at: &str) -> Value {
    json!({
        "status": status,
        "description": description,
        "location": location,
        "occurredAt": occurred_at
    })
}

#[tokio::test]
async fn tracking_events_are_newest_first_and_the_newest_sets_the_tracking_status() {
    let shop = Shop::new().await;
    let booked = shop.booked(shop.body(), "processing").await;
    let id = id_of(&booked);
    let transit = event(
        "in_transit",
        "Left the hub",
        "Aarhus",
        "2026-03-02T10:00:00.000Z",
    );
    let picked = event(
        "picked_up",
        "Picked up",
        "Glostrup",
        "2026-03-01T09:30:00.000Z",
    );
    let delivered = event(
        "delivered",
        "Handed over",
        "Aarhus C",
        "2026-03-03T12:15:00.000Z",
    );

    let after = shop
        .post(&id, "/tracking-events", transit.clone())
        .await
        .expect(200);
    assert_eq!(after["tracking"]["status"], "in_transit");
    assert_eq!(after["tracking"]["events"], json!([transit]));

    // An older event posted later goes below and leaves the status alone.
    let after = shop
        .post(&id, "/tracking-events", picked.clone())
        .await
        .expect(200);
    assert_eq!(after["tracking"]["status"], "in_transit");
    assert_eq!(after["tracking"]["events"], json!([transit, picked]));

    let after = shop
        .post(&id, "/tracking-events", delivered.clone())
        .await
        .expect(200);
    assert_eq!(after["tracking"]["status"], "delivered");
    assert_eq!(
        after["tracking"]["events"],
        json!([delivered, transit, picked])
    );

    // 12:30 at +02:00 is 10:30 UTC: after the transit event, before delivery.
    let sorted = event(
        "in_transit",
        "At the depot",
        "Aarhus",
        "2026-03-02T12:30:00+02:00",
    );
    let after = shop.post(&id, "/tracking-events", sorted).await.expect(200);
    let depot = event(
        "in_transit",
        "At the depot",
        "Aarhus",
        "2026-03-02T10:30:00.000Z",
    );
    assert_eq!(
        after["tracking"]["events"],
        json!([delivered, depot, transit, picked])
    );
    assert_eq!(after["tracking"]["status"], "delivered");
    assert_eq!(after["tracking"]["number"], booked["tracking"]["number"]);
    assert_eq!(after["tracking"]["url"], booked["tracking"]["url"]);
    assert_eq!(shop.get(&id).await["tracking"], after["tracking"]);
}

#[tokio::test]
async fn a_tracking_event_with_an_unknown_status_or_unparsable_time_is_400() {
    let shop = Shop::new().await;
    let booked = shop.booked(shop.body(), "processing").await;
    let id = id_of(&booked);
    let bad_status = event("teleported", "?", "Nowhere", "2026-03-01T09:30:00.000Z");
    assert_invalid(
        shop.post(&id, "/tracking-events", bad_status).await,
        "status",
    );
    for occurred_at in ["yesterday", "2026-13-45T10:00:00Z", ""] {
        let bad_time = event("in_transit", "Left the hub", "Aarhus", occurred_at);
        assert_invalid(
            shop.post(&id, "/tracking-events", bad_time).await,
            "occurredAt",
        );
    }
    assert_eq!(shop.get(&id).await, booked);
}

#[tokio::test]
async fn a_tracking_event_for_an_unknown_shipment_is_404() {
    let shop = Shop::new().await;
    let reply = shop
        .post(
            UNKNOWN_SHIPMENT,
            "/tracking-events",
            event("in_transit", "x", "y", "2026-03-01T09:30:00.000Z"),
        )
        .await;
    reply.problem(404, "not_found");
}

#[tokio::test]
async fn a_read_only_token_cannot_book_or_move_a_shipment() {
    let shop = Shop::new().await;
    let created = shop.create(shop.body()).await;
    let id = id_of(&created);
    let read_only = shop.app.create_token(&shop.org, "read:shipments");
    let app = &shop.app;
    app.call(
        reqwest::Method::POST,
        &shop.path(&id, "/book"),
        Some(&read_only),
        None,
    )
    .await
    .problem(403, "insufficient_scope");
    app.post(
        &shop.path(&id, "/status"),
        &read_only,
        json!({"status": "cancelled"}),
    )
    .await
    .problem(403, "insufficient_scope");
    assert_eq!(shop.get(&id).await, created);
}

// The list totals the store keeps per status (migration V9) follow every create, status change
// and deletion; a filter the kept counts cannot answer (createdFrom) counts the rows instead,
// and both must agree.
#[tokio::test]
async fn list_totals_follow_creates_status_changes_and_deletions() {
    let shop = Shop::new().await;
    let mut ids = Vec::new();
    for status in ["pending", "pending", "pending", "draft", "pending"] {
        ids.push(id_of(
            &shop
                .create(with(shop.body(), "status", json!(status)))
                .await,
        ));
    }
    shop.post(&ids[0], "/status", json!({"status": "cancelled"}))
        .await
        .expect(200);
    shop.post(&ids[1], "/status", json!({"status": "on_hold"}))
        .await
        .expect(200);
    shop.app
        .delete(&shop.path(&ids[2], ""), &shop.org.token)
        .await
        .expect(200);
    let list = format!("/orgs/{}/shipments", shop.org.id);
    let total = |query: String| {
        let (app, token) = (&shop.app, &shop.org.token);
        async move { app.get(&query, token).await.expect(200)["total"].clone() }
    };
    let counted = "createdFrom=2000-01-01T00:00:00Z";
    for (status, expected) in [
        ("", 4),
        ("?status=pending", 1),
        ("?status=draft", 1),
        ("?status=cancelled", 1),
        ("?status=on_hold", 1),
        ("?status=dispatched", 0),
    ] {
        let kept = total(format!("{list}{status}")).await;
        let joiner = if status.is_empty() { "?" } else { "&" };
        let real = total(format!("{list}{status}{joiner}{counted}")).await;
        assert_eq!(
            (&kept, &real),
            (&json!(expected), &json!(expected)),
            "{status}"
        );
    }
}

// Batch printing.

#[tokio::test]
async fn merging_labels_gives_one_pdf_in_the_order_given_and_refuses_what_it_cannot_merge() {
    let shop = Shop::new().await;
    let single = id_of(&shop.create(shop.body()).await);
    let double = id_of(&shop.create(two_parcels(&shop)).await);
    let mut numbers = Vec::new();
    for id in [&double, &single] {
        let booked = shop.app.book_shipment(&shop.org, id).await;
        for parcel in booked["parcels"].as_array().into_iter().flatten() {
            numbers.push(
                parcel["trackingNumber"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    let path = format!("/orgs/{}/documents/merge", shop.org.id);
    let response = shop
        .app
        .client
        .post(shop.app.url(&path))
        .bearer_auth(&shop.org.token)
        .json(&json!({"shipmentIds": [double, single], "documentType": "label"}))
        .send()
        .await
        .expect("merge");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        header(response.headers(), "content-type"),
        "application/pdf"
    );
    // It names its file: documents-<today>.pdf.
    let disposition = header(response.headers(), "content-disposition");
    assert!(
        disposition.starts_with("inline; filename=\"documents-20")
            && disposition.ends_with(".pdf\""),
        "{disposition}"
    );
    let bytes = response.bytes().await.expect("body");
    let pdf = lopdf::Document::load_mem(&bytes).expect("a readable PDF");
    assert_eq!(pdf.get_pages().len(), 3);
    for (n, number) in numbers.iter().enumerate() {
        let page = u32::try_from(n + 1).unwrap_or(0);
        let text = pdf.extract_text(&[page]).expect("text");
        assert!(
            text.contains(number.as_str()),
            "page {page}: {number} not in {text:?}"
        );
    }

    let unbooked = id_of(&shop.create(shop.body()).await);
    let merge = |body: Value| shop.app.post(&path, &shop.org.token, body);
    merge(json!({"shipmentIds": [single, unbooked], "documentType": "label"}))
        .await
        .problem(409, "invalid_state");
    merge(json!({"shipmentIds": [UNKNOWN_SHIPMENT], "documentType": "label"}))
        .await
        .problem(404, "not_found");
    merge(json!({"shipmentIds": [], "documentType": "label"}))
        .await
        .problem(400, "validation_failed");
    merge(json!({"shipmentIds": [single], "documentType": "receipt"}))
        .await
        .problem(400, "validation_failed");
}

#[tokio::test]
async fn a_carrier_configured_for_zpl_books_zpl_labels_for_thermal_printers() {
    let shop = Shop::new().await;
    let carrier = shop
        .app
        .create_carrier_with(
            &shop.org,
            json!({
                "name": "Thermal",
                "carrierSlug": "sandbox",
                "config": {"labelFormat": "zpl"},
                "senderAddressId": id_of(&shop.address)
            }),
        )
        .await;
    let mut body = two_parcels(&shop);
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    let id = id_of(&shop.create(body).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let documents = documents_of(&booked);
    assert_eq!(documents.len(), 2);
    let reference = booked["reference"].as_str().unwrap_or_default().to_string();
    for (n, document) in documents.iter().enumerate() {
        assert_eq!(
            (&document["format"], &document["size"]),
            (&json!("zpl"), &json!("100X150"))
        );
        let zpl = String::from_utf8(
            STANDARD
                .decode(document["content"].as_str().unwrap_or_default())
                .expect("base64"),
        )
        .expect("UTF-8");
        let number = booked["parcels"][n]["trackingNumber"]
            .as_str()
            .unwrap_or_default();
        assert!(
            zpl.starts_with("^XA") && zpl.trim_end().ends_with("^XZ"),
            "{zpl}"
        );
        assert!(
            zpl.contains(&format!("^FD{number}^FS")),
            "{number} in {zpl}"
        );
        let response = download(&shop, &id, &id_of(document)).await;
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(
            header(response.headers(), "content-type"),
            "application/zpl"
        );
        assert_eq!(
            header(response.headers(), "content-disposition"),
            format!("attachment; filename=\"{reference}-label-{}.zpl\"", n + 1)
        );
    }
    // ZPL labels are for printers, not for merged PDFs.
    shop.app
        .post(
            &format!("/orgs/{}/documents/merge", shop.org.id),
            &shop.org.token,
            json!({"shipmentIds": [id], "documentType": "label"}),
        )
        .await
        .problem(409, "invalid_state");
    let bad = shop
        .app
        .post(
            &format!("/orgs/{}/carriers", shop.org.id),
            &shop.org.token,
            json!({"name": "Bad", "carrierSlug": "sandbox", "config": {"labelFormat": "epl"},
                   "senderAddressId": id_of(&shop.address)}),
        )
        .await;
    assert_invalid(bad, "config.labelFormat");
}
