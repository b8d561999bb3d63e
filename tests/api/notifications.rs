//! Receivers' e-mail settings (DESIGN §21): off by default with the built-in words in six
//! languages, templates that must compile, and a preview that renders one event's e-mail.

use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, shipment_body},
    helpers::TestApp,
};

#[tokio::test]
async fn settings_start_off_take_templates_that_compile_and_preview_in_the_receivers_language() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}/notification-settings", org.id);
    let off = json!({"enabled": false, "subject": null, "text": null});
    let got = app.get(&path, &org.token).await.expect(200);
    assert_eq!(
        got,
        json!({"booked": off, "outForDelivery": off, "delivered": off, "exception": off})
    );

    // A template that does not compile is refused with its field; nothing is stored.
    let broken = app
        .put(
            &path,
            &org.token,
            json!({"booked": {"enabled": true, "subject": "{{ shipment.reference "}}),
        )
        .await
        .problem(400, "validation_failed");
    assert_eq!(broken["errors"][0]["field"], "booked.subject", "{broken}");
    assert_eq!(app.get(&path, &org.token).await.expect(200), got);

    let put = app
        .put(
            &path,
            &org.token,
            json!({"booked": {"enabled": true, "subject": "{{ organization.name }}: {{ shipment.reference }} is coming"},
                   "delivered": {"enabled": true}}),
        )
        .await
        .expect(200);
    assert_eq!(put["booked"]["enabled"], true);
    assert_eq!(
        put["delivered"],
        json!({"enabled": true, "subject": null, "text": null})
    );
    assert_eq!(put["outForDelivery"], off, "left out is off");
    assert_eq!(app.get(&path, &org.token).await.expect(200), put);

    // A preview of a booked shipment to Sweden: the stored subject, the built-in Swedish text.
    app.put(
        &format!("/orgs/{}/branding", org.id),
        &org.token,
        json!({"displayName": "Nordic Mugs"}),
    )
    .await
    .expect(200);
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["parties"][0]["countryCode"] = json!("SE");
    body["parties"][0]["postalCode"] = json!("111 22");
    body["language"] = json!("sv");
    let shipment = app.create_shipment(&org, body).await;
    let booked = app.book_shipment(&org, &id_of(&shipment)).await;
    let preview = |extra: Value| {
        let mut request = json!({"event": "booked", "shipmentId": id_of(&shipment)});
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            request[k] = v;
        }
        let (app, path) = (&app, format!("{path}/preview"));
        let token = org.token.clone();
        async move { app.post(&path, &token, request).await }
    };
    let shown = preview(json!({})).await.expect(200);
    assert_eq!(shown["language"], "sv");
    assert_eq!(shown["subject"], "Nordic Mugs: REF-1001 is coming");
    let text = shown["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("Hej,"), "{text}");
    assert!(
        text.contains(booked["trackingUrl"].as_str().unwrap_or("-")),
        "{text}"
    );
    let german = preview(json!({"event": "delivered", "language": "de"}))
        .await
        .expect(200);
    assert_eq!(
        german["subject"],
        "Ihr Paket von Nordic Mugs wurde zugestellt"
    );
    let tried = preview(json!({"text": "{{ shipment.reference }} / {{ language }}"}))
        .await
        .expect(200);
    assert_eq!(tried["text"], "REF-1001 / sv");

    // Bad previews name their field.
    let bad = preview(json!({"event": "shipped"}))
        .await
        .problem(400, "validation_failed");
    assert_eq!(bad["errors"][0]["field"], "event");
    let bad = preview(json!({"shipmentId": "shp_nope"}))
        .await
        .problem(400, "validation_failed");
    assert_eq!(bad["errors"][0]["field"], "shipmentId");
    let bad = preview(json!({"text": "{% if %}"}))
        .await
        .problem(400, "validation_failed");
    assert_eq!(bad["errors"][0]["field"], "text");

    // Reading needs read:orgs, changing write:orgs.
    let reader = app.create_token(&org, "read:orgs");
    app.get(&path, &reader).await.expect(200);
    app.put(&path, &reader, json!({}))
        .await
        .problem(403, "insufficient_scope");
}

#[tokio::test]
async fn an_example_shipment_is_previewed_when_none_is_named() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let shown = app
        .post(
            &format!("/orgs/{}/notification-settings/preview", org.id),
            &org.token,
            json!({"event": "outForDelivery", "language": "fi"}),
        )
        .await
        .expect(200);
    assert_eq!(shown["language"], "fi");
    assert!(
        shown["subject"]
            .as_str()
            .unwrap_or_default()
            .contains("saapuu tänään"),
        "{shown}"
    );
    assert!(
        shown["text"]
            .as_str()
            .unwrap_or_default()
            .contains("ORDER-1001"),
        "{shown}"
    );
}
