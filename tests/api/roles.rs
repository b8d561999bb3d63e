//! Roles cap every credential a person holds or hands on (DESIGN §19): what consent offers, what
//! an agent and the tokens it makes may do, and that they end with the connection or the
//! membership; staff never travels through an agent; POST /orgs never makes an existing user an
//! owner unasked; a new password ends the old sessions.

use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    browser::{Browser, Connected, Request, authorize, exchange, register},
    fixtures::{id_of, shipment_body},
    helpers::{TestApp, TestOrg},
};

/// A person added to `org` with `role` (and a password); their e-mail, user id and password.
pub fn add_person(app: &TestApp, org: &TestOrg, role: &str) -> (String, String, String) {
    let email = format!(
        "{role}-{}@example.com",
        ulid::Ulid::new().to_string().to_lowercase()
    );
    let user = app.cli_json(&[
        "user", "add", "--org", &org.id, "--email", &email, "--name", role, "--role", role,
        "--json",
    ]);
    let password = app.set_password(&email);
    (email, user["id"].as_str().unwrap().to_string(), password)
}

/// `email` connects an agent to `org_id`, asking for `asked` and ticking what the page offers
/// of `ticked` (everything offered when None).
pub async fn connect_as(
    app: &TestApp,
    email: &str,
    password: &str,
    org_id: &str,
    asked: Option<&str>,
    ticked: Option<&[&str]>,
) -> Connected {
    let mut browser = Browser::signed_in(app, email, password).await;
    let client_id = register(app, "Role Agent").await;
    let request = Request::new(&client_id, asked);
    let page = browser.get(&request.path()).await;
    assert_eq!(page.status, 200, "{}", page.text());
    let offered: Vec<String> = page.inputs("scope").into_iter().map(|(s, _)| s).collect();
    let scopes: Vec<&str> = match ticked {
        Some(ticked) => ticked.to_vec(),
        None => offered.iter().map(String::as_str).collect(),
    };
    let code = authorize(&mut browser, &request, org_id, &scopes).await;
    let tokens = exchange(app, &request, &code).await;
    Connected {
        browser,
        client_id,
        tokens,
    }
}

fn grant_staff(app: &TestApp, email: &str) {
    let out = app.cli(&["staff", "grant", "--email", email]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn offered_to(app: &TestApp, email: &str, password: &str) -> Vec<String> {
    let mut browser = Browser::signed_in(app, email, password).await;
    let client_id = register(app, "Curious Agent").await;
    let page = browser.get(&Request::new(&client_id, None).path()).await;
    assert_eq!(page.status, 200, "{}", page.text());
    page.inputs("scope").into_iter().map(|(s, _)| s).collect()
}

#[tokio::test]
async fn consent_offers_only_what_the_role_holds() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (email, _, password) = add_person(&app, &org, "member");
    let offered = offered_to(&app, &email, &password).await;
    for held in [
        "read:shipments",
        "write:shipments",
        "write:orders",
        "read:carriers",
    ] {
        assert!(
            offered.contains(&held.to_string()),
            "{held} missing: {offered:?}"
        );
    }
    for beyond in [
        "write:api_tokens",
        "read:api_tokens",
        "write:webhooks",
        "read:billing",
        "write:orgs",
        "write:carriers",
    ] {
        assert!(
            !offered.contains(&beyond.to_string()),
            "{beyond} offered: {offered:?}"
        );
    }
    let (admin, _, password) = add_person(&app, &org, "admin");
    let offered = offered_to(&app, &admin, &password).await;
    assert!(offered.contains(&"write:api_tokens".to_string()));
    assert!(
        !offered.contains(&"write:billing".to_string()),
        "{offered:?}"
    );
}

#[tokio::test]
async fn a_forged_consent_form_cannot_grant_beyond_the_role() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (email, _, password) = add_person(&app, &org, "member");
    let mut browser = Browser::signed_in(&app, &email, &password).await;
    let client_id = register(&app, "Greedy Agent").await;
    let request = Request::new(&client_id, None);
    let page = browser.get(&request.path()).await;
    let answer = crate::browser::consent(
        &mut browser,
        &page,
        "allow",
        &org.id,
        &["read:shipments", "write:api_tokens"],
    )
    .await;
    assert_eq!(answer.status, 400, "{}", answer.text());
    assert!(
        answer.text().contains("you cannot grant write:api_tokens"),
        "{}",
        answer.text()
    );
}

