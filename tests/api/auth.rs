//! Bearer authentication (DESIGN §4, §5) and per-credential rate limits (DESIGN §13).

use reqwest::Method;

use crate::helpers::{Reply, TestApp, signup_body};

/// Sends GET `path` with the given raw `Authorization` header (none when `None`).
async fn get_with_authorization(app: &TestApp, path: &str, authorization: Option<&str>) -> Reply {
    let mut req = app.client.get(app.url(path));
    if let Some(value) = authorization {
        req = req.header(reqwest::header::AUTHORIZATION, value);
    }
    Reply::read(req.send().await.expect("request")).await
}

/// `token` with one character of its random part changed.
fn tampered(token: &str) -> String {
    let mut chars: Vec<char> = token.chars().collect();
    let i = chars.len() / 2;
    chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

#[tokio::test]
async fn requests_without_a_valid_credential_are_401_with_a_bearer_challenge() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    let unknown = format!("Bearer shb_{}", "A".repeat(43));
    let tampered = format!("Bearer {}", tampered(&org.token));
    let jwt = "Bearer eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl";
    let cases: [Option<&str>; 10] = [
        None,
        Some(""),
        Some("Basic dXNlcjpwYXNzd29yZA=="),
        Some("Bearer"),
        Some("Bearer "),
        Some("Bearer garbage"),
        Some(&unknown),
        Some(&tampered),
        Some(jwt),
        Some(&org.token),
    ];
    for authorization in cases {
        let reply = get_with_authorization(&app, &path, authorization).await;
        let challenge = reply.header("www-authenticate");
        reply.problem(401, "unauthenticated");
        assert!(
            challenge.starts_with("Bearer"),
            "{authorization:?}: {challenge:?}"
        );
    }
    let fine = format!("Bearer {}", org.token);
    get_with_authorization(&app, &path, Some(&fine))
        .await
        .expect(200);
}

#[tokio::test]
async fn a_bad_credential_on_post_orgs_is_401_even_while_signup_is_open() {
    let app = TestApp::spawn_with("[signup]\nopen = true\n").await;
    for token in ["garbage", &format!("shb_{}", "A".repeat(43))] {
        let reply = app
            .call(Method::POST, "/orgs", Some(token), Some(signup_body()))
            .await;
        let challenge = reply.header("www-authenticate");
        reply.problem(401, "unauthenticated");
        assert!(challenge.starts_with("Bearer"), "{challenge:?}");
    }
}

#[tokio::test]
async fn the_fourth_quick_request_of_one_token_is_429_and_other_tokens_are_unaffected() {
    let app = TestApp::spawn_with("[limits]\nrate_per_second = 1\nburst = 2\n").await;
    let org = app.create_org();
    let other = app.create_token(&org, "read:orgs");
    let path = format!("/orgs/{}", org.id);
    for _ in 0..3 {
        app.get(&path, &org.token).await.expect(200);
    }
    let reply = app.get(&path, &org.token).await;
    let retry_after = reply.header("retry-after");
    reply.problem(429, "rate_limited");
    let seconds: u64 = retry_after.parse().unwrap_or(0);
    assert!(seconds >= 1, "Retry-After: {retry_after:?}");

    app.get(&path, &other).await.expect(200);
}
