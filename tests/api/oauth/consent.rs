//! `/oauth/authorize`: which requests reach the consent page, what it offers, and what Allow
//! and Deny send back (narrow never widen, at least one permission, brand-limited members
//! refused, `iss` on every answer).

use crate::{
    browser::{Browser, REDIRECT_URI, Request, consent, query, register},
    helpers::TestApp,
};

async fn owner_browser(app: &TestApp) -> (crate::helpers::TestOrg, Browser) {
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let browser = Browser::signed_in(app, &org.email, &password).await;
    (org, browser)
}

#[tokio::test]
async fn without_a_session_the_request_goes_to_sign_in_and_comes_back() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let client_id = register(&app, "Agent").await;
    let request = Request::new(&client_id, Some("read:shipments"));
    let mut browser = Browser::new(&app);
    let first = browser.get(&request.path()).await;
    assert_eq!(first.status, 303);
    assert_eq!(
        first.location(),
        format!("/login?{}", query(&[("next", &request.path())]))
    );
    let signed_in = browser
        .sign_in(&org.email, &password, Some(&request.path()))
        .await;
    assert_eq!(signed_in.location(), request.path());
    let page = browser.get(&signed_in.location()).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.options("org_id"), [org.id]);
}

#[tokio::test]
async fn the_consent_page_shows_the_client_the_organizations_and_the_permissions() {
    let app = TestApp::spawn().await;
    let (org, mut browser) = owner_browser(&app).await;
    let client_id = register(&app, "Claude <Desktop>").await;
    let page = browser
        .get(&Request::new(&client_id, Some("read:shipments write:shipments read:all")).path())
        .await;
    assert_eq!(page.status, 200);
    let text = page.text();
    for words in [
        "Authorize access",
        "Claude <Desktop>",
        "Organization",
        "Permissions",
        "127.0.0.1",
        "Shipments and labels",
    ] {
        assert!(text.contains(words), "{words} in {text}");
    }
    assert!(
        page.html.contains("Claude &lt;Desktop&gt;"),
        "names are escaped"
    );
    assert_eq!(page.options("org_id"), std::slice::from_ref(&org.id));
    let offered = page.inputs("scope");
    assert_eq!(
        offered.len(),
        12,
        "read:all spelled out per resource, plus write:shipments"
    );
    assert!(offered.iter().all(|(_, checked)| *checked));
    assert!(offered.iter().any(|(s, _)| s == "write:shipments"));
    assert!(
        !offered
            .iter()
            .any(|(s, _)| s == "write:orders" || s.ends_with(":all"))
    );
    assert!(
        page.html.contains("name=\"decision\" value=\"allow\"")
            && page.html.contains("name=\"decision\" value=\"deny\"")
    );
    assert!(
        page.header("content-security-policy")
            .contains("frame-ancestors 'none'")
    );
    assert_eq!(page.header("x-frame-options"), "DENY");

    let everything = browser.get(&Request::new(&client_id, None).path()).await;
    assert_eq!(
        everything.inputs("scope").len(),
        22,
        "read and write on every resource"
    );
}

#[tokio::test]
async fn an_unknown_client_or_redirect_uri_gets_an_error_page_not_a_redirect() {
    let app = TestApp::spawn().await;
    let (_org, mut browser) = owner_browser(&app).await;
    let client_id = register(&app, "Agent").await;
    for request in [
        Request::new("cli_01ARZ3NDEKTSV4RRFFQ69G5FAV", None),
        Request::new("not-a-client", None),
        Request::new(&client_id, None)
            .set("redirect_uri", Some("http://127.0.0.1:43110/elsewhere")),
        Request::new(&client_id, None).set("redirect_uri", Some("https://evil.example/callback")),
        Request::new(&client_id, None).set("client_id", None),
    ] {
        let page = browser.get(&request.path()).await;
        assert_eq!(page.status, 400, "{}", request.path());
        assert!(page.location().is_empty());
        assert!(page.header("content-type").starts_with("text/html"));
    }
}

#[tokio::test]
async fn other_bad_requests_go_back_to_the_client_with_error_state_and_iss() {
    let app = TestApp::spawn().await;
    let (_org, mut browser) = owner_browser(&app).await;
    let client_id = register(&app, "Agent").await;
    for (request, error) in [
        (
            Request::new(&client_id, None).set("code_challenge_method", Some("plain")),
            "invalid_request",
        ),
        (
            Request::new(&client_id, None).set("code_challenge_method", None),
            "invalid_request",
        ),
        (
            Request::new(&client_id, None).set("code_challenge", None),
            "invalid_request",
        ),
        (
            Request::new(&client_id, None).set("response_type", Some("token")),
            "unsupported_response_type",
        ),
        (
            Request::new(&client_id, Some("read:shipments fly:away")),
            "invalid_scope",
        ),
        (
            Request::new(&client_id, None).set("resource", Some("https://elsewhere.example")),
            "invalid_target",
        ),
    ] {
        let page = browser.get(&request.path()).await;
        assert_eq!(page.status, 303, "{}", request.path());
        assert!(
            page.location().starts_with(REDIRECT_URI),
            "{}",
            page.location()
        );
        let params = page.redirect_params();
        assert_eq!(
            params.get("error").map(String::as_str),
            Some(error),
            "{params:?}"
        );
        assert_eq!(params.get("state").map(String::as_str), Some("st-123"));
        assert_eq!(params.get("iss"), Some(&app.base_url));
        assert!(!params.contains_key("code"));
    }
    // A loopback redirect URI may use another port.
    let other_port =
        Request::new(&client_id, None).set("redirect_uri", Some("http://127.0.0.1:50123/callback"));
    assert_eq!(browser.get(&other_port.path()).await.status, 200);
}

