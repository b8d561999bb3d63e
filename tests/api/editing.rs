//! Editing a shipment before it is booked (DESIGN §7): a JSON Merge Patch validated like a
//! create; ids given are kept; 409 once booked; the order it moves to or from follows.

use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, order_body, order_channel_body, parcels_of, shipment_body},
    helpers::{Reply, TestApp, TestOrg, error_fields},
};

async fn patch(app: &TestApp, org: &TestOrg, id: &str, body: Value, content_type: &str) -> Reply {
    app.send_raw(
        reqwest::Method::PATCH,
        &format!("/orgs/{}/shipments/{id}", org.id),
        Some(&org.token),
        Some(content_type),
        body.to_string(),
    )
    .await
}

const MERGE: &str = "application/merge-patch+json";

#[tokio::test]
async fn a_merge_patch_changes_what_it_names_and_keeps_the_rest() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let created = app
        .create_shipment(&org, shipment_body(&id_of(&address), &id_of(&carrier)))
        .await;
    let id = id_of(&created);
    let parcel = parcels_of(&created)[0].clone();
    let patched = patch(
        &app,
        &org,
        &id,
        json!({
            "reference": "EDITED",
            "carrierSettings": {"productId": "express"},
            "servicePointId": null,
            "parcels": [parcel.clone(), {"weight": 9.5}],
        }),
        MERGE,
    )
    .await
    .expect(200);
    assert_eq!(patched["reference"], "EDITED");
    assert_eq!(patched["carrierSettings"]["productId"], "express");
    assert_eq!(
        patched["carrierSettings"]["carrierId"],
        id_of(&carrier),
        "objects merge"
    );
    assert_eq!(patched["servicePointId"], Value::Null);
    let parcels = parcels_of(&patched);
    assert_eq!(parcels.len(), 2, "arrays replace");
    assert_eq!(parcels[0]["id"], parcel["id"], "ids given are kept");
    assert!(
        parcels[1]["id"]
            .as_str()
            .is_some_and(|p| p.starts_with("prc_"))
    );
    assert_eq!(patched["parties"], created["parties"]);
    assert_eq!(patched["status"], "pending");
    let got = app
        .get(&format!("/orgs/{}/shipments/{id}", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(got, patched);
}

#[tokio::test]
async fn an_invalid_result_is_400_naming_the_field_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let created = app
        .create_shipment(&org, shipment_body(&id_of(&address), &id_of(&carrier)))
        .await;
    let id = id_of(&created);
    for (body, field) in [
        (json!({"parcels": []}), "parcels"),
        (json!({"reference": ""}), "reference"),
        (json!({"status": "dispatched"}), "status"),
        (json!({"referense": "X"}), "referense"),
        (
            json!({"senderAddressId": "adr_01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
            "senderAddressId",
        ),
        (json!({"reference": null}), "reference"),
    ] {
        let problem = patch(&app, &org, &id, body.clone(), "application/json")
            .await
            .problem(400, "validation_failed");
        assert_eq!(problem["errors"][0]["field"], field, "{body}: {problem}");
    }
    let got = app
        .get(&format!("/orgs/{}/shipments/{id}", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(got, created);
}

#[tokio::test]
async fn only_unbooked_shipments_are_edited() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let created = app
        .create_shipment(&org, shipment_body(&id_of(&address), &id_of(&carrier)))
        .await;
    app.book_shipment(&org, &id_of(&created)).await;
    patch(
        &app,
        &org,
        &id_of(&created),
        json!({"reference": "LATE"}),
        MERGE,
    )
    .await
    .problem(409, "invalid_state");
}

#[tokio::test]
async fn moving_a_shipment_to_another_order_settles_both_orders() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let channel = app
        .create_order_channel(&org, order_channel_body("manual"))
        .await;
    let first = app
        .create_order(&org, order_body(&id_of(&channel), "A-1"))
        .await;
    let second = app
        .create_order(&org, order_body(&id_of(&channel), "A-2"))
        .await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["orderId"] = json!(id_of(&first));
    let shipment = app.create_shipment(&org, body).await;
    assert_eq!(
        app.get_order(&org, &id_of(&first)).await["status"],
        "processing"
    );
    patch(
        &app,
        &org,
        &id_of(&shipment),
        json!({"orderId": id_of(&second)}),
        MERGE,
    )
    .await
    .expect(200);
    assert_eq!(
        app.get_order(&org, &id_of(&first)).await["status"],
        "pending"
    );
    assert_eq!(
        app.get_order(&org, &id_of(&second)).await["status"],
        "processing"
    );
}

#[tokio::test]
async fn a_patch_gets_every_problem_of_the_edited_shipment_at_once() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let created = app
        .create_shipment(&org, shipment_body(&id_of(&address), &id_of(&carrier)))
        .await;
    let id = id_of(&created);
    let problem = patch(
        &app,
        &org,
        &id,
        json!({
            "type": "outbund",
            "senderAddressId": "adr_nowhere",
            "carrierSettings": {"carrierId": "car_nowhere"},
        }),
        MERGE,
    )
    .await
    .problem(400, "validation_failed");
    assert_eq!(
        error_fields(&problem),
        ["type", "senderAddressId", "carrierSettings.carrierId"],
        "{problem}"
    );
    let kept = app
        .get(&format!("/orgs/{}/shipments/{id}", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(kept["senderAddressId"], id_of(&address));
    assert_eq!(kept["type"], "outbound");
}
