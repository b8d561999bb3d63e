//! Pickups and end-of-day manifests (DESIGN §22) with the sandbox carrier: the REST contract,
//! the checks of the body, the events, the carriers without a pickup API, and the manifest's
//! PDF (its text and totals) and print. The real carriers' calls are tested against their
//! replays in `carriers_real`.

use serde_json::{Value, json};

use crate::{
    fixtures::{Shop, assert_id, assert_timestamp, id_of, parcel_body},
    helpers::error_fields,
    printers::{LOOPBACK, RawPrinter, create_printer, jobs_until},
    receiver::Receiver,
};

fn pickups(shop: &Shop) -> String {
    format!("/orgs/{}/pickups", shop.org.id)
}

fn manifests(shop: &Shop) -> String {
    format!("/orgs/{}/manifests", shop.org.id)
}

/// POST …/manifests for the shop's carrier, with the owner's token.
async fn close_day(shop: &Shop) -> crate::helpers::Reply {
    shop.app
        .post(
            &manifests(shop),
            &shop.org.token,
            json!({"carrierId": id_of(&shop.carrier)}),
        )
        .await
}

/// A list (`pickups` or `manifests`) as the owner reads it.
async fn listed(shop: &Shop, path: &str) -> Value {
    shop.app.get(path, &shop.org.token).await.expect(200)
}

fn pickup_body(shop: &Shop, shipment_ids: &[&str]) -> Value {
    json!({
        "carrierId": id_of(&shop.carrier),
        "date": "2031-03-04",
        "readyFrom": "09:00",
        "readyUntil": "16:30",
        "senderAddressId": id_of(&shop.address),
        "shipmentIds": shipment_ids,
        "note": "Ring at the gate"
    })
}

/// A booked shipment of the shop's sandbox carrier with `parcels` parcels of 1.5 and 2 kg.
async fn booked(shop: &Shop, reference: &str, parcels: usize) -> Value {
    let mut body = shop.body();
    body["reference"] = json!(reference);
    body["parcels"] = Value::Array(
        (0..parcels)
            .map(|i| parcel_body(1.5 + i as f64 * 0.5, &[("SKU-1", 1)]))
            .collect(),
    );
    shop.booked(body, "processing").await
}

