//! Split, batch split and return shipments (SPEC rows 15-17, DESIGN §7, §16), including
//! concurrent splits of one parcel.

use serde_json::{Value, json};

use crate::{
    fixtures::{
        SHIPMENT_STATUSES, Shop, assert_id, assert_invalid, error_fields_start_with, id_of,
        parcel_body, parcels_of, party, with,
    },
    helpers::Reply,
};

/// The statuses in which a shipment may be split (DESIGN §7).
const SPLITTABLE: [&str; 4] = ["draft", "pending", "on_hold", "error"];

#[track_caller]
fn assert_weight(parcel: &Value, expected: f64) {
    let weight = parcel["weight"].as_f64().unwrap_or(f64::NAN);
    assert!(
        (weight - expected).abs() < 1e-9,
        "weight {weight}, expected {expected}: {parcel}"
    );
}

/// The id of order line `line` of parcel `parcel` of a shipment.
#[track_caller]
fn line_id(shipment: &Value, parcel: usize, line: usize) -> String {
    id_of(&shipment["parcels"][parcel]["orderLines"][line])
}

/// `(sku, quantity)` of each order line of a parcel.
fn lines(parcel: &Value) -> Vec<(String, i64)> {
    parcel["orderLines"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| {
            (
                l["sku"].as_str().unwrap_or_default().to_string(),
                l["quantity"].as_i64().unwrap_or_default(),
            )
        })
        .collect()
}

fn parcel_ids(shipment: &Value) -> Vec<String> {
    parcels_of(shipment).iter().map(id_of).collect()
}

