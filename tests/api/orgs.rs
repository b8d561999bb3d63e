//! Organizations: POST /orgs (who may create, validation, conflicts), GET and PUT /orgs/{orgId}.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_timestamp, error_fields, is_id, signup_body};

const OPEN_SIGNUP: &str = "[signup]\nopen = true\n";

/// The fields PUT /orgs/{orgId} may clear with `null`.
const NULLABLE: [&str; 9] = [
    "description",
    "vatNumber",
    "billingEmail",
    "companyName",
    "addressLine1",
    "addressLine2",
    "city",
    "postalCode",
    "country",
];

fn full_update(slug: &str) -> Value {
    json!({
        "name": "Nordic Parcel ApS",
        "slug": slug,
        "description": "Ships from Aarhus",
        "currency": "EUR",
        "vatNumber": "DK12345678",
        "overageEnabled": true,
        "billingEmail": "billing@nordic.example.com",
        "companyName": "Nordic Parcel ApS",
        "addressLine1": "Havnegade 1",
        "addressLine2": "2. sal",
        "city": "Aarhus",
        "postalCode": "8000",
        "country": "DK",
    })
}

#[tokio::test]
async fn creating_an_org_returns_the_org_and_its_owner_as_super_admin() {
    let app = TestApp::spawn_with(OPEN_SIGNUP).await;
    let mut body = signup_body();
    body["description"] = json!("A test shop");
    let created = app
        .call(Method::POST, "/orgs", None, Some(body.clone()))
        .await
        .expect(201);

    let org = &created["org"];
    assert!(
        is_id("org", org["id"].as_str().unwrap_or_default()),
        "{org}"
    );
    assert_eq!(org["name"], body["name"]);
    assert_eq!(org["slug"], body["slug"]);
    assert_eq!(org["description"], "A test shop");
    assert_eq!(org["currency"], "DKK");
    assert_eq!(org["overageEnabled"], false);
    for field in NULLABLE.iter().filter(|f| **f != "description") {
        assert_eq!(org[field], Value::Null, "{field}: {org}");
    }
    assert_timestamp(&org["createdAt"]);
    assert_timestamp(&org["updatedAt"]);

    let user = &created["user"];
    assert!(
        is_id("usr", user["id"].as_str().unwrap_or_default()),
        "{user}"
    );
    assert_eq!(user["email"], body["creatorEmail"]);
    assert_eq!(user["name"], body["creatorName"]);
    assert_eq!(user["superAdmin"], true);
    assert_eq!(user["emailVerified"], false);
    assert!(user["language"].is_string(), "{user}");
    assert_timestamp(&user["createdAt"]);
    assert_timestamp(&user["updatedAt"]);
}

#[tokio::test]
async fn an_org_created_without_a_description_has_a_null_description() {
    let app = TestApp::spawn_with(OPEN_SIGNUP).await;
    let created = app
        .call(Method::POST, "/orgs", None, Some(signup_body()))
        .await
        .expect(201);
    assert_eq!(created["org"]["description"], Value::Null);
}

#[tokio::test]
async fn an_anonymous_request_cannot_create_an_org_while_signup_is_closed() {
    let app = TestApp::spawn().await;
    let reply = app
        .call(Method::POST, "/orgs", None, Some(signup_body()))
        .await;
    let challenge = reply.header("www-authenticate");
    reply.problem(401, "unauthenticated");
    assert!(challenge.starts_with("Bearer"), "{challenge}");
}

#[tokio::test]
async fn a_token_of_a_user_who_is_not_staff_cannot_create_an_org_while_signup_is_closed() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    app.call(Method::POST, "/orgs", Some(&org.token), Some(signup_body()))
        .await
        .problem(403, "insufficient_scope");
}

#[tokio::test]
async fn staff_may_create_orgs_while_signup_is_closed() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    app.call(Method::POST, "/orgs", Some(&org.token), Some(signup_body()))
        .await
        .problem(403, "insufficient_scope");

    let out = app.cli(&["staff", "grant", "--email", &org.email]);
    assert!(out.status.success(), "{out:?}");

    let body = signup_body();
    let created = app
        .call(Method::POST, "/orgs", Some(&org.token), Some(body.clone()))
        .await
        .expect(201);
    assert_eq!(created["org"]["slug"], body["slug"]);
    assert_eq!(created["user"]["email"], body["creatorEmail"]);
    assert_eq!(created["user"]["superAdmin"], true);
}

