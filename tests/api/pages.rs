//! The pages (DESIGN §14): sign-in with CSRF-protected forms, an HttpOnly SameSite=Lax session
//! that signing out ends on the server, `next` only to local paths, the login throttle, and
//! the security headers.

use std::sync::{Arc, Mutex};

use shipbase::model::time::Clock;

use crate::{
    browser::{Browser, Page},
    helpers::TestApp,
};

fn assert_page_headers(page: &Page) {
    let csp = page.header("content-security-policy");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    // Scripts only from the server's own files, never inline.
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
        "{csp}"
    );
    assert_eq!(page.header("x-frame-options"), "DENY");
    assert_eq!(page.header("x-content-type-options"), "nosniff");
    assert_eq!(page.header("cache-control"), "no-store");
}

#[tokio::test]
async fn signing_in_sets_an_http_only_lax_session_and_goes_to_next() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::new(&app);
    let form = browser.get("/login").await;
    assert_eq!(form.status, 200);
    assert!(form.header("content-type").starts_with("text/html"));
    assert_page_headers(&form);
    assert!(form.hidden("csrf_token").is_some_and(|t| t.len() > 20));

    let signed_in = browser
        .sign_in(&org.email, &password, Some("/settings/apps?x=1"))
        .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.html);
    assert_eq!(signed_in.location(), "/settings/apps?x=1");
    let cookie = signed_in
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("shipbase_session="))
        .expect("a session cookie")
        .to_string();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    assert!(!cookie.contains("Secure"), "plain http: {cookie}");
    let apps = browser.get("/settings/apps").await;
    assert_eq!(apps.status, 200);
    assert!(apps.text().contains("MCP (AI agents)"));
}

#[tokio::test]
async fn behind_https_the_session_cookie_is_secure() {
    let app = TestApp::spawn_with("[server]\nbase_url = \"https://ship.example\"").await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::new(&app);
    let page = browser.sign_in(&org.email, &password, None).await;
    let cookies: Vec<_> = page
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    assert!(
        cookies
            .iter()
            .any(|c| c.starts_with("shipbase_session=") && c.contains("Secure")),
        "{cookies:?}"
    );
}

#[tokio::test]
async fn a_wrong_password_or_unknown_email_signs_nobody_in() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::new(&app);
    for (email, password) in [
        (org.email.as_str(), "wrong-password"),
        ("nobody@example.com", password.as_str()),
    ] {
        let page = browser.sign_in(email, password, None).await;
        assert_eq!(page.status, 400);
        assert!(page.text().contains("The e-mail or the password is wrong."));
        assert!(!browser.cookies.contains_key("shipbase_session"));
    }
    let apps = browser.get("/settings/apps").await;
    assert_eq!(
        (apps.status, apps.location()),
        (303, "/login?next=%2Fsettings%2Fapps".into())
    );
}

#[tokio::test]
async fn a_form_without_its_csrf_token_is_403_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::new(&app);
    let form = browser.get("/login").await;
    let token = form.hidden("csrf_token").expect("csrf_token");
    for csrf in ["", "forged", &format!("{token}x")] {
        let page = browser
            .post(
                "/login",
                &[
                    ("csrf_token", csrf),
                    ("email", &org.email),
                    ("password", &password),
                ],
            )
            .await;
        assert_eq!(page.status, 403, "{csrf}");
        assert!(!browser.cookies.contains_key("shipbase_session"));
    }
    // Another browser's token does not fit this browser's cookie.
    let mut other = Browser::new(&app);
    let theirs = other
        .get("/login")
        .await
        .hidden("csrf_token")
        .expect("csrf_token");
    let page = browser
        .post(
            "/login",
            &[
                ("csrf_token", &theirs),
                ("email", &org.email),
                ("password", &password),
            ],
        )
        .await;
    assert_eq!(page.status, 403);
}

#[tokio::test]
async fn next_is_followed_only_to_local_paths() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    for target in [
        "https://evil.example/x",
        "//evil.example/x",
        "/\\evil.example/x",
        "javascript:alert(1)",
    ] {
        let mut browser = Browser::new(&app);
        let page = browser.sign_in(&org.email, &password, Some(target)).await;
        assert_eq!(
            (page.status, page.location()),
            (303, "/settings/apps".into()),
            "{target}"
        );
    }
}