#[tokio::test]
async fn a_pickup_is_booked_listed_and_cancelled_with_its_confirmation() {
    let shop = Shop::new().await;
    let shipment = booked(&shop, "PU-1", 2).await;
    let id = id_of(&shipment);
    let pickup = shop
        .app
        .post(&pickups(&shop), &shop.org.token, pickup_body(&shop, &[&id]))
        .await
        .expect(201);
    assert_id(&pickup["id"], "pck");
    assert_timestamp(&pickup["createdAt"]);
    assert_eq!(
        (
            &pickup["status"],
            &pickup["date"],
            &pickup["readyFrom"],
            &pickup["readyUntil"],
            &pickup["shipmentIds"],
            &pickup["note"],
            &pickup["error"],
        ),
        (
            &json!("booked"),
            &json!("2031-03-04"),
            &json!("09:00"),
            &json!("16:30"),
            &json!([id]),
            &json!("Ring at the gate"),
            &Value::Null,
        )
    );
    let number = pickup["confirmationNumber"].as_str().unwrap_or_default();
    assert!(
        number.starts_with("SBXPU") && number.len() == 15,
        "{pickup}"
    );

    let path = format!("{}/{}", pickups(&shop), id_of(&pickup));
    let got = shop.app.get(&path, &shop.org.token).await.expect(200);
    assert_eq!(got, pickup);
    let list = listed(&shop, &pickups(&shop)).await;
    assert_eq!(
        (list["total"].clone(), list["data"][0].clone()),
        (json!(1), pickup.clone())
    );

    let cancelled = shop.app.delete(&path, &shop.org.token).await.expect(200);
    assert_eq!(cancelled["message"], "pickup cancelled");
    let got = shop.app.get(&path, &shop.org.token).await.expect(200);
    assert_eq!(
        (&got["status"], &got["confirmationNumber"]),
        (&json!("cancelled"), &json!(number))
    );
    let again = shop.app.delete(&path, &shop.org.token).await.expect(409);
    assert_eq!(again["code"], "invalid_state");
    assert!(
        again["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("cancelled already"),
        "{again}"
    );
}

#[tokio::test]
async fn a_pickup_body_is_checked_field_by_field() {
    let shop = Shop::new().await;
    let pending = id_of(&shop.create(shop.body()).await);
    let mut body = pickup_body(&shop, &[&pending, "shp_01JAAAAAAAAAAAAAAAAAAAAAAA"]);
    body["date"] = json!("2020-01-01");
    body["readyFrom"] = json!("17:00");
    body["readyUntil"] = json!("9:00");
    let problem = shop
        .app
        .post(&pickups(&shop), &shop.org.token, body)
        .await
        .expect(400);
    let fields = error_fields(&problem);
    assert_eq!(
        fields,
        ["date", "readyUntil", "shipmentIds[0]", "shipmentIds[1]"],
        "{problem}"
    );
    let text = problem.to_string();
    assert!(text.contains("today or later"), "{text}");
    assert!(text.contains("only booked shipments"), "{text}");

    let mut body = pickup_body(&shop, &[]);
    body["carrierId"] = json!("car_01JAAAAAAAAAAAAAAAAAAAAAAA");
    body["readyUntil"] = json!("08:00");
    let problem = shop
        .app
        .post(&pickups(&shop), &shop.org.token, body)
        .await
        .expect(400);
    let fields = error_fields(&problem);
    assert_eq!(fields, ["carrierId", "readyUntil"], "{problem}");
    // Nothing was written.
    let list = listed(&shop, &pickups(&shop)).await;
    assert_eq!(list["total"], 0);
}

#[tokio::test]
async fn a_carrier_without_a_pickup_api_is_refused_by_name() {
    let shop = Shop::new().await;
    let manual = shop
        .app
        .create_carrier_with(
            &shop.org,
            json!({"name": "Our van", "carrierSlug": "manual", "config": {},
                   "senderAddressId": id_of(&shop.address)}),
        )
        .await;
    let mut body = pickup_body(&shop, &[]);
    body["carrierId"] = json!(id_of(&manual));
    let problem = shop
        .app
        .post(&pickups(&shop), &shop.org.token, body)
        .await
        .expect(409);
    assert_eq!(problem["code"], "invalid_state");
    assert_eq!(
        problem["detail"],
        "Our van (manual) books no pickups through its API from DK; book the pickup with Our van directly"
    );
    let list = listed(&shop, &pickups(&shop)).await;
    assert_eq!(list["total"], 0);
}

#[tokio::test]
async fn pickups_need_the_shipments_scopes() {
    let shop = Shop::new().await;
    let reader = shop.app.create_token(&shop.org, "read:shipments");
    shop.app
        .post(&pickups(&shop), &reader, pickup_body(&shop, &[]))
        .await
        .expect(403);
    shop.app.get(&pickups(&shop), &reader).await.expect(200);
    shop.app
        .post(
            &manifests(&shop),
            &reader,
            json!({"carrierId": id_of(&shop.carrier)}),
        )
        .await
        .expect(403);
    shop.app.get(&manifests(&shop), &reader).await.expect(200);
}

#[tokio::test]
async fn the_end_of_day_closes_each_booked_shipment_once_with_a_pdf_of_totals() {
    let shop = Shop::new().await;
    let first = booked(&shop, "EOD-1", 2).await;
    let second = booked(&shop, "EOD-2", 1).await;
    // Neither a pending nor a cancelled shipment is closed.
    shop.create(shop.body()).await;
    let cancelled = booked(&shop, "EOD-3", 1).await;
    shop.app
        .set_shipment_status(&shop.org, &id_of(&cancelled), "cancelled")
        .await;

    let manifest = close_day(&shop).await.expect(201);
    assert_id(&manifest["id"], "mfst");
    assert_eq!(
        (
            &manifest["shipmentIds"],
            &manifest["shipmentCount"],
            &manifest["parcelCount"],
            &manifest["totalWeight"],
            &manifest["carrierClosed"],
            &manifest["refused"],
        ),
        (
            &json!([id_of(&first), id_of(&second)]),
            &json!(2),
            &json!(3),
            &json!(5.0),
            &json!(false),
            &json!([]),
        )
    );
    let document = &manifest["document"];
    assert_id(&document["id"], "doc");
    assert_eq!(
        (
            &document["documentType"],
            &document["format"],
            &document["size"]
        ),
        (&json!("manifest"), &json!("pdf"), &json!("A4"))
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = crate::fixtures::printed::pdf_text(document, dir.path());
    let numbers: Vec<String> = [&first, &second]
        .iter()
        .flat_map(|s| s["parcels"].as_array().cloned().unwrap_or_default())
        .map(|p| p["trackingNumber"].as_str().unwrap_or_default().to_string())
        .collect();
    for needle in numbers.iter().map(String::as_str).chain([
        "MANIFEST",
        "Sandbox Carrier (sandbox)",
        "EOD-1",
        "EOD-2",
        "Jane Receiver, Aarhus, DK",
        "Total: 2 shipments, 3 parcels, 5 kg",
        "Driver: name, signature, date and time",
    ]) {
        assert!(text.contains(needle), "{needle} in {text}");
    }
    assert!(!text.contains("EOD-3"), "{text}");

    // Closed once: the next close finds nothing left.
    let again = close_day(&shop).await.expect(409);
    assert_eq!(
        again["detail"],
        "Sandbox Carrier (sandbox) has no booked shipments left to close"
    );
    let third = booked(&shop, "EOD-4", 1).await;
    let later = close_day(&shop).await.expect(201);
    assert_eq!(later["shipmentIds"], json!([id_of(&third)]));
    let list = listed(&shop, &manifests(&shop)).await;
    assert_eq!(
        crate::fixtures::page_ids(&list),
        [id_of(&later), id_of(&manifest)]
    );
    let got = shop
        .app
        .get(
            &format!("{}/{}", manifests(&shop), id_of(&manifest)),
            &shop.org.token,
        )
        .await
        .expect(200);
    assert_eq!(got, manifest);
}

#[tokio::test]
async fn a_manifest_of_a_date_takes_only_that_days_bookings() {
    let shop = Shop::new().await;
    booked(&shop, "DAY-1", 1).await;
    let problem = shop
        .app
        .post(
            &manifests(&shop),
            &shop.org.token,
            json!({"carrierId": id_of(&shop.carrier), "date": "2030-01-01"}),
        )
        .await
        .expect(409);
    assert_eq!(
        problem["detail"],
        "Sandbox Carrier (sandbox) has no booked shipments booked on 2030-01-01 left to close"
    );
    let bad = shop
        .app
        .post(
            &manifests(&shop),
            &shop.org.token,
            json!({"carrierId": id_of(&shop.carrier), "date": "1 May"}),
        )
        .await
        .expect(400);
    assert_eq!(bad["errors"][0]["field"], "date");
    let today = close_day(&shop).await.expect(201);
    let date = today["date"].as_str().unwrap_or_default().to_string();
    assert_eq!(date.len(), 10, "{today}");
    let unknown = shop
        .app
        .post(
            &manifests(&shop),
            &shop.org.token,
            json!({"carrierId": "car_01JAAAAAAAAAAAAAAAAAAAAAAA"}),
        )
        .await
        .expect(400);
    assert_eq!(unknown["errors"][0]["field"], "carrierId");
}

#[tokio::test]
async fn a_manifest_prints_on_a_pdf_printer() {
    let shop = Shop::with_config(LOOPBACK).await;
    booked(&shop, "PRINT-1", 1).await;
    let manifest = close_day(&shop).await.expect(201);
    let socket = RawPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Office", "kind": "raw", "address": format!("127.0.0.1:{}", socket.port),
               "format": "pdf"}),
    )
    .await;
    let path = format!("{}/{}/print", manifests(&shop), id_of(&manifest));
    let job = shop
        .app
        .post(
            &path,
            &shop.org.token,
            json!({"printerId": id_of(&printer)}),
        )
        .await
        .expect(202);
    assert_eq!(job["documentId"], manifest["document"]["id"]);
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.iter().all(|j| j["status"] == "printed")
    })
    .await;
    assert_eq!(jobs.len(), 1);
    let printed = socket.jobs();
    assert!(printed[0].starts_with(b"%PDF"));
    let zpl = create_printer(
        &shop,
        json!({"name": "Thermal", "kind": "raw", "address": "10.0.0.7:9100", "format": "zpl"}),
    )
    .await;
    let refused = shop
        .app
        .post(&path, &shop.org.token, json!({"printerId": id_of(&zpl)}))
        .await
        .expect(409);
    assert!(
        refused["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("a manifest is a PDF"),
        "{refused}"
    );
}

