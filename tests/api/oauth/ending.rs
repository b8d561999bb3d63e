//! How a connection ends, each at the very next request: refresh-token reuse, revocation,
//! Disconnect on the Apps & integrations page, and the user losing full membership.

use reqwest::Method;

use crate::{
    browser::{connect, query, refresh},
    helpers::TestApp,
};

async fn revoke(app: &TestApp, fields: &[(&str, &str)]) -> crate::helpers::Reply {
    app.send_raw(
        Method::POST,
        "/oauth/revoke",
        None,
        Some("application/x-www-form-urlencoded"),
        query(fields),
    )
    .await
}

#[tokio::test]
async fn reusing_a_refresh_token_ends_the_whole_connection() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let connected = connect(&app, &org, &["read:shipments"]).await;
    let shipments = format!("/orgs/{}/shipments", org.id);
    let fresh = refresh(&app, &connected.client_id, connected.refresh())
        .await
        .expect(200);
    let current = fresh["access_token"].as_str().expect("token");
    app.get(&shipments, current).await.expect(200);

    let reused = refresh(&app, &connected.client_id, connected.refresh()).await;
    assert_eq!(
        (reused.status.as_u16(), reused.body["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    app.get(&shipments, current)
        .await
        .problem(401, "unauthenticated");
    app.get(&shipments, connected.access())
        .await
        .problem(401, "unauthenticated");
    let latest = refresh(
        &app,
        &connected.client_id,
        fresh["refresh_token"].as_str().unwrap_or_default(),
    )
    .await;
    assert_eq!(latest.body["error"], "invalid_grant");
}

#[tokio::test]
async fn revoking_a_refresh_or_access_token_ends_the_connection() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let shipments = format!("/orgs/{}/shipments", org.id);
    for kind in ["refresh", "access"] {
        let connected = connect(&app, &org, &["read:shipments"]).await;
        let token = if kind == "refresh" {
            connected.refresh()
        } else {
            connected.access()
        };
        // Another client cannot revoke it.
        revoke(
            &app,
            &[
                ("token", token),
                ("client_id", "cli_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
            ],
        )
        .await
        .expect(200);
        app.get(&shipments, connected.access()).await.expect(200);
        let reply = revoke(
            &app,
            &[("token", token), ("client_id", &connected.client_id)],
        )
        .await;
        assert_eq!(reply.status, 200, "{kind}: {}", reply.text);
        app.get(&shipments, connected.access())
            .await
            .problem(401, "unauthenticated");
        let after = refresh(&app, &connected.client_id, connected.refresh()).await;
        assert_eq!(after.body["error"], "invalid_grant", "{kind}");
    }
    revoke(&app, &[("token", "never-issued")]).await.expect(200);
    let missing = revoke(&app, &[]).await;
    assert_eq!(
        (missing.status.as_u16(), missing.body["error"].as_str()),
        (400, Some("invalid_request"))
    );
}

#[tokio::test]
async fn the_apps_page_lists_and_disconnects_only_the_users_own_agents() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let mut connected = connect(&app, &org, &["read:shipments", "read:orders"]).await;
    let shipments = format!("/orgs/{}/shipments", org.id);
    app.get(&shipments, connected.access()).await.expect(200);

    let page = connected.browser.get("/settings/apps").await;
    assert_eq!(page.status, 200);
    let text = page.text();
    assert!(
        text.contains("Apps & integrations") && text.contains("MCP (AI agents)"),
        "{text}"
    );
    assert!(
        text.contains("Test Agent") && text.contains("Test Org") && text.contains("2 permissions"),
        "{text}"
    );
    assert!(text.contains("last used just now"), "{text}");
    assert!(text.contains(&format!("{}/mcp", app.base_url)));
    let action = page
        .html
        .split("action=\"")
        .filter_map(|s| s.split('"').next())
        .find(|a| a.ends_with("/disconnect"))
        .expect("a disconnect form")
        .replace("&#x2f;", "/");

    // Another member of the same organization sees none of it and cannot disconnect it.
    let email = format!(
        "member-{}@example.com",
        ulid::Ulid::new().to_string().to_lowercase()
    );
    assert!(
        app.cli(&[
            "user", "add", "--org", &org.id, "--email", &email, "--name", "Member"
        ])
        .status
        .success()
    );
    let password = app.set_password(&email);
    let mut member = crate::browser::Browser::signed_in(&app, &email, &password).await;
    let theirs = member.get("/settings/apps").await;
    assert!(theirs.text().contains("No agents are connected"));
    assert!(!theirs.text().contains("Test Agent"));
    let csrf = theirs.hidden("csrf_token").expect("csrf");
    let refused = member.post(&action, &[("csrf_token", &csrf)]).await;
    assert_eq!(refused.status, 404);
    app.get(&shipments, connected.access()).await.expect(200);

    let csrf = page.hidden("csrf_token").expect("csrf");
    let forged = connected
        .browser
        .post(&action, &[("csrf_token", "forged")])
        .await;
    assert_eq!(forged.status, 403);
    let done = connected
        .browser
        .post(&action, &[("csrf_token", &csrf)])
        .await;
    assert_eq!(done.status, 303);
    assert_eq!(done.location(), "/settings/apps");
    app.get(&shipments, connected.access())
        .await
        .problem(401, "unauthenticated");
    assert_eq!(
        refresh(&app, &connected.client_id, connected.refresh())
            .await
            .body["error"],
        "invalid_grant"
    );
    let after = connected.browser.get(&done.location()).await;
    assert!(after.text().contains("Test Agent is disconnected"));
    assert!(after.text().contains("No agents are connected"));
    // The notice is shown once, and a link cannot make one up.
    let again = connected
        .browser
        .get("/settings/apps?disconnected=Anything")
        .await;
    assert!(!again.text().contains("is disconnected"));
}

#[tokio::test]
async fn a_user_limited_to_a_brand_later_loses_the_agents_access() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let email = format!(
        "member-{}@example.com",
        ulid::Ulid::new().to_string().to_lowercase()
    );
    assert!(
        app.cli(&[
            "user", "add", "--org", &org.id, "--email", &email, "--name", "Member"
        ])
        .status
        .success()
    );
    let member = crate::helpers::TestOrg {
        id: org.id.clone(),
        slug: org.slug.clone(),
        email: email.clone(),
        user_id: String::new(),
        token: String::new(),
    };
    let connected = connect(&app, &member, &["read:shipments"]).await;
    let shipments = format!("/orgs/{}/shipments", org.id);
    app.get(&shipments, connected.access()).await.expect(200);
    app.db_execute("UPDATE memberships SET brand = 'Nordic' WHERE user_id = (SELECT id FROM users WHERE email = ?1)", &[&email]);
    app.get(&shipments, connected.access())
        .await
        .problem(401, "unauthenticated");
    assert_eq!(
        refresh(&app, &connected.client_id, connected.refresh())
            .await
            .body["error"],
        "invalid_grant"
    );
}