#[tokio::test]
async fn an_agent_made_token_dies_with_its_connection() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let connected =
        crate::browser::connect(&app, &org, &["read:shipments", "write:api_tokens"]).await;
    let made = app
        .post(
            &format!("/orgs/{}/api-tokens", org.id),
            connected.access(),
            json!({"name": "made by an agent", "scopes": ["read:shipments"]}),
        )
        .await
        .expect(201);
    let token = made["token"].as_str().unwrap().to_string();
    app.get(&format!("/orgs/{}/shipments", org.id), &token)
        .await
        .expect(200);
    // A token made with that token is bound to the same connection.
    let grandchild = app
        .post(
            &format!("/orgs/{}/api-tokens", org.id),
            connected.access(),
            json!({"name": "and one more", "scopes": ["read:shipments"]}),
        )
        .await
        .expect(201)["token"]
        .as_str()
        .unwrap()
        .to_string();

    // Disconnect on the Apps & integrations page.
    let mut browser = connected.browser;
    let apps = browser.get("/settings/apps").await;
    let csrf = apps.hidden("csrf_token").unwrap();
    let connection = app
        .db_text(
            "SELECT id FROM agent_connections WHERE client_id = ?1",
            &[&connected.client_id],
        )
        .unwrap();
    let out = browser
        .post(
            &format!("/settings/apps/connections/{connection}/disconnect"),
            &[("csrf_token", &csrf)],
        )
        .await;
    assert_eq!(out.status, 303);
    for dead in [&token, &grandchild] {
        app.get(&format!("/orgs/{}/shipments", org.id), dead)
            .await
            .problem(401, "unauthenticated");
    }
}

#[tokio::test]
async fn removing_or_narrowing_a_member_ends_or_narrows_every_credential_at_once() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (email, user_id, password) = add_person(&app, &org, "admin");
    let agent = connect_as(&app, &email, &password, &org.id, None, None).await;
    let made = app
        .post(
            &format!("/orgs/{}/api-tokens", org.id),
            agent.access(),
            json!({"name": "admin's agent's", "scopes": ["read:all", "write:all"]}),
        )
        .await;
    // write:all would include write:billing, which an admin does not hold.
    made.problem(403, "insufficient_scope");
    let token = app
        .post(
            &format!("/orgs/{}/api-tokens", org.id),
            agent.access(),
            json!({"name": "admin's agent's", "scopes": ["read:shipments", "read:webhooks"]}),
        )
        .await
        .expect(201)["token"]
        .as_str()
        .unwrap()
        .to_string();
    let webhooks = format!("/orgs/{}/webhooks", org.id);
    app.get(&webhooks, &token).await.expect(200);
    app.get(&webhooks, agent.access()).await.expect(200);
    // A shipment's GET confirms a kept token in its own read (`auth::Pending`).
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let shipment = app
        .create_shipment(&org, shipment_body(&id_of(&address), &id_of(&carrier)))
        .await;
    let shipment_path = format!("/orgs/{}/shipments/{}", org.id, id_of(&shipment));
    for credential in [token.as_str(), token.as_str(), agent.access()] {
        app.get(&shipment_path, credential).await.expect(200);
    }

    // Demoted to member: neither may read webhooks any more, both still read shipments.
    app.patch(
        &format!("/orgs/{}/members/{user_id}", org.id),
        &org.token,
        json!({"role": "member"}),
    )
    .await
    .expect(200);
    for credential in [token.as_str(), agent.access()] {
        app.get(&webhooks, credential)
            .await
            .problem(403, "insufficient_scope");
        app.get(&format!("/orgs/{}/shipments", org.id), credential)
            .await
            .expect(200);
        app.get(&shipment_path, credential).await.expect(200);
    }

    // Removed: both end, and the refresh token gives nothing new.
    app.delete(&format!("/orgs/{}/members/{user_id}", org.id), &org.token)
        .await
        .expect(200);
    for credential in [token.as_str(), agent.access()] {
        app.get(&shipment_path, credential)
            .await
            .problem(401, "unauthenticated");
        app.get(&format!("/orgs/{}/shipments", org.id), credential)
            .await
            .problem(401, "unauthenticated");
    }
    let refreshed = crate::browser::refresh(&app, &agent.client_id, agent.refresh()).await;
    assert_eq!(refreshed.status.as_u16(), 400, "{}", refreshed.text);
}