#[tokio::test]
async fn anyone_may_create_an_org_while_signup_is_open() {
    let app = TestApp::spawn_with(OPEN_SIGNUP).await;
    app.call(Method::POST, "/orgs", None, Some(signup_body()))
        .await
        .expect(201);
    let org = app.create_org();
    app.call(Method::POST, "/orgs", Some(&org.token), Some(signup_body()))
        .await
        .expect(201);
}

#[tokio::test]
async fn creating_an_org_without_a_required_field_is_400_naming_it() {
    let app = TestApp::spawn_with(OPEN_SIGNUP).await;
    for field in ["name", "slug", "creatorEmail", "creatorName"] {
        let mut body = signup_body();
        body.as_object_mut().map(|o| o.remove(field));
        let problem = app
            .call(Method::POST, "/orgs", None, Some(body))
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), [field], "{problem}");
    }
}

#[tokio::test]
async fn creating_an_org_with_a_slug_outside_the_pattern_is_400() {
    let app = TestApp::spawn_with(OPEN_SIGNUP).await;
    for slug in [
        "Upper-Case",
        "with space",
        "under_score",
        "dot.slug",
        "ø-slug",
        "",
    ] {
        let mut body = signup_body();
        body["slug"] = json!(slug);
        let problem = app
            .call(Method::POST, "/orgs", None, Some(body))
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), ["slug"], "{slug:?}: {problem}");
    }
}

#[tokio::test]
async fn creating_an_org_with_a_creator_email_that_is_not_an_email_is_400() {
    let app = TestApp::spawn_with(OPEN_SIGNUP).await;
    for email in ["", "not-an-email", "@example.com", "owner@localhost"] {
        let mut body = signup_body();
        body["creatorEmail"] = json!(email);
        let problem = app
            .call(Method::POST, "/orgs", None, Some(body))
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), ["creatorEmail"], "{email:?}");
    }
}

#[tokio::test]
async fn creating_an_org_with_a_taken_slug_is_409() {
    let app = TestApp::spawn_with(OPEN_SIGNUP).await;
    let org = app.create_org();
    let mut body = signup_body();
    body["slug"] = json!(org.slug);
    app.call(Method::POST, "/orgs", None, Some(body))
        .await
        .problem(409, "conflict");
}

#[tokio::test]
async fn an_org_is_read_with_its_own_token() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let read = app.get(&format!("/orgs/{}", org.id), &org.token).await;
    let body = read.expect(200);
    assert_eq!(body["id"], org.id.as_str());
    assert_eq!(body["slug"], org.slug.as_str());
    assert_eq!(body["name"], "Test Org");
    assert_eq!(body["currency"], "DKK");
    assert_eq!(body["overageEnabled"], false);
    assert_timestamp(&body["createdAt"]);

    let read_only = app.create_token(&org, "read:orgs");
    app.get(&format!("/orgs/{}", org.id), &read_only)
        .await
        .expect(200);
}

#[tokio::test]
async fn reading_another_orgs_org_is_404() {
    let app = TestApp::spawn().await;
    let (ours, theirs) = (app.create_org(), app.create_org());
    app.get(&format!("/orgs/{}", theirs.id), &ours.token)
        .await
        .problem(404, "not_found");
    app.get("/orgs/org_01ARZ3NDEKTSV4RRFFQ69G5FAV", &ours.token)
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn every_writable_field_round_trips() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    let before = app.get(&path, &org.token).await.expect(200);
    let update = full_update(&format!("{}-renamed", org.slug));
    let updated = app.put(&path, &org.token, update.clone()).await.expect(200);
    for (field, value) in update.as_object().cloned().unwrap_or_default() {
        assert_eq!(updated[&field], value, "{field}: {updated}");
    }
    assert_eq!(updated["id"], org.id.as_str());
    assert_eq!(updated["createdAt"], before["createdAt"]);
    assert_timestamp(&updated["updatedAt"]);
    assert!(
        updated["updatedAt"].as_str() >= before["updatedAt"].as_str(),
        "{updated}"
    );
    let read = app.get(&path, &org.token).await.expect(200);
    assert_eq!(read, updated);
}