async fn shipment_count(shop: &Shop) -> u64 {
    let list = shop
        .app
        .get(&format!("/orgs/{}/shipments", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    list["total"].as_u64().unwrap_or_default()
}

/// POST .../parcels/{parcelId}/split of shipment `id`.
async fn split(shop: &Shop, id: &str, parcel_id: &str, body: Value) -> Reply {
    shop.post(id, &format!("/parcels/{parcel_id}/split"), body)
        .await
}

/// POST .../parcels/{parcelId}/batch-split of shipment `id`.
async fn batch_split(shop: &Shop, id: &str, parcel_id: &str, body: Value) -> Reply {
    shop.post(id, &format!("/parcels/{parcel_id}/batch-split"), body)
        .await
}

/// A batch split body with one new shipment per list of `(line id, quantity)`.
fn batch<S: AsRef<str>>(parts: &[&[(S, i64)]]) -> Value {
    let shipments: Vec<Value> = parts
        .iter()
        .map(|part| {
            let lines: Vec<Value> = part
                .iter()
                .map(|(id, quantity)| json!({"id": id.as_ref(), "quantity": quantity}))
                .collect();
            json!({"orderLines": lines})
        })
        .collect();
    json!({"shipments": shipments})
}

/// Shipment body with parcels [5 kg: 2 × SKU-A, 3 × SKU-B] and [1 kg: 1 × SKU-C].
fn two_parcels(shop: &Shop, status: &str) -> Value {
    shop.body_with(
        status,
        json!([
            parcel_body(5.0, &[("SKU-A", 2), ("SKU-B", 3)]),
            parcel_body(1.0, &[("SKU-C", 1)])
        ]),
    )
}

// Split.

#[tokio::test]
async fn splitting_order_lines_moves_them_into_a_new_pending_shipment() {
    let shop = Shop::new().await;
    let mut body = two_parcels(&shop, "on_hold");
    body["type"] = json!("inbound");
    body["termOfTrade"] = json!("DDP");
    let org = &shop.org;
    let channel = shop
        .app
        .post(
            &format!("/orgs/{}/order-channels", org.id),
            &org.token,
            json!({"name": "Manual", "type": "manual"}),
        )
        .await
        .expect(201);
    let order = shop
        .app
        .post(
            &format!("/orgs/{}/orders", org.id),
            &org.token,
            json!({"orderChannelId": channel["id"], "orderNumber": "#1"}),
        )
        .await
        .expect(201);
    body["orderId"] = order["id"].clone();
    let created = shop.create(body).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    let moved_line = created["parcels"][0]["orderLines"][1].clone();
    let reply = split(
        &shop,
        &id,
        &parcel_id,
        json!({"orderLineIds": [moved_line["id"]]}),
    )
    .await;
    let outcome = reply.expect(201);
    let (original, new) = (&outcome["originalShipment"], &outcome["newShipment"]);

    assert_id(&new["id"], "shp");
    assert_ne!(new["id"], created["id"]);
    assert_eq!(new["status"], "pending");
    assert_eq!(new["reference"], "REF-1001-1");
    for key in [
        "parties",
        "senderAddressId",
        "type",
        "orderId",
        "termOfTrade",
        "carrierSettings",
    ] {
        assert_eq!(new[key], created[key], "{key}");
    }
    let new_parcels = parcels_of(new);
    assert_eq!(new_parcels.len(), 1, "{new}");
    assert_id(&new_parcels[0]["id"], "prc");
    assert!(!parcel_ids(&created).contains(&id_of(&new_parcels[0])));
    assert_weight(&new_parcels[0], 3.0);
    assert_eq!(new_parcels[0]["orderLines"], json!([moved_line]));

    assert_eq!(original["id"], created["id"]);
    assert_eq!(original["status"], "on_hold");
    let kept = parcels_of(original);
    assert_eq!(parcel_ids(original), parcel_ids(&created));
    assert_weight(&kept[0], 2.0);
    assert_eq!(
        kept[0]["orderLines"],
        json!([created["parcels"][0]["orderLines"][0]])
    );
    assert_eq!(kept[1], created["parcels"][1]);

    assert_eq!(&shop.get(&id).await, original);
    assert_eq!(&shop.get(&id_of(new)).await, new);
    assert_eq!(shipment_count(&shop).await, 2);
}

#[tokio::test]
async fn splitting_without_order_lines_moves_the_whole_parcel() {
    let shop = Shop::new().await;
    for body in [json!({}), json!({"orderLineIds": []})] {
        let created = shop.create(two_parcels(&shop, "pending")).await;
        let id = id_of(&created);
        let moved = created["parcels"][1].clone();
        let outcome = split(&shop, &id, &id_of(&moved), body.clone())
            .await
            .expect(201);
        let new = &outcome["newShipment"];
        assert_eq!(new["parcels"], json!([moved]), "{body}");
        assert_eq!(new["status"], "pending");
        assert_eq!(new["reference"], "REF-1001-1");
        let original = &outcome["originalShipment"];
        assert_eq!(original["parcels"], json!([created["parcels"][0]]));
        assert_eq!(&shop.get(&id).await, original);
    }
}

#[tokio::test]
async fn splitting_the_only_parcel_is_409() {
    let shop = Shop::new().await;
    let created = shop.create(shop.body()).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    split(&shop, &id, &parcel_id, json!({}))
        .await
        .problem(409, "invalid_state");
    assert_eq!(shop.get(&id).await, created);
    assert_eq!(shipment_count(&shop).await, 1);
}

#[tokio::test]
async fn moving_every_line_of_the_only_parcel_is_409_and_changes_nothing() {
    let shop = Shop::new().await;
    let parcels = json!([parcel_body(5.0, &[("SKU-A", 2), ("SKU-B", 3)])]);
    let created = shop.create(shop.body_with("pending", parcels)).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    let every_line = json!([line_id(&created, 0, 0), line_id(&created, 0, 1)]);
    split(&shop, &id, &parcel_id, json!({"orderLineIds": every_line}))
        .await
        .problem(409, "invalid_state");
    assert_eq!(shop.get(&id).await, created);
    assert_eq!(shipment_count(&shop).await, 1);
}

#[tokio::test]
async fn moving_every_line_of_one_of_several_parcels_removes_that_parcel() {
    let shop = Shop::new().await;
    let created = shop.create(two_parcels(&shop, "pending")).await;
    let id = id_of(&created);
    let every_line = json!([line_id(&created, 0, 0), line_id(&created, 0, 1)]);
    let outcome = split(
        &shop,
        &id,
        &id_of(&created["parcels"][0]),
        json!({"orderLineIds": every_line}),
    )
    .await
    .expect(201);
    let original = &outcome["originalShipment"];
    assert_eq!(original["parcels"], json!([created["parcels"][1]]));
    let new_parcels = parcels_of(&outcome["newShipment"]);
    assert_eq!(new_parcels.len(), 1);
    assert_weight(&new_parcels[0], 5.0);
    assert_eq!(
        new_parcels[0]["orderLines"],
        created["parcels"][0]["orderLines"]
    );
    assert_eq!(&shop.get(&id).await, original);
}

#[tokio::test]
async fn a_split_takes_carrier_settings_and_reference_from_the_body() {
    let shop = Shop::new().await;
    let carrier = shop
        .app
        .create_carrier(&shop.org, &id_of(&shop.address))
        .await;
    let created = shop.create(two_parcels(&shop, "pending")).await;
    let id = id_of(&created);
    let body = json!({
        "orderLineIds": [line_id(&created, 0, 0)],
        "carrierId": carrier["id"],
        "productId": "express",
        "services": ["saturday"],
        "additionalParameters": {"note": "leave at door"},
        "reference": "SPLIT-A"
    });
    let outcome = split(&shop, &id, &id_of(&created["parcels"][0]), body)
        .await
        .expect(201);
    let new = &outcome["newShipment"];
    assert_eq!(new["reference"], "SPLIT-A");
    assert_eq!(
        new["carrierSettings"],
        json!({
            "carrierId": carrier["id"],
            "productId": "express",
            "services": ["saturday"],
            "additionalParameters": {"note": "leave at door"}
        })
    );
    assert_eq!(
        outcome["originalShipment"]["carrierSettings"],
        created["carrierSettings"]
    );
    assert_eq!(outcome["originalShipment"]["reference"], "REF-1001");
}

#[tokio::test]
async fn a_split_with_another_orgs_carrier_is_400() {
    let shop = Shop::new().await;
    let other = shop.app.create_org();
    let (_, foreign) = shop.app.create_address_and_carrier(&other).await;
    let created = shop.create(two_parcels(&shop, "pending")).await;
    let id = id_of(&created);
    let reply = split(
        &shop,
        &id,
        &id_of(&created["parcels"][1]),
        json!({"carrierId": foreign["id"]}),
    )
    .await;
    assert_invalid(reply, "carrierId");
    assert_eq!(shop.get(&id).await, created);
    assert_eq!(shipment_count(&shop).await, 1);
}

#[tokio::test]
async fn splitting_is_allowed_only_while_draft_pending_on_hold_or_error() {
    let shop = Shop::new().await;
    for status in SHIPMENT_STATUSES {
        let created = shop.create(two_parcels(&shop, status)).await;
        let id = id_of(&created);
        let reply = split(&shop, &id, &id_of(&created["parcels"][1]), json!({})).await;
        if SPLITTABLE.contains(&status) {
            assert_eq!(reply.status.as_u16(), 201, "{status}: {}", reply.text);
            assert_eq!(reply.body["newShipment"]["status"], "pending", "{status}");
            assert_eq!(reply.body["originalShipment"]["status"], status);
        } else {
            assert_eq!(reply.status.as_u16(), 409, "{status}: {}", reply.text);
            reply.problem(409, "invalid_state");
            assert_eq!(shop.get(&id).await, created, "{status}");
        }
    }
    assert_eq!(shipment_count(&shop).await, 8 + 4);
}

#[tokio::test]
async fn splitting_an_unknown_parcel_or_shipment_is_404() {
    let shop = Shop::new().await;
    let created = shop.create(two_parcels(&shop, "pending")).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][1]);
    split(&shop, &id, "prc_01ARZ3NDEKTSV4RRFFQ69G5FAV", json!({}))
        .await
        .problem(404, "not_found");
    batch_split(
        &shop,
        &id,
        "prc_01ARZ3NDEKTSV4RRFFQ69G5FAV",
        batch(&[&[(&line_id(&created, 0, 0), 1)]]),
    )
    .await
    .problem(404, "not_found");
    split(
        &shop,
        "shp_01ARZ3NDEKTSV4RRFFQ69G5FAV",
        &parcel_id,
        json!({}),
    )
    .await
    .problem(404, "not_found");
    assert_eq!(shop.get(&id).await, created);
}