#[tokio::test]
async fn a_member_limited_to_a_brand_hands_nothing_on() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (email, user_id, password) = add_person(&app, &org, "member");
    let agent = connect_as(&app, &email, &password, &org.id, None, None).await;
    app.get(&format!("/orgs/{}/shipments", org.id), agent.access())
        .await
        .expect(200);
    app.patch(
        &format!("/orgs/{}/members/{user_id}", org.id),
        &org.token,
        json!({"brand": "North"}),
    )
    .await
    .expect(200);
    app.get(&format!("/orgs/{}/shipments", org.id), agent.access())
        .await
        .problem(401, "unauthenticated");
}

#[tokio::test]
async fn a_staff_users_agent_and_what_it_makes_never_carry_staff() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    grant_staff(&app, &org.email);
    let signup = |slug: &str| json!({"name": "Made by staff", "slug": slug, "creatorEmail": format!("{slug}@example.com"), "creatorName": "New Owner"});
    // The CLI-made token of a staff user carries staff: sign-up is closed, yet it may create.
    app.post("/orgs", &org.token, signup("by-cli-token"))
        .await
        .expect(201);
    let connected =
        crate::browser::connect(&app, &org, &["read:orgs", "write:api_tokens", "write:orgs"]).await;
    app.post("/orgs", connected.access(), signup("by-the-agent"))
        .await
        .problem(403, "insufficient_scope");
    let minted = app
        .post(
            &format!("/orgs/{}/api-tokens", org.id),
            connected.access(),
            json!({"name": "minted", "scopes": ["write:orgs"]}),
        )
        .await
        .expect(201)["token"]
        .as_str()
        .unwrap()
        .to_string();
    app.post("/orgs", &minted, signup("by-a-minted-token"))
        .await
        .problem(403, "insufficient_scope");
}

#[tokio::test]
async fn post_orgs_never_makes_an_existing_user_an_owner_unasked() {
    let app = TestApp::spawn_with("[signup]\nopen = true").await;
    let existing = app.create_org();
    let body = |slug: &str, attach: bool| {
        let mut body = json!({"name": "Takeover", "slug": slug, "creatorEmail": existing.email, "creatorName": "Someone"});
        if attach {
            body["existingUser"] = json!("attach");
        }
        body
    };
    let anonymous = app
        .call(Method::POST, "/orgs", None, Some(body("takeover-1", true)))
        .await;
    anonymous.problem(409, "user_exists");
    let staff = app.create_org();
    grant_staff(&app, &staff.email);
    app.post("/orgs", &staff.token, body("takeover-2", false))
        .await
        .problem(409, "user_exists");
    let created = app
        .post("/orgs", &staff.token, body("attached", true))
        .await
        .expect(201);
    assert_eq!(created["user"]["id"], json!(existing.user_id));
    // The new organization's audit log says who attached whom.
    let org_id = created["org"]["id"].as_str().unwrap();
    let token = app.cli_json(&[
        "token",
        "create",
        "--org",
        org_id,
        "--name",
        "reader",
        "--scopes",
        "read:orgs",
        "--json",
    ])["token"]
        .as_str()
        .unwrap()
        .to_string();
    let audit = app
        .get(&format!("/orgs/{org_id}/audit"), &token)
        .await
        .expect(200);
    let first = &audit["data"][audit["data"].as_array().unwrap().len() - 1];
    assert_eq!(first["operation"], "create_organization", "{audit}");
    assert_eq!(first["actor"]["type"], "api_token");
    assert_eq!(first["actor"]["userId"], json!(staff.user_id));
}