#[tokio::test]
async fn every_billing_currency_is_accepted() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    for currency in ["EUR", "USD", "GBP", "SEK", "NOK", "DKK"] {
        let updated = app
            .put(&path, &org.token, json!({ "currency": currency }))
            .await
            .expect(200);
        assert_eq!(updated["currency"], currency);
        let read = app.get(&path, &org.token).await.expect(200);
        assert_eq!(read["currency"], currency);
    }
}

#[tokio::test]
async fn null_clears_a_nullable_field_and_absent_fields_are_kept() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    let update = full_update(&org.slug);
    let full = app.put(&path, &org.token, update).await.expect(200);

    for field in NULLABLE {
        let cleared = app
            .put(&path, &org.token, json!({ field: null }))
            .await
            .expect(200);
        assert_eq!(cleared[field], Value::Null, "{field}: {cleared}");
    }
    let read = app.get(&path, &org.token).await.expect(200);
    for field in NULLABLE {
        assert_eq!(read[field], Value::Null, "{field}");
    }
    for kept in ["name", "slug", "currency", "overageEnabled"] {
        assert_eq!(read[kept], full[kept], "{kept}");
    }

    let untouched = app.put(&path, &org.token, json!({})).await.expect(200);
    for field in ["name", "slug", "currency", "overageEnabled", "city"] {
        assert_eq!(untouched[field], read[field], "{field}");
    }
}

#[tokio::test]
async fn invalid_updates_are_400_naming_the_field_and_change_nothing() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    let before = app.get(&path, &org.token).await.expect(200);
    let cases = [
        ("currency", json!("XYZ")),
        ("currency", json!("dkk")),
        ("currency", json!("")),
        ("slug", json!("Bad Slug")),
        ("slug", json!("under_score")),
        ("slug", json!("")),
        ("name", json!("")),
        ("billingEmail", json!("not-an-email")),
        ("country", json!("DNK")),
        ("country", json!("dk")),
        ("country", json!("XX")),
        ("country", json!("")),
    ];
    for (field, value) in cases {
        let problem = app
            .put(&path, &org.token, json!({ field: value }))
            .await
            .problem(400, "validation_failed");
        assert_eq!(
            error_fields(&problem),
            [field],
            "{field}={value}: {problem}"
        );
    }
    let after = app.get(&path, &org.token).await.expect(200);
    assert_eq!(after, before);
}

#[tokio::test]
async fn updating_to_a_taken_slug_is_409_and_keeping_ones_own_slug_is_fine() {
    let app = TestApp::spawn().await;
    let (ours, theirs) = (app.create_org(), app.create_org());
    let path = format!("/orgs/{}", ours.id);
    app.put(&path, &ours.token, json!({ "slug": theirs.slug }))
        .await
        .problem(409, "conflict");
    let same = app
        .put(&path, &ours.token, json!({ "slug": ours.slug }))
        .await
        .expect(200);
    assert_eq!(same["slug"], ours.slug.as_str());
}

#[tokio::test]
async fn a_token_with_only_read_orgs_cannot_update_the_org() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let read_only = app.create_token(&org, "read:orgs");
    let path = format!("/orgs/{}", org.id);
    let reply = app.put(&path, &read_only, json!({ "name": "Nope" })).await;
    let challenge = reply.header("www-authenticate");
    reply.problem(403, "insufficient_scope");
    assert!(challenge.starts_with("Bearer"), "{challenge}");
    assert!(
        challenge.contains(r#"error="insufficient_scope""#),
        "{challenge}"
    );
    assert!(challenge.contains("write:orgs"), "{challenge}");
    let read = app.get(&path, &org.token).await.expect(200);
    assert_eq!(read["name"], "Test Org");
}

#[tokio::test]
async fn another_orgs_token_cannot_update_the_org_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let (ours, theirs) = (app.create_org(), app.create_org());
    let path = format!("/orgs/{}", ours.id);
    let before = app.get(&path, &ours.token).await.expect(200);
    app.put(&path, &theirs.token, full_update("stolen-slug"))
        .await
        .problem(404, "not_found");
    let after = app.get(&path, &ours.token).await.expect(200);
    assert_eq!(after, before);
}