#[tokio::test]
async fn deny_sends_access_denied_and_allow_a_code_both_with_iss() {
    let app = TestApp::spawn().await;
    let (org, mut browser) = owner_browser(&app).await;
    let client_id = register(&app, "Agent").await;
    let request = Request::new(&client_id, Some("read:shipments"));
    let page = browser.get(&request.path()).await;
    let denied = consent(&mut browser, &page, "deny", &org.id, &[]).await;
    assert_eq!(denied.status, 303);
    let params = denied.redirect_params();
    assert_eq!(params["error"], "access_denied");
    assert_eq!(
        (params["state"].as_str(), &params["iss"]),
        ("st-123", &app.base_url)
    );

    let page = browser.get(&request.path()).await;
    let allowed = consent(&mut browser, &page, "allow", &org.id, &["read:shipments"]).await;
    assert_eq!(allowed.status, 303);
    assert!(
        allowed
            .location()
            .starts_with(&format!("{REDIRECT_URI}?code=")),
        "{}",
        allowed.location()
    );
    let params = allowed.redirect_params();
    assert_eq!(
        (params["state"].as_str(), &params["iss"]),
        ("st-123", &app.base_url)
    );
    assert_eq!(params["code"].len(), 43);
}

#[tokio::test]
async fn permissions_may_be_narrowed_never_widened_and_one_must_stay() {
    let app = TestApp::spawn().await;
    let (org, mut browser) = owner_browser(&app).await;
    let client_id = register(&app, "Agent").await;
    let request = Request::new(&client_id, Some("read:shipments read:orders"));
    let page = browser.get(&request.path()).await;

    let none = consent(&mut browser, &page, "allow", &org.id, &[]).await;
    assert_eq!(none.status, 400);
    assert!(none.text().contains("Tick at least one permission"));
    assert!(
        none.inputs("scope").iter().all(|(_, checked)| !checked),
        "the page shows what was sent"
    );

    let wider = consent(
        &mut browser,
        &page,
        "allow",
        &org.id,
        &["read:shipments", "write:shipments"],
    )
    .await;
    assert_eq!(wider.status, 400);
    assert!(
        wider
            .text()
            .contains("did not ask for the permission write:shipments")
    );
    assert!(wider.location().is_empty());

    let narrower = consent(&mut browser, &page, "allow", &org.id, &["read:orders"]).await;
    assert_eq!(narrower.status, 303);
}

#[tokio::test]
async fn only_the_users_own_organizations_can_be_chosen() {
    let app = TestApp::spawn().await;
    let (_org, mut browser) = owner_browser(&app).await;
    let stranger = app.create_org();
    let client_id = register(&app, "Agent").await;
    let page = browser.get(&Request::new(&client_id, None).path()).await;
    let answer = consent(
        &mut browser,
        &page,
        "allow",
        &stranger.id,
        &["read:shipments"],
    )
    .await;
    assert_eq!(answer.status, 400);
    assert!(answer.text().contains("Choose one of your organizations"));
}

#[tokio::test]
async fn the_consent_form_needs_its_csrf_token_its_session_and_a_fresh_request() {
    let app = TestApp::spawn().await;
    let (org, mut browser) = owner_browser(&app).await;
    let client_id = register(&app, "Agent").await;
    let page = browser.get(&Request::new(&client_id, None).path()).await;
    let request_id = page.hidden("request_id").expect("request_id");
    let forged = browser
        .post(
            "/oauth/authorize",
            &[
                ("csrf_token", "x"),
                ("request_id", &request_id),
                ("org_id", &org.id),
                ("scope", "read:shipments"),
                ("decision", "allow"),
            ],
        )
        .await;
    assert_eq!(forged.status, 403);

    // A request sealed for one user is no good to another.
    let other = app.create_org();
    let password = app.set_password(&other.email);
    let mut theirs = Browser::signed_in(&app, &other.email, &password).await;
    let csrf = theirs
        .get("/settings/apps")
        .await
        .hidden("csrf_token")
        .expect("csrf");
    let stolen = theirs
        .post(
            "/oauth/authorize",
            &[
                ("csrf_token", &csrf),
                ("request_id", &request_id),
                ("org_id", &other.id),
                ("scope", "read:shipments"),
                ("decision", "allow"),
            ],
        )
        .await;
    assert_eq!(stolen.status, 400);
    assert!(stolen.location().is_empty());
}