#[tokio::test]
async fn a_new_password_ends_the_users_sessions() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let password = app.set_password(&org.email);
    let mut browser = Browser::signed_in(&app, &org.email, &password).await;
    assert_eq!(browser.get("/settings/apps").await.status, 200);
    app.set_password(&org.email);
    let after = browser.get("/settings/apps").await;
    assert_eq!(after.status, 303, "the old session still opens the page");
}

#[tokio::test]
async fn the_member_rules_hold() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let members = format!("/orgs/{}/members", org.id);
    // The only owner can neither leave nor be demoted.
    app.delete(&format!("{members}/{}", org.user_id), &org.token)
        .await
        .problem(409, "invalid_state");
    app.patch(
        &format!("{members}/{}", org.user_id),
        &org.token,
        json!({"role": "admin"}),
    )
    .await
    .problem(409, "invalid_state");
    // A brand limits members only.
    let (_, admin_id, _) = add_person(&app, &org, "admin");
    let limited = app
        .patch(
            &format!("{members}/{admin_id}"),
            &org.token,
            json!({"brand": "North"}),
        )
        .await;
    limited.problem(400, "validation_failed");
    // An admin's credential may not touch owners.
    let (admin_email, _, admin_password) = add_person(&app, &org, "admin");
    let agent = connect_as(&app, &admin_email, &admin_password, &org.id, None, None).await;
    let refused = app
        .delete(&format!("{members}/{}", org.user_id), agent.access())
        .await;
    refused.problem(403, "forbidden");
    let refused = app
        .post(
            &members,
            agent.access(),
            json!({"email": "new-owner@example.com", "name": "New", "role": "owner"}),
        )
        .await;
    refused.problem(403, "forbidden");
    let added: Value = app
        .post(
            &members,
            agent.access(),
            json!({"email": "helper@example.com", "name": "Helper", "role": "member"}),
        )
        .await
        .expect(201);
    assert_eq!(added["role"], "member");
}

#[tokio::test]
async fn the_command_line_changes_roles_and_removes_members() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (email, user_id, password) = add_person(&app, &org, "admin");
    let agent = connect_as(&app, &email, &password, &org.id, None, None).await;
    let tokens = format!("/orgs/{}/api-tokens", org.id);
    app.get(&tokens, agent.access()).await.expect(200);

    let out = app.cli(&[
        "user", "role", "--org", &org.id, "--email", &email, "--role", "member",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    app.get(&tokens, agent.access())
        .await
        .problem(403, "insufficient_scope");
    let members = app
        .get(&format!("/orgs/{}/members", org.id), &org.token)
        .await
        .expect(200);
    let row = members["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == json!(user_id))
        .cloned()
        .unwrap();
    assert_eq!(row["role"], "member");

    let out = app.cli(&["user", "remove", "--org", &org.id, "--email", &email]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    app.get(&format!("/orgs/{}/shipments", org.id), agent.access())
        .await
        .problem(401, "unauthenticated");
    // Removing the only owner is refused with one clear line and exit status 1.
    let stderr = app.cli_fails(
        &["user", "remove", "--org", &org.id, "--email", &org.email],
        1,
    );
    assert!(stderr.contains("needs an owner"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}