#[tokio::test]
async fn splitting_an_unknown_order_line_is_400() {
    let shop = Shop::new().await;
    let created = shop.create(two_parcels(&shop, "pending")).await;
    let id = id_of(&created);
    // The second parcel's line is not in the first parcel.
    for unknown in [
        "oln_01ARZ3NDEKTSV4RRFFQ69G5FAV".to_string(),
        line_id(&created, 1, 0),
    ] {
        let body = json!({"orderLineIds": [line_id(&created, 0, 0), unknown]});
        let reply = split(&shop, &id, &id_of(&created["parcels"][0]), body).await;
        assert_invalid(reply, "orderLineIds");
    }
    assert_eq!(shop.get(&id).await, created);
    assert_eq!(shipment_count(&shop).await, 1);
}

// Batch split.

/// One parcel of 7 kg with 5 × SKU-A and 2 × SKU-B, plus a second parcel of 1 kg.
fn seven_kilos(shop: &Shop, status: &str) -> Value {
    shop.body_with(
        status,
        json!([
            parcel_body(7.0, &[("SKU-A", 5), ("SKU-B", 2)]),
            parcel_body(1.0, &[("SKU-C", 1)])
        ]),
    )
}

#[tokio::test]
async fn a_batch_split_moves_partial_quantities_with_weight_by_units() {
    let shop = Shop::new().await;
    let created = shop.create(seven_kilos(&shop, "pending")).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    let (a, b) = (line_id(&created, 0, 0), line_id(&created, 0, 1));
    let outcome = batch_split(
        &shop,
        &id,
        &parcel_id,
        batch(&[&[(&a, 2)], &[(&a, 3), (&b, 1)]]),
    )
    .await
    .expect(201);
    let news = outcome["newShipments"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(news.len(), 2, "{outcome}");
    let expected = [
        (2.0, vec![("SKU-A".to_string(), 2)]),
        (
            4.0,
            vec![("SKU-A".to_string(), 3), ("SKU-B".to_string(), 1)],
        ),
    ];
    for (new, (weight, expected_lines)) in news.iter().zip(expected) {
        assert_eq!(new["status"], "pending");
        let parcels = parcels_of(new);
        assert_eq!(parcels.len(), 1, "{new}");
        assert_weight(&parcels[0], weight);
        assert_eq!(lines(&parcels[0]), expected_lines);
        assert_eq!(&shop.get(&id_of(new)).await, new);
    }
    let original = &outcome["originalShipment"];
    let rest = parcels_of(original);
    assert_eq!(parcel_ids(original), parcel_ids(&created));
    assert_weight(&rest[0], 1.0);
    assert_eq!(lines(&rest[0]), [("SKU-B".to_string(), 1)]);
    assert_eq!(rest[0]["orderLines"][0]["id"], b.as_str());
    assert_eq!(rest[1], created["parcels"][1]);
    assert_eq!(&shop.get(&id).await, original);
    assert_eq!(shipment_count(&shop).await, 3);
}

#[tokio::test]
async fn split_references_default_to_the_original_reference_numbered_on() {
    let shop = Shop::new().await;
    let created = shop.create(seven_kilos(&shop, "pending")).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    let a = line_id(&created, 0, 0);
    let outcome = batch_split(&shop, &id, &parcel_id, batch(&[&[(&a, 1)], &[(&a, 1)]]))
        .await
        .expect(201);
    let references: Vec<&Value> = outcome["newShipments"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| &s["reference"])
        .collect();
    assert_eq!(references, [&json!("REF-1001-1"), &json!("REF-1001-2")]);
    let later = split(&shop, &id, &id_of(&created["parcels"][1]), json!({}))
        .await
        .expect(201);
    assert_eq!(later["newShipment"]["reference"], "REF-1001-3");
    let named =
        json!({"shipments": [{"orderLines": [{"id": a, "quantity": 1}], "reference": "OWN"}]});
    let named = batch_split(&shop, &id, &parcel_id, named).await.expect(201);
    assert_eq!(named["newShipments"][0]["reference"], "OWN");
}

#[tokio::test]
async fn a_split_after_a_split_off_shipment_was_deleted_does_not_reuse_a_reference() {
    let shop = Shop::new().await;
    let created = shop.create(seven_kilos(&shop, "pending")).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    let a = line_id(&created, 0, 0);
    let first = batch_split(&shop, &id, &parcel_id, batch(&[&[(&a, 1)], &[(&a, 1)]]))
        .await
        .expect(201);
    let first_id = id_of(&first["newShipments"][0]);
    assert_eq!(first["newShipments"][0]["reference"], "REF-1001-1");
    assert_eq!(first["newShipments"][1]["reference"], "REF-1001-2");
    shop.app
        .delete(&shop.path(&first_id, ""), &shop.org.token)
        .await
        .expect(200);
    let later = batch_split(&shop, &id, &parcel_id, batch(&[&[(&a, 1)]]))
        .await
        .expect(201);
    // n counts the shipments split off so far (two), so the next one is 3; reusing 2 would give
    // two live shipments the reference REF-1001-2.
    assert_eq!(
        later["newShipments"][0]["reference"], "REF-1001-3",
        "{later}"
    );
}

#[tokio::test]
async fn a_batch_split_takes_carrier_settings_from_the_body_for_every_new_shipment() {
    let shop = Shop::new().await;
    let carrier = shop
        .app
        .create_carrier(&shop.org, &id_of(&shop.address))
        .await;
    let created = shop.create(seven_kilos(&shop, "pending")).await;
    let id = id_of(&created);
    let a = line_id(&created, 0, 0);
    let mut body = batch(&[&[(&a, 1)], &[(&a, 1)]]);
    body["carrierId"] = carrier["id"].clone();
    body["productId"] = json!("economy");
    body["services"] = json!(["insurance"]);
    body["additionalParameters"] = json!({"note": "batch"});
    let outcome = batch_split(&shop, &id, &id_of(&created["parcels"][0]), body)
        .await
        .expect(201);
    let expected = json!({
        "carrierId": carrier["id"],
        "productId": "economy",
        "services": ["insurance"],
        "additionalParameters": {"note": "batch"}
    });
    let news = outcome["newShipments"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(news.len(), 2);
    for new in &news {
        assert_eq!(new["carrierSettings"], expected);
    }
    assert_eq!(
        outcome["originalShipment"]["carrierSettings"],
        created["carrierSettings"]
    );
}

#[tokio::test]
async fn a_batch_split_with_another_orgs_carrier_is_400() {
    let shop = Shop::new().await;
    let other = shop.app.create_org();
    let (_, foreign) = shop.app.create_address_and_carrier(&other).await;
    let created = shop.create(seven_kilos(&shop, "pending")).await;
    let id = id_of(&created);
    let mut body = batch(&[&[(&line_id(&created, 0, 0), 1)]]);
    body["carrierId"] = foreign["id"].clone();
    let reply = batch_split(&shop, &id, &id_of(&created["parcels"][0]), body).await;
    assert_invalid(reply, "carrierId");
    assert_eq!(shop.get(&id).await, created);
    assert_eq!(shipment_count(&shop).await, 1);
}

#[tokio::test]
async fn a_batch_split_asking_for_more_units_than_the_parcel_holds_is_400_and_changes_nothing() {
    let shop = Shop::new().await;
    let created = shop.create(seven_kilos(&shop, "pending")).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    let (a, b) = (line_id(&created, 0, 0), line_id(&created, 0, 1));
    for plan in [
        batch(&[&[(&a, 6)]]),
        // 3 + 3 of a line of 5.
        batch(&[&[(&a, 3)], &[(&a, 3)]]),
        batch(&[&[(&a, 3), (&a, 3)]]),
        // The first item fits, the second does not.
        batch(&[&[(&a, 1)], &[(&b, 3)]]),
    ] {
        let reply = batch_split(&shop, &id, &parcel_id, plan.clone()).await;
        assert_eq!(reply.status.as_u16(), 400, "{plan}: {}", reply.text);
        assert_invalid(reply, "shipments");
    }
    assert_eq!(shop.get(&id).await, created);
    assert_eq!(shipment_count(&shop).await, 1);
}

#[tokio::test]
async fn a_batch_split_without_shipments_is_400() {
    let shop = Shop::new().await;
    let created = shop.create(seven_kilos(&shop, "pending")).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    for body in [json!({"shipments": []}), json!({})] {
        assert_invalid(batch_split(&shop, &id, &parcel_id, body).await, "shipments");
    }
    assert_eq!(shop.get(&id).await, created);
    assert_eq!(shipment_count(&shop).await, 1);
}

/// Asserts that a batch split asking for `quantity` units of a line is 400 and changes nothing.
async fn assert_quantity_refused(quantity: i64) {
    let shop = Shop::new().await;
    let created = shop.create(seven_kilos(&shop, "pending")).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    let a = line_id(&created, 0, 0);
    let reply = batch_split(&shop, &id, &parcel_id, batch(&[&[(&a, quantity)]])).await;
    let problem = reply.problem(400, "validation_failed");
    assert!(
        error_fields_start_with(&problem, "shipments"),
        "quantity {quantity}: {problem}"
    );
    assert_eq!(shop.get(&id).await, created);
    assert_eq!(shipment_count(&shop).await, 1);
}

#[tokio::test]
async fn a_batch_split_quantity_of_zero_is_400() {
    assert_quantity_refused(0).await;
}

#[tokio::test]
async fn a_negative_batch_split_quantity_is_400() {
    assert_quantity_refused(-1).await;
}

#[tokio::test]
async fn a_batch_split_after_booking_is_409() {
    let shop = Shop::new().await;
    let booked = shop
        .booked(seven_kilos(&shop, "pending"), "processing")
        .await;
    let id = id_of(&booked);
    let parcel_id = id_of(&booked["parcels"][0]);
    let a = line_id(&booked, 0, 0);
    batch_split(&shop, &id, &parcel_id, batch(&[&[(&a, 1)]]))
        .await
        .problem(409, "invalid_state");
    assert_eq!(shop.get(&id).await, booked);
    assert_eq!(shipment_count(&shop).await, 1);
}

// Concurrency.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_batch_splits_of_one_parcel_never_duplicate_or_lose_units() {
    let shop = Shop::new().await;
    let parcels = json!([
        parcel_body(5.0, &[("SKU-TEN", 10)]),
        parcel_body(1.0, &[("SKU-OTHER", 1)])
    ]);
    let created = shop.create(shop.body_with("pending", parcels)).await;
    let id = id_of(&created);
    let parcel_id = id_of(&created["parcels"][0]);
    let three = batch(&[&[(&line_id(&created, 0, 0), 3)]]);
    let url = shop
        .app
        .url(&shop.path(&id, &format!("/parcels/{parcel_id}/batch-split")));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let request = shop
            .app
            .client
            .post(&url)
            .bearer_auth(&shop.org.token)
            .json(&three);
        tasks.spawn(async move { Reply::read(request.send().await.expect("request")).await });
    }
    let replies = tasks.join_all().await;
    let mut created_count = 0;
    for reply in replies {
        match reply.status.as_u16() {
            201 => created_count += 1,
            400 => {
                reply.problem(400, "validation_failed");
            }
            409 => {
                reply.problem(409, "invalid_state");
            }
            other => panic!("unexpected {other}: {}", reply.text),
        }
    }
    assert_eq!(created_count, 3, "3 × 3 of 10 units fit, a fourth does not");

    let all = shop.app.all_shipments(&shop.org).await;
    assert_eq!(all.len(), 4);
    let mut units = std::collections::HashMap::<String, i64>::new();
    let mut ten_kg = 0.0;
    for shipment in &all {
        for parcel in parcels_of(shipment) {
            let parcel_lines = lines(&parcel);
            if parcel_lines.iter().any(|(sku, _)| sku == "SKU-TEN") {
                ten_kg += parcel["weight"].as_f64().unwrap_or(f64::NAN);
            }
            for (sku, quantity) in parcel_lines {
                *units.entry(sku).or_default() += quantity;
            }
        }
    }
    assert_eq!(units.get("SKU-TEN"), Some(&10), "{units:?}");
    assert_eq!(units.get("SKU-OTHER"), Some(&1), "{units:?}");
    assert!((ten_kg - 5.0).abs() < 1e-6, "weights add up to {ten_kg}");
    let original = shop.get(&id).await;
    assert_eq!(lines(&original["parcels"][0]), [("SKU-TEN".to_string(), 1)]);
    let mut references: Vec<String> = all
        .iter()
        .filter(|s| s["id"] != original["id"])
        .map(|s| s["reference"].as_str().unwrap_or_default().to_string())
        .collect();
    references.sort();
    assert_eq!(references, ["REF-1001-1", "REF-1001-2", "REF-1001-3"]);
}