#[tokio::test]
async fn brand_limited_members_cannot_connect_agents() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let email = format!(
        "brand-{}@example.com",
        ulid::Ulid::new().to_string().to_lowercase()
    );
    let out = app.cli(&[
        "user", "add", "--org", &org.id, "--email", &email, "--name", "Brand", "--role", "member",
        "--brand", "Nordic",
    ]);
    assert!(out.status.success());
    let password = app.set_password(&email);
    let mut member = Browser::signed_in(&app, &email, &password).await;
    let client_id = register(&app, "Agent").await;
    let page = member.get(&Request::new(&client_id, None).path()).await;
    assert_eq!(page.status, 403);
    assert!(
        page.text().contains("limited to the brand Nordic"),
        "{}",
        page.text()
    );
    assert!(page.hidden("request_id").is_none());

    // Full membership of another organization: only that one is offered.
    let second = app.create_org();
    let out = app.cli(&[
        "user", "add", "--org", &second.id, "--email", &email, "--name", "Brand", "--role", "admin",
    ]);
    assert!(out.status.success());
    let page = member.get(&Request::new(&client_id, None).path()).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.options("org_id"), std::slice::from_ref(&second.id));
    let refused = consent(&mut member, &page, "allow", &org.id, &["read:shipments"]).await;
    assert_eq!(refused.status, 400);
}

/// Serves `documents` (path → JSON) on a loopback port; answers the base URL.
async fn serve_documents(
    documents: impl Fn(&str) -> Vec<(&'static str, serde_json::Value)>,
) -> String {
    use poem::{Route, Server, endpoint::make_sync, listener::TcpAcceptor, web::Json};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let mut route = Route::new();
    for (path, document) in documents(&base) {
        route = route.at(path, make_sync(move |_| Json(document.clone())));
    }
    let acceptor = TcpAcceptor::from_tokio(listener).expect("acceptor");
    tokio::spawn(async move {
        let _ = Server::new_with_acceptor(acceptor).run(route).await;
    });
    base
}

#[tokio::test]
async fn a_client_id_metadata_document_describes_its_client() {
    let app = TestApp::spawn_with("[webhooks]\nallow_private_targets = true").await;
    let (org, mut browser) = owner_browser(&app).await;
    let base = serve_documents(|base| {
        vec![
            ("/agent.json", serde_json::json!({"client_id": format!("{base}/agent.json"), "client_name": "Document Agent", "redirect_uris": [REDIRECT_URI]})),
            ("/liar.json", serde_json::json!({"client_id": "https://other.example/agent.json", "client_name": "Liar", "redirect_uris": [REDIRECT_URI]})),
        ]
    })
    .await;
    let client_id = format!("{base}/agent.json");
    let request = Request::new(&client_id, Some("read:shipments"));
    let page = browser.get(&request.path()).await;
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(page.text().contains("Document Agent"));
    let code =
        crate::browser::authorize(&mut browser, &request, &org.id, &["read:shipments"]).await;
    let tokens = crate::browser::exchange(&app, &request, &code).await;
    app.get(
        &format!("/orgs/{}/shipments", org.id),
        tokens["access_token"].as_str().expect("token"),
    )
    .await
    .expect(200);

    for wrong in [format!("{base}/liar.json"), format!("{base}/missing.json")] {
        let page = browser.get(&Request::new(&wrong, None).path()).await;
        assert_eq!(page.status, 400, "{wrong}");
        // One sentence whatever went wrong: the page tells nothing of what lies behind it.
        assert!(
            page.text()
                .contains("The app's details could not be read from 127.0.0.1"),
            "{}",
            page.text()
        );
    }
    let unlisted =
        Request::new(&client_id, None).set("redirect_uri", Some("https://evil.example/cb"));
    assert_eq!(browser.get(&unlisted.path()).await.status, 400);
}

#[tokio::test]
async fn metadata_documents_on_private_addresses_are_not_fetched_by_default() {
    let app = TestApp::spawn().await;
    let (_org, mut browser) = owner_browser(&app).await;
    let base = serve_documents(|base| {
        vec![("/agent.json", serde_json::json!({"client_id": format!("{base}/agent.json"), "redirect_uris": [REDIRECT_URI]}))]
    })
    .await;
    for client_id in [
        format!("{base}/agent.json"),
        "https://127.0.0.1:1/agent.json".to_string(),
    ] {
        let page = browser.get(&Request::new(&client_id, None).path()).await;
        assert_eq!(page.status, 400, "{client_id}");
        assert!(page.location().is_empty());
    }
}
