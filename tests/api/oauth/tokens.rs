//! The token endpoint and access tokens: PKCE, single-use codes that expire, JWTs the JWKS
//! verifies, the granted scopes on the REST API, refresh rotation.

use std::sync::{Arc, Mutex};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use reqwest::Method;
use serde_json::{Value, json};
use shipbase::model::time::Clock;

use crate::{
    browser::{Browser, Request, authorize, connect, exchange, refresh, register, token},
    helpers::TestApp,
};

fn claims(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).expect("payload");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url")).expect("JSON")
}

#[tokio::test]
async fn the_code_flow_issues_a_jwt_limited_to_the_granted_scopes_and_organization() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let stranger = app.create_org();
    let (address, _carrier) = app.create_address_and_carrier(&org).await;
    let connected = connect(&app, &org, &["read:shipments", "read:sender_addresses"]).await;
    let tokens = &connected.tokens;
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 3600);
    assert_eq!(tokens["scope"], "read:shipments read:sender_addresses");
    assert_eq!(connected.refresh().len(), 43);

    let access = connected.access();
    let header: Value = serde_json::from_slice(
        &URL_SAFE_NO_PAD
            .decode(access.split('.').next().unwrap_or_default())
            .expect("b64"),
    )
    .expect("JSON");
    assert_eq!(header["alg"], "EdDSA");
    let jwks = app
        .call(Method::GET, "/oauth/jwks", None, None)
        .await
        .expect(200);
    assert_eq!(header["kid"], jwks["keys"][0]["kid"]);
    let key =
        jsonwebtoken::DecodingKey::from_ed_components(jwks["keys"][0]["x"].as_str().expect("x"))
            .expect("key");
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::EdDSA);
    validation.set_audience(&[app.base_url.as_str()]);
    validation.set_issuer(&[app.base_url.as_str()]);
    let verified = jsonwebtoken::decode::<Value>(access, &key, &validation)
        .expect("the JWKS verifies the token");
    let c = verified.claims;
    assert_eq!(
        (c["sub"].as_str(), c["org"].as_str()),
        (Some(org.user_id.as_str()), Some(org.id.as_str()))
    );
    assert_eq!(
        c["exp"].as_i64().unwrap_or_default() - c["iat"].as_i64().unwrap_or_default(),
        3600
    );
    assert_eq!(c["client_id"], connected.client_id);

    app.get(&format!("/orgs/{}/shipments", org.id), access)
        .await
        .expect(200);
    app.get(
        &format!(
            "/orgs/{}/sender-addresses/{}",
            org.id,
            address["id"].as_str().unwrap_or_default()
        ),
        access,
    )
    .await
    .expect(200);
    app.get(&format!("/orgs/{}/carriers", org.id), access)
        .await
        .problem(403, "insufficient_scope");
    app.post(&format!("/orgs/{}/shipments", org.id), access, json!({}))
        .await
        .problem(403, "insufficient_scope");
    app.get(&format!("/orgs/{}/shipments", stranger.id), access)
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn the_resource_becomes_the_audience() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::signed_in(&app, &org.email, &password).await;
    let client_id = register(&app, "Agent").await;
    let mcp = format!("{}/mcp", app.base_url);
    let request = Request::new(&client_id, Some("read:shipments")).set("resource", Some(&mcp));
    let code = authorize(&mut browser, &request, &org.id, &["read:shipments"]).await;
    let reply = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", &request.redirect_uri),
            ("client_id", &client_id),
            ("code_verifier", &request.verifier),
            ("resource", &app.base_url),
        ],
    )
    .await;
    assert_eq!(
        (reply.status.as_u16(), reply.body["error"].as_str()),
        (400, Some("invalid_target"))
    );
    let code = authorize(&mut browser, &request, &org.id, &["read:shipments"]).await;
    let tokens = exchange(&app, &request, &code).await;
    let access = tokens["access_token"].as_str().expect("token");
    assert_eq!(claims(access)["aud"], mcp);
    app.get(&format!("/orgs/{}/shipments", org.id), access)
        .await
        .expect(200);
}

