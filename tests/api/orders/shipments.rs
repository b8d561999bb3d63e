//! Shipments for orders: POST /orgs/{orgId}/orders/{orderId}/shipments (SPEC row 18), shipments
//! linked through POST /orgs/{orgId}/shipments, and how an order's status follows them (DESIGN §8).

use serde_json::{Value, json};

use crate::{
    fixtures::{
        assert_id, assert_invalid, id_of, receiver_party, shipment_body, shipping_address, with,
        without,
    },
    orders::Setup,
};

fn parties_of<'a>(shipment: &'a Value, kind: &str) -> Vec<&'a Value> {
    shipment["parties"]
        .as_array()
        .unwrap_or_else(|| panic!("no parties in {shipment}"))
        .iter()
        .filter(|p| p["type"] == kind)
        .collect()
}

#[track_caller]
fn assert_close(actual: &Value, expected: f64) {
    let value = actual
        .as_f64()
        .unwrap_or_else(|| panic!("{actual} is not a number"));
    assert!(
        (value - expected).abs() < 1e-9,
        "expected {expected}, got {value}"
    );
}

#[tokio::test]
async fn a_shipment_for_an_order_takes_its_receiver_lines_weight_and_number() {
    let s = Setup::new().await;
    let order = s.create_order("1001").await;
    let shipment = s
        .post_shipment(&id_of(&order), s.shipment_body())
        .await
        .expect(201);
    assert_id(&shipment["id"], "shp");
    assert_eq!(shipment["orderId"], order["id"]);
    assert_eq!(shipment["reference"], "1001");
    assert_eq!(shipment["type"], "outbound");
    assert_eq!(shipment["status"], "pending");
    assert_eq!(shipment["senderAddressId"], s.address["id"]);
    assert_eq!(shipment["carrierSettings"]["carrierId"], s.carrier["id"]);
    assert_eq!(shipment["carrierSettings"]["productId"], "standard");
    assert_eq!(
        shipment["carrierSettings"]["services"],
        json!(["signature"])
    );

    let receivers = parties_of(&shipment, "receiver");
    assert_eq!(receivers.len(), 1, "{shipment}");
    let address = shipping_address();
    for key in [
        "name",
        "address1",
        "postalCode",
        "city",
        "countryCode",
        "phone",
        "email",
    ] {
        assert_eq!(receivers[0][key], address[key], "{key}");
    }
    assert_eq!(
        parties_of(&shipment, "sender")[0]["name"],
        s.address["name"]
    );

    let parcels = shipment["parcels"].as_array().cloned().unwrap_or_default();
    assert_eq!(parcels.len(), 1, "{shipment}");
    let parcel = &parcels[0];
    assert_id(&parcel["id"], "prc");
    assert_eq!(parcel["weightUnit"], "kg");
    // 2 × 350 g + 1 × 1.2 kg; the 5 kg gift wrapping does not ship.
    assert_close(&parcel["weight"], 1.9);
    let lines: Vec<(Value, Value)> = parcel["orderLines"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| (l["sku"].clone(), l["quantity"].clone()))
        .collect();
    assert_eq!(
        lines,
        [(json!("MUG-BLUE"), json!(2)), (json!("POT-1"), json!(1))]
    );
    let mug = &parcel["orderLines"][0];
    assert_id(&mug["id"], "oln");
    assert_eq!(mug["unitPrice"], 49.5);
}

#[tokio::test]
async fn a_given_reference_and_given_parties_are_used() {
    let s = Setup::new().await;
    let order = s.create_order("1001").await;
    let body = with(s.shipment_body(), "parties", json!([receiver_party()]));
    let body = with(body, "reference", json!("CUSTOM-REF"));
    let shipment = s.post_shipment(&id_of(&order), body).await.expect(201);
    assert_eq!(shipment["reference"], "CUSTOM-REF");
    let receivers = parties_of(&shipment, "receiver");
    assert_eq!(receivers.len(), 1, "{shipment}");
    let given = receiver_party();
    for key in [
        "name",
        "address1",
        "postalCode",
        "city",
        "countryCode",
        "email",
    ] {
        assert_eq!(receivers[0][key], given[key], "{key}");
    }
    assert_eq!(parties_of(&shipment, "sender").len(), 1, "{shipment}");
}