// Returns.

#[tokio::test]
async fn a_return_of_a_dispatched_shipment_swaps_the_parties_and_is_booked_at_once() {
    let shop = Shop::new().await;
    for status in ["dispatched", "partly_dispatched"] {
        let original = shop.booked(two_parcels(&shop, "pending"), status).await;
        let id = id_of(&original);
        let before = shipment_count(&shop).await;
        let ret = shop.post_empty(&id, "/create-return").await.expect(201);

        assert_id(&ret["id"], "shp");
        assert_ne!(ret["id"], original["id"]);
        assert_eq!(ret["type"], "inbound", "{status}");
        assert_eq!(ret["returnOf"], original["id"]);
        assert_eq!(ret["status"], "processing");
        assert_eq!(ret["senderAddressId"], original["senderAddressId"]);
        assert_eq!(ret["carrierSettings"], original["carrierSettings"]);

        let sender = with(party(&original, "receiver"), "type", json!("sender"));
        let receiver = with(party(&original, "sender"), "type", json!("receiver"));
        assert_eq!(party(&ret, "sender"), sender);
        assert_eq!(party(&ret, "receiver"), receiver);

        let (copies, parcels) = (parcels_of(&ret), parcels_of(&original));
        assert_eq!(copies.len(), parcels.len());
        for (copy, parcel) in copies.iter().zip(&parcels) {
            assert_id(&copy["id"], "prc");
            assert!(!parcel_ids(&original).contains(&id_of(copy)), "{copy}");
            assert_eq!(copy["weight"], parcel["weight"]);
            assert_eq!(lines(copy), lines(parcel));
        }

        let number = ret["tracking"]["number"].as_str().unwrap_or_default();
        assert!(!number.is_empty(), "{ret}");
        assert_ne!(ret["tracking"]["number"], original["tracking"]["number"]);
        let documents = ret["documents"].as_array().cloned().unwrap_or_default();
        assert_eq!(documents.len(), copies.len(), "a label per parcel");
        for document in &documents {
            assert_id(&document["id"], "doc");
            assert_eq!(document["shipmentId"], ret["id"]);
            assert_eq!(document["documentType"], "label");
            assert_eq!(document["format"], "pdf");
        }

        assert_eq!(shop.get(&id_of(&ret)).await, ret);
        assert_eq!(shop.get(&id).await, original);
        assert_eq!(shipment_count(&shop).await, before + 1);
    }
}