#[tokio::test]
async fn signing_out_ends_the_session_on_the_server() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::signed_in(&app, &org.email, &password).await;
    let kept = browser.cookies.clone();
    let confirm = browser.get("/logout").await;
    assert_eq!(confirm.status, 200);
    let csrf = confirm.hidden("csrf_token").expect("csrf_token");
    let out = browser.post("/logout", &[("csrf_token", &csrf)]).await;
    assert_eq!((out.status, out.location()), (303, "/login".into()));
    assert!(!browser.cookies.contains_key("shipbase_session"));
    // The old cookie no longer opens anything.
    browser.cookies = kept;
    assert_eq!(browser.get("/settings/apps").await.status, 303);
}

/// Sign-ins from behind a proxy the app trusts, so that each browser can stand for an address.
const BEHIND_A_PROXY: &str = "[server]\ntrusted_proxies = [\"127.0.0.1\"]";

#[tokio::test]
async fn failed_sign_ins_make_the_next_attempts_wait_without_locking_out() {
    let now = shipbase::model::time::parse("2026-11-23T10:00:00.000Z").expect("time");
    let clock = Arc::new(Mutex::new(now));
    let app = TestApp::spawn_with_clock(BEHIND_A_PROXY, Clock::Set(clock.clone())).await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut attacker = Browser::from_address(&app, "198.51.100.66");
    for _ in 0..5 {
        assert_eq!(
            attacker.sign_in(&org.email, "wrong", None).await.status,
            400
        );
    }
    // The account's five slots of this minute are taken: the attacker waits, even with the
    // right password, for at most the rest of the minute.
    let throttled = attacker.sign_in(&org.email, &password, None).await;
    assert_eq!(throttled.status, 429);
    let wait: i64 = throttled
        .header("retry-after")
        .parse()
        .expect("Retry-After");
    assert!((1..=60).contains(&wait), "{wait}");
    assert!(throttled.text().contains("Too many failed attempts"));
    // The owner, from an address that has not failed, is not locked out.
    let mut owner = Browser::from_address(&app, "203.0.113.5");
    let page = owner.sign_in(&org.email, &password, None).await;
    assert_eq!(page.status, 303, "{}", page.html);
    // A minute later the attacker's address may try again.
    *clock.lock().expect("clock") = now + time::Duration::seconds(60);
    let page = attacker.sign_in(&org.email, &password, None).await;
    assert_eq!(page.status, 303, "{}", page.html);
}

#[tokio::test]
async fn concurrent_guesses_cannot_pass_the_limit() {
    let app = TestApp::spawn_with(BEHIND_A_PROXY).await;
    let org = app.create_org();
    app.set_password(&org.email);
    let mut forms = Vec::new();
    for _ in 0..40 {
        let mut browser = Browser::from_address(&app, "198.51.100.77");
        let form = browser.get("/login").await;
        let csrf = form.hidden("csrf_token").expect("csrf_token");
        forms.push((browser, csrf));
    }
    let guesses = forms.into_iter().map(|(mut browser, csrf)| {
        let email = org.email.clone();
        async move {
            browser
                .post(
                    "/login",
                    &[
                        ("csrf_token", &csrf),
                        ("next", ""),
                        ("email", &email),
                        ("password", "wrong guess"),
                    ],
                )
                .await
                .status
        }
    });
    let statuses = futures_util::future::join_all(guesses).await;
    let checked = statuses.iter().filter(|s| **s == 400).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!(
        (checked, refused),
        (5, 35),
        "only the account's five slots reach the password check: {statuses:?}"
    );
}

#[tokio::test]
async fn the_apps_page_and_settings_need_a_session() {
    let app = TestApp::spawn().await;
    let mut browser = Browser::new(&app);
    let settings = browser.get("/settings").await;
    assert_eq!(
        (settings.status, settings.location()),
        (303, "/settings/apps".into())
    );
    let apps = browser.get("/settings/apps").await;
    assert_eq!(apps.status, 303);
    assert_page_headers(&apps);
    let logout = browser.get("/logout").await;
    assert_eq!((logout.status, logout.location()), (303, "/login".into()));
}

#[tokio::test]
async fn an_e_mail_address_stored_with_capitals_signs_in_however_it_is_typed() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let added = app.cli(&[
        "user",
        "add",
        "--org",
        &org.id,
        "--email",
        "Mixed.Case@Example.com",
        "--name",
        "Mixed",
    ]);
    assert!(added.status.success(), "{added:?}");
    let password = app.set_password("mixed.case@example.com");
    for typed in [
        "mixed.case@example.com",
        "Mixed.Case@Example.com",
        "MIXED.CASE@EXAMPLE.COM",
    ] {
        let mut browser = Browser::new(&app);
        let signed_in = browser.sign_in(typed, &password, Some("/app")).await;
        assert_eq!(signed_in.status, 303, "{typed}: {}", signed_in.html);
        assert_eq!(signed_in.location(), "/app", "{typed}");
    }
}