#[tokio::test]
async fn an_order_without_a_usable_address_and_no_parties_is_400_naming_parties() {
    let s = Setup::new().await;
    let no_address = without(s.order_body("1001"), "shippingAddress");
    let mut partial = s.order_body("1002");
    partial["shippingAddress"]
        .as_object_mut()
        .expect("an address")
        .remove("postalCode");
    for body in [no_address, partial] {
        let order = s.app.create_order(&s.org, body).await;
        let id = id_of(&order);
        assert_invalid(s.post_shipment(&id, s.shipment_body()).await, "parties");
        let after = s.order(&id).await;
        assert_eq!(after["shipments"], json!([]));
        assert_eq!(after["status"], "pending");
    }
    // With parties given, the same order ships.
    let order = s
        .app
        .create_order(&s.org, without(s.order_body("1003"), "shippingAddress"))
        .await;
    let body = with(s.shipment_body(), "parties", json!([receiver_party()]));
    s.post_shipment(&id_of(&order), body).await.expect(201);
}

#[tokio::test]
async fn a_shipment_for_an_order_without_sender_carrier_or_product_is_400_naming_it() {
    let s = Setup::new().await;
    let order = s.create_order("1001").await;
    let id = id_of(&order);
    for field in ["senderAddressId", "carrierId", "productId"] {
        assert_invalid(
            s.post_shipment(&id, without(s.shipment_body(), field))
                .await,
            field,
        );
    }
    let after = s.order(&id).await;
    assert_eq!(after["shipments"], json!([]));
    assert_eq!(after["status"], "pending");
}

#[tokio::test]
async fn a_shipment_for_an_unknown_order_is_404() {
    let s = Setup::new().await;
    s.post_shipment("ord_01ARZ3NDEKTSV4RRFFQ69G5FAV", s.shipment_body())
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn a_shipment_for_a_cancelled_order_is_409() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    s.cancel(&id).await.expect(200);
    s.post_shipment(&id, s.shipment_body())
        .await
        .problem(409, "invalid_state");
    assert_eq!(s.order(&id).await["shipments"], json!([]));
}

#[tokio::test]
async fn the_order_lists_its_shipment_and_moves_to_processing() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let shipment = s.ship(&id).await;
    let order = s.order(&id).await;
    assert_eq!(order["status"], "processing");
    let summaries = order["shipments"].as_array().cloned().unwrap_or_default();
    assert_eq!(summaries.len(), 1, "{order}");
    let summary = &summaries[0];
    assert_eq!(summary["id"], shipment["id"]);
    assert_eq!(summary["reference"], "1001");
    assert_eq!(summary["status"], "pending");
    assert_eq!(summary["type"], "outbound");
    assert_eq!(summary["carrierSettings"], shipment["carrierSettings"]);
    assert!(summary["tracking"].is_null(), "{summary}");
    assert_eq!(summary["documents"], json!([]));

    let booked = s.app.book_shipment(&s.org, &id_of(&shipment)).await;
    let order = s.order(&id).await;
    assert_eq!(order["status"], "processing");
    let summary = &order["shipments"][0];
    assert_eq!(summary["status"], "processing");
    assert!(
        summary["tracking"]["number"]
            .as_str()
            .is_some_and(|n| !n.is_empty()),
        "{summary}"
    );
    let documents = summary["documents"].as_array().cloned().unwrap_or_default();
    assert!(!documents.is_empty(), "{summary}");
    assert_eq!(documents[0]["documentType"], "label");
    assert_eq!(documents[0]["shipmentId"], shipment["id"]);
    for key in [
        "id",
        "reference",
        "status",
        "type",
        "carrierSettings",
        "tracking",
        "documents",
        "createdAt",
        "updatedAt",
    ] {
        assert_eq!(summary[key], booked[key], "{key}");
    }
}

#[tokio::test]
async fn an_order_is_partially_fulfilled_then_fulfilled_as_its_shipments_are_dispatched() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let first = id_of(&s.ship(&id).await);
    let second = id_of(&s.ship(&id).await);
    assert_eq!(s.order(&id).await["status"], "processing");
    for shipment in [&first, &second] {
        s.app.book_shipment(&s.org, shipment).await;
    }
    assert_eq!(s.order(&id).await["status"], "processing");
    s.app
        .set_shipment_status(&s.org, &first, "dispatched")
        .await;
    assert_eq!(s.order(&id).await["status"], "partially_fulfilled");
    s.app
        .set_shipment_status(&s.org, &second, "dispatched")
        .await;
    assert_eq!(s.order(&id).await["status"], "fulfilled");
}

#[tokio::test]
async fn an_order_with_a_shipment_in_error_and_none_dispatched_is_error() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let failing = id_of(&s.ship(&id).await);
    s.ship(&id).await;
    s.app.set_shipment_status(&s.org, &failing, "error").await;
    assert_eq!(s.order(&id).await["status"], "error");
}