#[tokio::test]
async fn a_return_takes_the_carrier_settings_of_the_return_rule_of_the_original_rule() {
    let shop = Shop::new().await;
    let address_id = id_of(&shop.address);
    let return_carrier = shop.app.create_carrier(&shop.org, &address_id).await;
    let return_rule = shop
        .app
        .create_rule(
            &shop.org,
            json!({
                "name": "Returns",
                "carrierId": return_carrier["id"],
                "productId": "economy",
                "services": ["insurance"],
                "additionalParameters": [{"name": "returnReason", "val": "unwanted"}],
                "senderAddressId": address_id
            }),
        )
        .await;
    let outbound_rule = shop
        .app
        .create_rule(
            &shop.org,
            json!({
                "name": "Outbound",
                "carrierId": shop.carrier["id"],
                "productId": "express",
                "services": ["signature"],
                "senderAddressId": address_id,
                "returnShippingRuleId": return_rule["id"]
            }),
        )
        .await;
    let id = id_of(&shop.create(shop.body()).await);
    shop.post(
        &id,
        "/apply-shipping-rule",
        json!({"shippingRuleId": outbound_rule["id"]}),
    )
    .await
    .expect(200);
    shop.app.book_shipment(&shop.org, &id).await;
    let original = shop
        .app
        .set_shipment_status(&shop.org, &id, "dispatched")
        .await;
    assert_eq!(original["carrierSettings"]["productId"], "express");
    let ret = shop.post_empty(&id, "/create-return").await.expect(201);
    assert_eq!(
        ret["carrierSettings"],
        json!({
            "carrierId": return_carrier["id"],
            "productId": "economy",
            "services": ["insurance"],
            "additionalParameters": {"returnReason": "unwanted"}
        })
    );
    assert_eq!(ret["status"], "processing");
    assert_eq!(ret["returnOf"], original["id"]);
}

