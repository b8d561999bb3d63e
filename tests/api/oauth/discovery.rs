//! Discovery documents, the JWKS and RFC 7591 registration.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, is_id};

#[tokio::test]
async fn metadata_names_the_issuer_byte_for_byte() {
    let app = TestApp::spawn().await;
    let base = app.base_url.clone();
    let meta = app
        .call(
            Method::GET,
            "/.well-known/oauth-authorization-server",
            None,
            None,
        )
        .await
        .expect(200);
    assert_eq!(meta["issuer"], base);
    for (key, path) in [
        ("authorization_endpoint", "/oauth/authorize"),
        ("token_endpoint", "/oauth/token"),
        ("registration_endpoint", "/oauth/register"),
        ("revocation_endpoint", "/oauth/revoke"),
        ("jwks_uri", "/oauth/jwks"),
    ] {
        assert_eq!(meta[key], format!("{base}{path}"), "{key}");
    }
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(meta["response_types_supported"], json!(["code"]));
    assert_eq!(
        meta["grant_types_supported"],
        json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(
        meta["token_endpoint_auth_methods_supported"],
        json!(["none"])
    );
    assert_eq!(meta["authorization_response_iss_parameter_supported"], true);
    assert_eq!(meta["client_id_metadata_document_supported"], true);
    let scopes: Vec<&str> = meta["scopes_supported"]
        .as_array()
        .expect("scopes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(scopes.len(), 24);
    assert!(scopes.contains(&"write:printers") && scopes.contains(&"read:all"));
    assert!(!scopes.contains(&"offline_access"));

    for (path, resource) in [
        ("/.well-known/oauth-protected-resource", base.clone()),
        (
            "/.well-known/oauth-protected-resource/mcp",
            format!("{base}/mcp"),
        ),
    ] {
        let doc = app.call(Method::GET, path, None, None).await.expect(200);
        assert_eq!(doc["resource"], resource);
        assert_eq!(doc["authorization_servers"], json!([base]));
        assert_eq!(doc["scopes_supported"], meta["scopes_supported"]);
    }
}

#[tokio::test]
async fn the_jwks_publishes_the_ed25519_key_only() {
    let app = TestApp::spawn().await;
    let jwks = app
        .call(Method::GET, "/oauth/jwks", None, None)
        .await
        .expect(200);
    let keys = jwks["keys"].as_array().expect("keys");
    assert_eq!(keys.len(), 1);
    assert_eq!(
        (
            keys[0]["kty"].as_str(),
            keys[0]["crv"].as_str(),
            keys[0]["alg"].as_str()
        ),
        (Some("OKP"), Some("Ed25519"), Some("EdDSA"))
    );
    assert_eq!(keys[0]["x"].as_str().map(str::len), Some(43));
    assert!(keys[0].get("d").is_none());
    // The same key after a restart: it lives in the database.
    let app = app.restart_with("").await;
    let again = app
        .call(Method::GET, "/oauth/jwks", None, None)
        .await
        .expect(200);
    assert_eq!(again, jwks);
}

#[tokio::test]
async fn public_clients_register_and_get_a_client_id() {
    let app = TestApp::spawn().await;
    let reply = app
        .call(
            Method::POST,
            "/oauth/register",
            None,
            Some(json!({"client_name": "Claude", "redirect_uris": ["http://127.0.0.1:33418/cb", "https://claude.ai/api/mcp/auth_callback"],
                        "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
                        "response_types": ["code"], "logo_uri": "https://claude.ai/logo.png"})),
        )
        .await;
    assert_eq!(reply.header("cache-control"), "no-store");
    let client = reply.expect(201);
    assert!(
        is_id("cli", client["client_id"].as_str().unwrap_or_default()),
        "{client}"
    );
    assert_eq!(client["client_name"], "Claude");
    assert_eq!(client["token_endpoint_auth_method"], "none");
    assert_eq!(
        client["redirect_uris"][1],
        "https://claude.ai/api/mcp/auth_callback"
    );
    assert!(client.get("client_secret").is_none());
}

#[tokio::test]
async fn bad_client_metadata_is_refused_in_rfc_7591_form() {
    let app = TestApp::spawn().await;
    for (body, error) in [
        (json!({"client_name": "x"}), "invalid_redirect_uri"),
        (json!({"redirect_uris": []}), "invalid_redirect_uri"),
        (
            json!({"redirect_uris": ["http://app.example/cb"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["https://app.example/cb#x"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["javascript:alert(1)"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["https://app.example/cb"], "token_endpoint_auth_method": "client_secret_basic"}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": ["https://app.example/cb"], "grant_types": ["client_credentials"]}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": ["https://app.example/cb"], "client_name": 7}),
            "invalid_client_metadata",
        ),
    ] {
        let reply = app
            .call(Method::POST, "/oauth/register", None, Some(body.clone()))
            .await;
        assert_eq!(reply.status, 400, "{body}");
        assert_eq!(reply.body["error"], error, "{body}: {}", reply.text);
        assert!(
            reply.body["error_description"]
                .as_str()
                .is_some_and(|d| !d.is_empty())
        );
    }
    let reply = app
        .send_raw(
            Method::POST,
            "/oauth/register",
            None,
            Some("application/json"),
            "{not json",
        )
        .await;
    assert_eq!(
        (reply.status.as_u16(), reply.body["error"].as_str()),
        (400, Some("invalid_client_metadata"))
    );
}

#[tokio::test]
async fn browser_clients_may_call_the_oauth_endpoints_from_any_origin() {
    let app = TestApp::spawn().await;
    let resp = app
        .client
        .request(Method::OPTIONS, app.url("/oauth/register"))
        .header("origin", "https://inspector.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .expect("preflight");
    assert!(resp.status().is_success(), "{}", resp.status());
    assert!(resp.headers().contains_key("access-control-allow-origin"));
}