#[tokio::test]
async fn pickup_and_manifest_events_reach_webhooks() {
    let shop = Shop::with_config("[webhooks]\nallow_private_targets = true").await;
    let receiver = Receiver::start().await;
    shop.app
        .post(
            &format!("/orgs/{}/webhooks", shop.org.id),
            &shop.org.token,
            json!({"name": "desk", "url": receiver.url("/hook"),
                   "events": ["pickup.created", "pickup.cancelled", "manifest.created"]}),
        )
        .await
        .expect(201);
    let shipment = booked(&shop, "EV-1", 1).await;
    let pickup = shop
        .app
        .post(
            &pickups(&shop),
            &shop.org.token,
            pickup_body(&shop, &[&id_of(&shipment)]),
        )
        .await
        .expect(201);
    shop.app
        .delete(
            &format!("{}/{}", pickups(&shop), id_of(&pickup)),
            &shop.org.token,
        )
        .await
        .expect(200);
    let manifest = close_day(&shop).await.expect(201);
    let got: Vec<Value> = receiver
        .wait_for("/hook", 3)
        .await
        .iter()
        .map(|d| d.json())
        .collect();
    let kinds: Vec<(&str, &str)> = got
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap_or_default(),
                e["data"]["id"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let (p, m) = (id_of(&pickup), id_of(&manifest));
    assert_eq!(
        kinds,
        [
            ("pickup.created", p.as_str()),
            ("pickup.cancelled", p.as_str()),
            ("manifest.created", m.as_str())
        ]
    );
    assert_eq!(got[1]["data"]["status"], "cancelled");
}