#[tokio::test]
async fn a_shipment_created_with_an_order_id_is_linked_to_the_order() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let body = with(
        shipment_body(&id_of(&s.address), &id_of(&s.carrier)),
        "orderId",
        json!(id),
    );
    let shipment = s.app.create_shipment(&s.org, body).await;
    assert_eq!(shipment["orderId"], id.as_str());
    let order = s.order(&id).await;
    assert_eq!(order["status"], "processing");
    assert_eq!(order["shipments"][0]["id"], shipment["id"]);
    assert_eq!(order["shipments"][0]["reference"], "REF-1001");
    let listed = s
        .app
        .get(
            &format!("/orgs/{}/shipments?orderId={id}", s.org.id),
            &s.org.token,
        )
        .await
        .expect(200);
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["data"][0]["id"], shipment["id"]);
}

#[tokio::test]
async fn a_shipment_with_an_unknown_order_id_is_400_naming_it() {
    let s = Setup::new().await;
    let body = with(
        shipment_body(&id_of(&s.address), &id_of(&s.carrier)),
        "orderId",
        json!("ord_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
    );
    let shipments = format!("/orgs/{}/shipments", s.org.id);
    assert_invalid(s.app.post(&shipments, &s.org.token, body).await, "orderId");
    let list = s.app.get(&shipments, &s.org.token).await.expect(200);
    assert_eq!(list["total"], 0);
}

#[tokio::test]
async fn a_shipment_of_another_orgs_order_is_404() {
    let s = Setup::new().await;
    let other = s.app.create_org();
    let id = id_of(&s.create_order("1001").await);
    let (address, carrier) = s.app.create_address_and_carrier(&other).await;
    let body = crate::fixtures::order_shipment_body(&id_of(&address), &id_of(&carrier));
    s.app
        .post(
            &format!("/orgs/{}/orders/{id}/shipments", other.id),
            &other.token,
            body,
        )
        .await
        .problem(404, "not_found");
    assert_eq!(s.order(&id).await["shipments"], json!([]));
}

#[tokio::test]
async fn a_partly_dispatched_shipment_makes_the_order_partially_fulfilled() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let shipment = id_of(&s.ship(&id).await);
    s.app.book_shipment(&s.org, &shipment).await;
    s.app
        .set_shipment_status(&s.org, &shipment, "partly_dispatched")
        .await;
    assert_eq!(s.order(&id).await["status"], "partially_fulfilled");
    s.app
        .set_shipment_status(&s.org, &shipment, "dispatched")
        .await;
    assert_eq!(s.order(&id).await["status"], "fulfilled");
}

#[tokio::test]
async fn deleting_the_only_shipment_of_an_order_makes_it_pending_and_deletable() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let shipment = id_of(&s.ship(&id).await);
    assert_eq!(s.order(&id).await["status"], "processing");
    s.app
        .delete(
            &format!("/orgs/{}/shipments/{shipment}", s.org.id),
            &s.org.token,
        )
        .await
        .expect(200);
    let order = s.order(&id).await;
    assert_eq!(order["status"], "pending");
    assert_eq!(order["shipments"], json!([]));
    s.app
        .delete(&s.order_path(&id), &s.org.token)
        .await
        .expect(200);
}

#[tokio::test]
async fn an_orders_updated_at_moves_when_a_shipment_deletion_changes_its_status() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let shipment = id_of(&s.ship(&id).await);
    let before = s.order(&id).await;
    // Lets the clock pass the millisecond the shipment was written in.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    s.app
        .delete(
            &format!("/orgs/{}/shipments/{shipment}", s.org.id),
            &s.org.token,
        )
        .await
        .expect(200);
    let after = s.order(&id).await;
    assert_eq!(after["status"], "pending");
    let (before, after) = (
        before["updatedAt"].as_str().unwrap_or_default(),
        after["updatedAt"].as_str().unwrap_or_default(),
    );
    assert!(
        after > before,
        "the status changed, yet updatedAt went from {before} to {after}"
    );
}

#[tokio::test]
async fn creating_a_shipment_for_an_order_needs_write_shipments_not_write_orders() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let orders_only = s.app.create_token(&s.org, "write:orders");
    let path = format!("{}/shipments", s.order_path(&id));
    let reply = s.app.post(&path, &orders_only, s.shipment_body()).await;
    let header = reply.header("www-authenticate");
    reply.problem(403, "insufficient_scope");
    assert!(header.contains("scope=\"write:shipments\""), "{header}");
    assert_eq!(s.order(&id).await["shipments"], json!([]));
    let shipments_only = s.app.create_token(&s.org, "write:shipments");
    s.app
        .post(&path, &shipments_only, s.shipment_body())
        .await
        .expect(201);
}
