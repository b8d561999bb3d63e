//! Sender addresses: /orgs/{orgId}/sender-addresses (SPEC §2 SenderAddress, row 5).

use std::time::Duration;

use serde_json::{Value, json};

use crate::{
    fixtures::{
        assert_id, assert_invalid, assert_list_total, assert_timestamp, id_of, page_ids,
        sender_address_body, with, without,
    },
    helpers::TestApp,
};

const REQUIRED: [&str; 9] = [
    "name",
    "attContact",
    "address1",
    "zipcode",
    "city",
    "phone",
    "countryCode",
    "state",
    "email",
];

#[tokio::test]
async fn creating_a_sender_address_returns_201_with_id_org_and_timestamps() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let body = app
        .post(
            &format!("/orgs/{}/sender-addresses", org.id),
            &org.token,
            sender_address_body(),
        )
        .await
        .expect(201);
    assert_id(&body["id"], "adr");
    assert_eq!(body["orgId"], org.id);
    assert_timestamp(&body["createdAt"]);
    assert_timestamp(&body["updatedAt"]);
    let sent = sender_address_body();
    for field in REQUIRED.iter().chain(&["address2"]) {
        assert_eq!(body[field], sent[field], "{field}");
    }
    assert_eq!(body["customs"]["eori"], "DK12345678");
    assert_eq!(body["customs"]["voec"], "VOEC-1");
}

#[tokio::test]
async fn a_sender_address_may_have_a_null_or_missing_address2() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let null = app
        .create_sender_address_with(&org, with(sender_address_body(), "address2", Value::Null))
        .await;
    assert!(null["address2"].is_null(), "{null}");
    let missing = app
        .create_sender_address_with(&org, without(sender_address_body(), "address2"))
        .await;
    assert!(missing["address2"].is_null(), "{missing}");
}

#[tokio::test]
async fn a_sender_address_without_a_required_field_is_400_naming_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}/sender-addresses", org.id);
    for field in REQUIRED {
        let reply = app
            .post(&path, &org.token, without(sender_address_body(), field))
            .await;
        assert_invalid(reply, field);
    }
    assert_list_total(&app, &path, &org.token, 0).await;
}

#[tokio::test]
async fn a_sender_address_with_an_empty_required_string_is_400_naming_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}/sender-addresses", org.id);
    for field in REQUIRED {
        let reply = app
            .post(
                &path,
                &org.token,
                with(sender_address_body(), field, json!("")),
            )
            .await;
        assert_invalid(reply, field);
    }
    assert_list_total(&app, &path, &org.token, 0).await;
}

#[tokio::test]
async fn sender_address_country_codes_are_two_or_three_upper_case_letters() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}/sender-addresses", org.id);
    for good in ["DK", "DNK"] {
        let body = app
            .create_sender_address_with(
                &org,
                with(sender_address_body(), "countryCode", json!(good)),
            )
            .await;
        assert_eq!(body["countryCode"], good);
    }
    for bad in ["D", "DNKX", "dk"] {
        let reply = app
            .post(
                &path,
                &org.token,
                with(sender_address_body(), "countryCode", json!(bad)),
            )
            .await;
        assert_invalid(reply, "countryCode");
    }
    assert_list_total(&app, &path, &org.token, 2).await;
}

#[tokio::test]
async fn a_sender_address_with_a_bad_email_is_400() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}/sender-addresses", org.id);
    for bad in ["not-an-email", "warehouse.example.com", "a@b"] {
        let reply = app
            .post(
                &path,
                &org.token,
                with(sender_address_body(), "email", json!(bad)),
            )
            .await;
        assert_invalid(reply, "email");
    }
}

#[tokio::test]
async fn sender_addresses_are_listed_newest_first_in_pages() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}/sender-addresses", org.id);
    let mut ids = Vec::new();
    for name in ["First", "Second", "Third"] {
        let address = app
            .create_sender_address_with(&org, with(sender_address_body(), "name", json!(name)))
            .await;
        ids.push(id_of(&address));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let first = app
        .get(&format!("{path}?limit=2"), &org.token)
        .await
        .expect(200);
    assert_eq!(first["total"], 3);
    assert_eq!(first["page"], 1);
    assert_eq!(first["limit"], 2);
    assert_eq!(first["totalPages"], 2);
    assert_eq!(page_ids(&first), [ids[2].clone(), ids[1].clone()]);
    let second = app
        .get(&format!("{path}?limit=2&page=2"), &org.token)
        .await
        .expect(200);
    assert_eq!(second["page"], 2);
    assert_eq!(page_ids(&second), [ids[0].clone()]);
    assert_eq!(second["data"][0]["name"], "First");
}