#[tokio::test]
async fn a_code_needs_its_verifier_client_and_redirect_uri_and_is_used_once() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::signed_in(&app, &org.email, &password).await;
    let client_id = register(&app, "Agent").await;
    let other_client = register(&app, "Other").await;
    let request = Request::new(&client_id, Some("read:shipments"));
    let code = authorize(&mut browser, &request, &org.id, &["read:shipments"]).await;
    let wrong_verifier = "A".repeat(43);
    for (name, value, error) in [
        ("code_verifier", wrong_verifier.as_str(), "invalid_grant"),
        ("code_verifier", "short", "invalid_request"),
        ("client_id", other_client.as_str(), "invalid_grant"),
        (
            "redirect_uri",
            "http://127.0.0.1:43110/other",
            "invalid_grant",
        ),
    ] {
        let mut fields = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", request.redirect_uri.as_str()),
            ("client_id", client_id.as_str()),
            ("code_verifier", request.verifier.as_str()),
        ];
        fields.retain(|(k, _)| *k != name);
        fields.push((name, value));
        let reply = token(&app, &fields).await;
        assert_eq!(
            (reply.status.as_u16(), reply.body["error"].as_str()),
            (400, Some(error)),
            "{name}: {}",
            reply.text
        );
    }
    let first = exchange(&app, &request, &code).await;
    let access = first["access_token"].as_str().expect("token");
    app.get(&format!("/orgs/{}/shipments", org.id), access)
        .await
        .expect(200);
    // Used again: refused, and what the first use gave is revoked.
    let again = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", &request.redirect_uri),
            ("client_id", &client_id),
            ("code_verifier", &request.verifier),
        ],
    )
    .await;
    assert_eq!(
        (again.status.as_u16(), again.body["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    assert_eq!(again.header("cache-control"), "no-store");
    app.get(&format!("/orgs/{}/shipments", org.id), access)
        .await
        .problem(401, "unauthenticated");
}

#[tokio::test]
async fn codes_last_sixty_seconds_and_access_tokens_their_lifetime() {
    let now = shipbase::model::time::parse("2026-11-23T10:00:00.000Z").expect("time");
    let clock = Arc::new(Mutex::new(now));
    let app = TestApp::spawn_with_clock("", Clock::Set(clock.clone())).await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::signed_in(&app, &org.email, &password).await;
    let client_id = register(&app, "Agent").await;
    let request = Request::new(&client_id, Some("read:shipments"));
    let code = authorize(&mut browser, &request, &org.id, &["read:shipments"]).await;
    *clock.lock().expect("clock") = now + time::Duration::seconds(61);
    let late = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", &request.redirect_uri),
            ("client_id", &client_id),
            ("code_verifier", &request.verifier),
        ],
    )
    .await;
    assert_eq!(
        (late.status.as_u16(), late.body["error"].as_str()),
        (400, Some("invalid_grant"))
    );

    let code = authorize(&mut browser, &request, &org.id, &["read:shipments"]).await;
    let tokens = exchange(&app, &request, &code).await;
    let access = tokens["access_token"].as_str().expect("token");
    let shipments = format!("/orgs/{}/shipments", org.id);
    *clock.lock().expect("clock") = now + time::Duration::seconds(61 + 3590);
    app.get(&shipments, access).await.expect(200);
    *clock.lock().expect("clock") = now + time::Duration::seconds(61 + 3610);
    app.get(&shipments, access)
        .await
        .problem(401, "unauthenticated");
    // The refresh token still works and gives a fresh access token.
    let fresh = refresh(
        &app,
        &client_id,
        tokens["refresh_token"].as_str().expect("refresh"),
    )
    .await
    .expect(200);
    app.get(&shipments, fresh["access_token"].as_str().expect("token"))
        .await
        .expect(200);
}