#[tokio::test]
async fn a_return_before_dispatch_is_409_and_creates_nothing() {
    let shop = Shop::new().await;
    let mut shipments = Vec::new();
    for status in ["draft", "pending", "on_hold", "error", "cancelled"] {
        shipments.push(
            shop.create(with(shop.body(), "status", json!(status)))
                .await,
        );
    }
    shipments.push(shop.booked(shop.body(), "processing").await);
    let count = shipment_count(&shop).await;
    for shipment in &shipments {
        let id = id_of(shipment);
        let reply = shop.post_empty(&id, "/create-return").await;
        assert_eq!(
            reply.status.as_u16(),
            409,
            "{}: {}",
            shipment["status"],
            reply.text
        );
        reply.problem(409, "invalid_state");
        assert_eq!(&shop.get(&id).await, shipment);
    }
    assert_eq!(shipment_count(&shop).await, count);
}

#[tokio::test]
async fn a_return_of_an_inbound_shipment_is_409() {
    let shop = Shop::new().await;
    let inbound = shop
        .booked(with(shop.body(), "type", json!("inbound")), "dispatched")
        .await;
    let id = id_of(&inbound);
    shop.post_empty(&id, "/create-return")
        .await
        .problem(409, "invalid_state");
    assert_eq!(shop.get(&id).await, inbound);
    assert_eq!(shipment_count(&shop).await, 1);
}

#[tokio::test]
async fn a_return_of_an_unknown_shipment_is_404() {
    let shop = Shop::new().await;
    shop.post_empty("shp_01ARZ3NDEKTSV4RRFFQ69G5FAV", "/create-return")
        .await
        .problem(404, "not_found");
    assert_eq!(shipment_count(&shop).await, 0);
}