#[tokio::test]
async fn getting_a_sender_address_returns_what_was_created() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let created = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/sender-addresses/{}", org.id, id_of(&created));
    let got = app.get(&path, &org.token).await.expect(200);
    assert_eq!(got, created);
}

#[tokio::test]
async fn getting_an_unknown_sender_address_is_404() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    app.get(
        &format!(
            "/orgs/{}/sender-addresses/adr_01ARZ3NDEKTSV4RRFFQ69G5FAV",
            org.id
        ),
        &org.token,
    )
    .await
    .problem(404, "not_found");
}

#[tokio::test]
async fn putting_a_sender_address_replaces_every_field() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let created = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/sender-addresses/{}", org.id, id_of(&created));
    let replacement = json!({
        "name": "Second Warehouse",
        "attContact": "Bob",
        "address1": "Havnegade 2",
        "zipcode": "5000",
        "city": "Odense",
        "phone": "+4566666666",
        "countryCode": "DNK",
        "state": "Southern Denmark",
        "email": "odense@example.com"
    });
    let updated = app
        .put(&path, &org.token, replacement.clone())
        .await
        .expect(200);
    assert_eq!(updated["id"], created["id"]);
    assert_eq!(updated["orgId"], org.id);
    assert_eq!(updated["createdAt"], created["createdAt"]);
    assert_timestamp(&updated["updatedAt"]);
    assert!(updated["updatedAt"].as_str() >= created["updatedAt"].as_str());
    for field in REQUIRED {
        assert_eq!(updated[field], replacement[field], "{field}");
    }
    assert!(updated["address2"].is_null(), "address2 is replaced too");
    assert!(updated["customs"].is_null(), "customs are replaced too");
    assert_eq!(app.get(&path, &org.token).await.expect(200), updated);
}

#[tokio::test]
async fn putting_an_invalid_sender_address_is_400_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let created = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/sender-addresses/{}", org.id, id_of(&created));
    let reply = app
        .put(
            &path,
            &org.token,
            with(sender_address_body(), "countryCode", json!("D")),
        )
        .await;
    assert_invalid(reply, "countryCode");
    assert_eq!(app.get(&path, &org.token).await.expect(200), created);
}

#[tokio::test]
async fn deleting_a_sender_address_answers_a_message_then_it_is_404() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let created = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/sender-addresses/{}", org.id, id_of(&created));
    let body = app.delete(&path, &org.token).await.expect(200);
    assert!(body["message"].is_string(), "{body}");
    app.get(&path, &org.token).await.problem(404, "not_found");
    app.delete(&path, &org.token)
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn deleting_a_sender_address_used_by_a_carrier_is_409() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, _carrier) = app.create_address_and_carrier(&org).await;
    let path = format!("/orgs/{}/sender-addresses/{}", org.id, id_of(&address));
    app.delete(&path, &org.token).await.problem(409, "conflict");
    assert_eq!(app.get(&path, &org.token).await.expect(200), address);
}

#[tokio::test]
async fn another_orgs_token_cannot_read_change_or_delete_a_sender_address() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let other = app.create_org();
    let created = app.create_sender_address(&org).await;
    let id = id_of(&created);
    let replacement = with(sender_address_body(), "name", json!("Hijacked"));
    // Through the owner's path and through the other org's own path.
    for path in [
        format!("/orgs/{}/sender-addresses/{id}", org.id),
        format!("/orgs/{}/sender-addresses/{id}", other.id),
    ] {
        app.get(&path, &other.token).await.problem(404, "not_found");
        app.put(&path, &other.token, replacement.clone())
            .await
            .problem(404, "not_found");
        app.delete(&path, &other.token)
            .await
            .problem(404, "not_found");
    }
    let path = format!("/orgs/{}/sender-addresses/{id}", org.id);
    assert_eq!(app.get(&path, &org.token).await.expect(200), created);
    assert_list_total(
        &app,
        &format!("/orgs/{}/sender-addresses", other.id),
        &other.token,
        0,
    )
    .await;
}

#[tokio::test]
async fn deleting_a_sender_address_used_by_a_shipment_is_409() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (_, carrier) = app.create_address_and_carrier(&org).await;
    let address = app
        .create_sender_address_with(&org, with(sender_address_body(), "name", json!("Shop")))
        .await;
    app.create_shipment(
        &org,
        crate::fixtures::shipment_body(&id_of(&address), &id_of(&carrier)),
    )
    .await;
    let path = format!("/orgs/{}/sender-addresses/{}", org.id, id_of(&address));
    app.delete(&path, &org.token).await.problem(409, "conflict");
    assert_eq!(app.get(&path, &org.token).await.expect(200), address);
    let list = app
        .get(&format!("/orgs/{}/shipments", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(list["data"][0]["senderAddress"], address);
}
