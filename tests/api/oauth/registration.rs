//! What anyone may do without a credential is bounded (DESIGN §12, §19): registrations are
//! capped in size, counted per client address, and only so many unused ones are kept; client
//! metadata documents are fetched only for a signed-in user, kept for their cache lifetime, and
//! their host is shown on the consent page.

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    browser::{Browser, REDIRECT_URI, Request},
    helpers::{Reply, TestApp},
};

async fn register(app: &TestApp, body: Value) -> Reply {
    app.call(Method::POST, "/oauth/register", None, Some(body))
        .await
}

fn client(name: &str) -> Value {
    json!({"client_name": name, "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"})
}

#[tokio::test]
async fn oversized_client_metadata_is_invalid_client_metadata() {
    let app = TestApp::spawn().await;
    let long = "x".repeat(2001);
    let many: Vec<String> = (0..11)
        .map(|n| format!("http://127.0.0.1:{}/cb", 40000 + n))
        .collect();
    for body in [
        json!({"client_name": long, "redirect_uris": [REDIRECT_URI]}),
        json!({"client_uri": format!("https://app.example/{long}"), "redirect_uris": [REDIRECT_URI]}),
        json!({"redirect_uris": [format!("https://app.example/{long}")]}),
        json!({"redirect_uris": many}),
    ] {
        let reply = register(&app, body.clone()).await;
        assert_eq!(reply.status.as_u16(), 400, "{body}");
        assert_eq!(
            reply.body["error"], "invalid_client_metadata",
            "{}",
            reply.text
        );
    }
    let just_fits = json!({"client_name": "y".repeat(2000), "redirect_uris": [REDIRECT_URI]});
    assert_eq!(register(&app, just_fits).await.status.as_u16(), 201);
}

#[tokio::test]
async fn registrations_are_counted_per_client_address() {
    let app = TestApp::spawn_with(
        "[oauth]\nregister_per_minute = 3\n[server]\ntrusted_proxies = [\"127.0.0.1\"]",
    )
    .await;
    let from = |address: &str| {
        app.client
            .post(app.url("/oauth/register"))
            .header("x-forwarded-for", address)
            .json(&client("Flood"))
    };
    for _ in 0..3 {
        let reply = from("198.51.100.9").send().await.unwrap();
        assert_eq!(reply.status(), 201);
    }
    let refused = from("198.51.100.9").send().await.unwrap();
    assert_eq!(refused.status(), 429);
    let wait: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "rate_limited");
    // Another address is not held back.
    assert_eq!(from("203.0.113.1").send().await.unwrap().status(), 201);
}

#[tokio::test]
async fn only_the_newest_unused_registrations_are_kept() {
    let app = TestApp::spawn_with("[oauth]\nmax_unused_clients = 3").await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::signed_in(&app, &org.email, &password).await;
    // One client completes a sign-in: it is kept whatever comes after.
    let used = crate::browser::register(&app, "Used").await;
    let request = Request::new(&used, Some("read:shipments"));
    let code =
        crate::browser::authorize(&mut browser, &request, &org.id, &["read:shipments"]).await;
    crate::browser::exchange(&app, &request, &code).await;
    let mut unused = Vec::new();
    for n in 0..5 {
        unused.push(crate::browser::register(&app, &format!("Unused {n}")).await);
    }
    let known = |id: &str| {
        app.db_text("SELECT id FROM oauth_clients WHERE id = ?1", &[id])
            .is_some()
    };
    assert!(known(&used));
    assert_eq!(
        unused.iter().map(|id| known(id)).collect::<Vec<_>>(),
        [false, false, true, true, true]
    );
    let page = browser.get(&Request::new(&unused[0], None).path()).await;
    assert_eq!(page.status, 400);
    assert!(page.text().contains("not registered"), "{}", page.text());
}

/// Serves one metadata document, counting the requests for it; `cache_control` is sent with it.
async fn document_server(cache_control: &'static str) -> (String, Arc<AtomicUsize>) {
    use poem::{EndpointExt, Response, Route, Server, endpoint::make_sync, listener::TcpAcceptor};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let document = json!({"client_id": format!("{base}/agent.json"), "client_name": "Counted Agent", "redirect_uris": [REDIRECT_URI]});
    let route = Route::new().at(
        "/agent.json",
        make_sync(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
            Response::builder()
                .content_type("application/json")
                .header("cache-control", cache_control)
                .body(document.to_string())
        })
        .map_to_response(),
    );
    let acceptor = TcpAcceptor::from_tokio(listener).unwrap();
    tokio::spawn(async move {
        let _ = Server::new_with_acceptor(acceptor).run(route).await;
    });
    (base, hits)
}

#[tokio::test]
async fn a_metadata_document_is_fetched_only_for_a_signed_in_user_and_kept_for_its_lifetime() {
    let app = TestApp::spawn_with("[webhooks]\nallow_private_targets = true").await;
    let (base, hits) = document_server("public, max-age=300").await;
    let client_id = format!("{base}/agent.json");
    let request = Request::new(&client_id, Some("read:shipments"));

    // Signed out: off to sign in, and nothing is fetched.
    let mut anonymous = Browser::new(&app);
    for _ in 0..3 {
        let page = anonymous.get(&request.path()).await;
        assert_eq!(page.status, 303);
        assert!(
            page.location().starts_with("/login?next="),
            "{}",
            page.location()
        );
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "fetched for nobody");

    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::signed_in(&app, &org.email, &password).await;
    for _ in 0..3 {
        let page = browser.get(&request.path()).await;
        assert_eq!(page.status, 200, "{}", page.text());
        assert!(page.text().contains("Counted Agent"));
        assert!(
            page.text().contains("describes itself from 127.0.0.1"),
            "{}",
            page.text()
        );
    }
    assert_eq!(hits.load(Ordering::SeqCst), 1, "kept for its max-age");

    let (base, hits) = document_server("no-store").await;
    let request = Request::new(&format!("{base}/agent.json"), None);
    for _ in 0..2 {
        assert_eq!(browser.get(&request.path()).await.status, 200);
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        2,
        "no-store is fetched each time"
    );
}

#[tokio::test]
async fn metadata_documents_that_never_come_do_not_hold_the_api_up() {
    let app = TestApp::spawn_with("[webhooks]\nallow_private_targets = true").await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let signed_in = Browser::signed_in(&app, &org.email, &password).await;
    // A host that takes connections and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counted = accepted.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            held.push(socket);
        }
    });
    let waiting: Vec<_> = (0..16)
        .map(|n| {
            let mut browser = Browser::new(&app);
            browser.cookies = signed_in.cookies.clone();
            let path = Request::new(&format!("http://{addr}/agent-{n}.json"), None).path();
            tokio::spawn(async move { browser.get(&path).await.status })
        })
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while accepted.load(Ordering::SeqCst) < 16 {
        assert!(
            std::time::Instant::now() < deadline,
            "the fetches did not start"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // Sixteen consent pages wait for their documents; the API answers meanwhile.
    app.get(&format!("/orgs/{}/shipments", org.id), &org.token)
        .await
        .expect(200);
    assert!(
        waiting.iter().all(|w| !w.is_finished()),
        "the documents were given up on before the API answered"
    );
    for w in waiting {
        w.abort();
    }
}