#[tokio::test]
async fn refreshing_rotates_the_refresh_token_and_may_narrow_but_not_widen() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let connected = connect(&app, &org, &["read:shipments", "read:orders"]).await;
    let reply = refresh(&app, &connected.client_id, connected.refresh()).await;
    assert_eq!(reply.header("cache-control"), "no-store");
    let fresh = reply.expect(200);
    assert_ne!(fresh["refresh_token"], connected.tokens["refresh_token"]);
    assert_eq!(fresh["expires_in"], 3600);
    assert_eq!(fresh["scope"], "read:shipments read:orders");

    let narrowed = token(
        &app,
        &[
            ("grant_type", "refresh_token"),
            (
                "refresh_token",
                fresh["refresh_token"].as_str().unwrap_or_default(),
            ),
            ("client_id", &connected.client_id),
            ("scope", "read:orders"),
        ],
    )
    .await
    .expect(200);
    assert_eq!(narrowed["scope"], "read:orders");
    let access = narrowed["access_token"].as_str().expect("token");
    app.get(&format!("/orgs/{}/orders", org.id), access)
        .await
        .expect(200);
    app.get(&format!("/orgs/{}/shipments", org.id), access)
        .await
        .problem(403, "insufficient_scope");

    let wider = token(
        &app,
        &[
            ("grant_type", "refresh_token"),
            (
                "refresh_token",
                narrowed["refresh_token"].as_str().unwrap_or_default(),
            ),
            ("client_id", &connected.client_id),
            ("scope", "read:orders write:orders"),
        ],
    )
    .await;
    assert_eq!(
        (wider.status.as_u16(), wider.body["error"].as_str()),
        (400, Some("invalid_scope"))
    );
}

#[tokio::test]
async fn the_token_endpoint_answers_errors_in_rfc_6749_form() {
    let app = TestApp::spawn().await;
    let json_body = app
        .call(
            Method::POST,
            "/oauth/token",
            None,
            Some(json!({"grant_type": "refresh_token"})),
        )
        .await;
    assert_eq!(
        (json_body.status.as_u16(), json_body.body["error"].as_str()),
        (400, Some("invalid_request"))
    );
    for (fields, error) in [
        (
            vec![("grant_type", "client_credentials")],
            "unsupported_grant_type",
        ),
        (vec![("grant_type", "refresh_token")], "invalid_request"),
        (
            vec![("grant_type", "refresh_token"), ("refresh_token", "nope")],
            "invalid_grant",
        ),
        (
            vec![
                ("grant_type", "authorization_code"),
                ("grant_type", "authorization_code"),
            ],
            "invalid_request",
        ),
        (vec![("code", "x")], "invalid_request"),
    ] {
        let reply = token(&app, &fields).await;
        assert_eq!(reply.status, 400, "{fields:?}");
        assert_eq!(reply.body["error"], error, "{fields:?}: {}", reply.text);
        assert!(reply.header("content-type").starts_with("application/json"));
        assert_eq!(reply.header("cache-control"), "no-store");
    }
}

#[tokio::test]
async fn agents_never_act_with_staff_rights_and_keep_their_own_idempotency_keys() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let out = app.cli(&["staff", "grant", "--email", &org.email]);
    assert!(out.status.success());
    let connected = connect(&app, &org, &["write:orgs"]).await;
    app.post("/orgs", connected.access(), crate::helpers::signup_body())
        .await
        .problem(403, "insufficient_scope");

    let quote = format!("/orgs/{}/shipping-quote", org.id);
    let agent = connect(&app, &org, &["read:shipping_rules"]).await;
    let body = json!({"destination": {"country": "DK"}, "items": [{"quantity": 1, "grams": 100, "price": 1000}]});
    let send = |token: String| {
        let request = app
            .client
            .post(app.url(&quote))
            .bearer_auth(token)
            .header("Idempotency-Key", "q1")
            .json(&body);
        async move { crate::helpers::Reply::read(request.send().await.expect("request")).await }
    };
    let first = send(agent.access().to_string()).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let again = send(agent.access().to_string()).await;
    assert_eq!(again.header("idempotent-replayed"), "true");
}
