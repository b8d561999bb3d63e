//! Branding (DESIGN §21): the defaults of an organization that never set it, changing it field by
//! field, PNG and SVG logos (an SVG stored sanitized) served to the workbench with headers that
//! keep them inert, every problem of a body at once, roles, isolation, the audit log and MCP.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Value, json};

use crate::{
    browser::{Browser, connect},
    helpers::{Reply, TestApp, TestOrg, error_fields},
    mcp::{Mcp, tool_ok},
    roles::{add_person, connect_as},
};

/// A 1×1 red PNG.
pub const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

fn branding(org: &TestOrg) -> String {
    format!("/orgs/{}/branding", org.id)
}

fn logo_page(org: &TestOrg) -> String {
    format!("/app/{}/settings/branding/logo", org.id)
}

/// What a browser gets at `path`: status, headers and the bytes as sent.
async fn fetch(
    app: &TestApp,
    browser: &Browser,
    path: &str,
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let cookie = browser
        .cookies
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ");
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resp = client
        .get(app.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    let (status, headers) = (resp.status().as_u16(), resp.headers().clone());
    (status, headers, resp.bytes().await.unwrap().to_vec())
}

async fn get(app: &TestApp, org: &TestOrg) -> Value {
    app.get(&branding(org), &org.token).await.expect(200)
}

async fn put(app: &TestApp, org: &TestOrg, body: Value) -> Reply {
    app.put(&branding(org), &org.token, body).await
}

async fn owner(app: &TestApp, org: &TestOrg) -> Browser {
    let password = app.set_password(&org.email);
    Browser::signed_in(app, &org.email, &password).await
}

#[tokio::test]
async fn an_organization_that_never_set_its_branding_shows_its_name_a_neutral_color_and_no_logo() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let shown = get(&app, &org).await;
    assert_eq!(
        shown,
        json!({"displayName": "Test Org", "color": "#374151", "logo": null, "logoType": null, "updatedAt": null})
    );
    // Until it is set, the display name follows the organization's name.
    app.put(
        &format!("/orgs/{}", org.id),
        &org.token,
        json!({"name": "Renamed"}),
    )
    .await
    .expect(200);
    let shown = get(&app, &org).await;
    assert_eq!(shown["displayName"], "Renamed");
}

#[tokio::test]
async fn a_change_is_kept_field_by_field_and_null_puts_a_default_back() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let set = put(
        &app,
        &org,
        json!({"displayName": "  Acme Shop ", "color": "#1A73E8", "logo": PNG}),
    )
    .await
    .expect(200);
    assert_eq!(set["displayName"], "Acme Shop");
    assert_eq!(set["color"], "#1a73e8");
    assert_eq!(set["logo"], PNG);
    assert_eq!(set["logoType"], "image/png");
    crate::helpers::assert_timestamp(&set["updatedAt"]);
    let got = get(&app, &org).await;
    assert_eq!(got, set);

    // The answer goes back as it is (its read-only fields are ignored) and changes nothing.
    let again = put(&app, &org, got.clone()).await.expect(200);
    assert_eq!(again["logo"], got["logo"]);
    assert_eq!(again["displayName"], got["displayName"]);

    // Left out keeps; null puts back the default.
    let changed = put(&app, &org, json!({"color": "#00aa00"}))
        .await
        .expect(200);
    assert_eq!(
        (
            &changed["displayName"],
            &changed["color"],
            &changed["logoType"]
        ),
        (&json!("Acme Shop"), &json!("#00aa00"), &json!("image/png"))
    );
    let reset = put(
        &app,
        &org,
        json!({"displayName": null, "color": null, "logo": null}),
    )
    .await
    .expect(200);
    assert_eq!(reset["displayName"], "Test Org");
    assert_eq!(reset["color"], "#374151");
    assert_eq!(
        (&reset["logo"], &reset["logoType"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(get(&app, &org).await, reset);
}

#[tokio::test]
async fn a_png_logo_is_served_to_the_workbench_with_headers_that_keep_it_inert() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let mut browser = owner(&app, &org).await;
    let (status, _, _) = fetch(&app, &browser, &logo_page(&org)).await;
    assert_eq!(status, 404, "no logo yet");

    put(&app, &org, json!({"logo": PNG})).await.expect(200);
    let (status, headers, bytes) = fetch(&app, &browser, &logo_page(&org)).await;
    assert_eq!(status, 200);
    let header = |name: &str| crate::helpers::header(&headers, name);
    assert_eq!(header("content-type"), "image/png");
    assert_eq!(
        header("content-security-policy"),
        "default-src 'none'; style-src 'unsafe-inline'"
    );
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("cache-control"), "private, max-age=60");
    assert_eq!(bytes, STANDARD.decode(PNG).unwrap());

    // Signed out: to sign in. Someone of another organization: not found.
    let (status, headers, _) = fetch(&app, &Browser::new(&app), &logo_page(&org)).await;
    assert_eq!(status, 303);
    assert!(crate::helpers::header(&headers, "location").starts_with("/login?next="));
    let stranger = app.create_org();
    let outsider = owner(&app, &stranger).await;
    let (status, _, _) = fetch(&app, &outsider, &logo_page(&org)).await;
    assert_eq!(status, 404);
    // A member may look at it.
    let (email, _, password) = add_person(&app, &org, "member");
    let member = Browser::signed_in(&app, &email, &password).await;
    assert_eq!(fetch(&app, &member, &logo_page(&org)).await.0, 200);

    put(&app, &org, json!({"logo": null})).await.expect(200);
    let page = browser.get(&logo_page(&org)).await;
    assert_eq!(page.status, 404);
}

#[tokio::test]
async fn an_svg_logo_is_stored_sanitized_and_served_as_svg() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let svg = r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 64 64" onload="alert('loaded')">
  <script type="text/javascript">alert(document.cookie)</script>
  <defs>
    <linearGradient id="g"><stop offset="0" stop-color="#1a73e8"/><stop offset="1" stop-color="#0b3d91"/></linearGradient>
    <path id="p" d="M0 0h10v10z"/>
  </defs>
  <style>@import url("https://evil.example/steal.css"); .mark { fill: url(#g) }</style>
  <style>.ring { stroke: #fff; fill: url('#g') }</style>
  <a xlink:href="javascript:alert(1)"><circle class="mark" cx="32" cy="32" r="30" onclick="steal()"/></a>
  <foreignObject width="64" height="64"><body xmlns="http://www.w3.org/1999/xhtml"><script>alert(2)</script></body></foreignObject>
  <use href="#p" fill="url(#g)"/>
  <use xlink:href="https://evil.example/sprite.svg#icon"/>
  <image width="8" height="8" href="https://evil.example/track.png"/>
  <image width="8" height="8" xlink:href="data:image/png;base64,iVBORw0KGgo="/>
  <text x="4" y="60" font-family="Arial">Acme &amp; Co</text>
</svg>"##;
    let set = put(&app, &org, json!({"logo": STANDARD.encode(svg)}))
        .await
        .expect(200);
    assert_eq!(set["logoType"], "image/svg+xml");
    let stored =
        String::from_utf8(STANDARD.decode(set["logo"].as_str().unwrap()).unwrap()).unwrap();
    for gone in [
        "<script",
        "alert",
        "onload",
        "onclick",
        "javascript:",
        "foreignObject",
        "xhtml",
        "evil.example",
        "@import",
        "steal",
        "<a ",
        "<!DOCTYPE",
        "<?xml",
    ] {
        assert!(!stored.contains(gone), "{gone} kept: {stored}");
    }
    for kept in [
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">"#,
        r##"<stop offset="0" stop-color="#1a73e8"/>"##,
        r#"<path id="p" d="M0 0h10v10z"/>"#,
        "<style>.ring { stroke: #fff; fill: url('#g') }</style>",
        r#"<circle class="mark" cx="32" cy="32" r="30"/>"#,
        r##"<use href="#p" fill="url(#g)"/>"##,
        r#"<image width="8" height="8" href="data:image/png;base64,iVBORw0KGgo="/>"#,
        r#"<text x="4" y="60" font-family="Arial">Acme &amp; Co</text>"#,
    ] {
        assert!(stored.contains(kept), "{kept} missing: {stored}");
    }
    assert_eq!(get(&app, &org).await["logo"], set["logo"]);

    let mut browser = owner(&app, &org).await;
    let page = browser.get(&logo_page(&org)).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.header("content-type"), "image/svg+xml");
    assert_eq!(
        page.header("content-security-policy"),
        "default-src 'none'; style-src 'unsafe-inline'"
    );
    assert_eq!(page.html, stored);

    // Entities are refused outright (they are how a small file becomes a huge one).
    let bomb = r#"<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>"#;
    let problem = put(&app, &org, json!({"logo": STANDARD.encode(bomb)}))
        .await
        .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["logo"]);
}

#[tokio::test]
async fn every_problem_of_a_body_is_named_at_once_and_nothing_is_kept() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let before = get(&app, &org).await;
    let oversized = STANDARD.encode(vec![b'<'; 256 * 1024 + 1]);
    let problem = put(
        &app,
        &org,
        json!({"displayName": " ", "color": "blue", "logo": oversized}),
    )
    .await
    .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["displayName", "color", "logo"]);
    assert!(
        problem["errors"][2]["message"]
            .as_str()
            .unwrap()
            .contains("256 KB"),
        "{problem}"
    );

    let gif = STANDARD.encode(b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;");
    for (logo, message) in [
        (gif.as_str(), "must be a PNG or an SVG image"),
        ("bm90IGFuIGltYWdl", "must be a PNG or an SVG image"),
        ("%%%", "must be base64"),
        ("iVBORw0KGgoAAAAA", "is not a readable PNG"),
    ] {
        let problem = put(
            &app,
            &org,
            json!({"displayName": "Line\nbreak", "color": "#12345g", "logo": logo}),
        )
        .await
        .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), ["displayName", "color", "logo"]);
        assert!(
            problem["errors"][2]["message"]
                .as_str()
                .unwrap()
                .contains(message),
            "{logo}: {problem}"
        );
    }

    // Unknown fields are named (with the field meant when it is close), wrong types too.
    let problem = put(
        &app,
        &org,
        json!({"displayname": "Acme", "colour": "#000000", "logo": 7, "favicon": PNG}),
    )
    .await
    .problem(400, "validation_failed");
    let mut fields = error_fields(&problem);
    fields.sort();
    assert_eq!(fields, ["colour", "displayname", "favicon", "logo"]);
    let colour = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["field"] == "colour")
        .unwrap();
    assert_eq!(colour["message"], "unknown field; did you mean \"color\"?");

    assert_eq!(get(&app, &org).await, before);
}

#[tokio::test]
async fn a_member_reads_the_branding_but_may_not_change_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (email, _, password) = add_person(&app, &org, "member");
    let member = connect_as(&app, &email, &password, &org.id, None, None).await;
    app.get(&branding(&org), member.access()).await.expect(200);
    let refused = app
        .put(
            &branding(&org),
            member.access(),
            json!({"color": "#000000"}),
        )
        .await;
    assert!(
        refused
            .header("www-authenticate")
            .contains("scope=\"write:orgs\""),
        "{}",
        refused.text
    );
    refused.problem(403, "insufficient_scope");
    let (admin, _, password) = add_person(&app, &org, "admin");
    let admin = connect_as(&app, &admin, &password, &org.id, None, None).await;
    app.put(&branding(&org), admin.access(), json!({"color": "#000000"}))
        .await
        .expect(200);
}

#[tokio::test]
async fn another_organizations_branding_is_not_found_and_stays_as_it_was() {
    let app = TestApp::spawn().await;
    let victim = app.create_org();
    let attacker = app.create_org();
    put(&app, &victim, json!({"displayName": "Victim"}))
        .await
        .expect(200);
    let foreign = (&branding(&victim), &attacker.token);
    app.get(foreign.0, foreign.1)
        .await
        .problem(404, "not_found");
    app.put(foreign.0, foreign.1, json!({"displayName": "Owned"}))
        .await
        .problem(404, "not_found");
    assert_eq!(get(&app, &victim).await["displayName"], "Victim");
    let own = get(&app, &attacker).await;
    assert_eq!(own["displayName"], "Test Org");
}

#[tokio::test]
async fn a_change_is_in_the_audit_log_and_a_refused_one_is_not() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    put(&app, &org, json!({"color": "nope"}))
        .await
        .problem(400, "validation_failed");
    get(&app, &org).await;
    put(&app, &org, json!({"color": "#abcdef"}))
        .await
        .expect(200);
    let audit = app
        .get(&format!("/orgs/{}/audit", org.id), &org.token)
        .await
        .expect(200);
    let entries: Vec<&Value> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["operation"].as_str().unwrap().contains("branding"))
        .collect();
    assert_eq!(entries.len(), 1, "{audit}");
    assert_eq!(entries[0]["operation"], "update_branding");
    assert_eq!(entries[0]["resourceId"], json!(org.id));
    assert_eq!(entries[0]["actor"]["type"], "api_token");
}

#[tokio::test]
async fn an_agent_reads_and_changes_the_branding_with_its_tools() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let agent = connect(&app, &org, &["write:orgs"]).await;
    let mut mcp = Mcp::new(&app, agent.access());
    let changed = tool_ok(
        &mcp.call(
            "update_branding",
            json!({"displayName": "Agent Shop", "color": "#112233", "logo": PNG}),
        )
        .await,
    );
    assert_eq!(changed["logoType"], "image/png");
    let got = tool_ok(&mcp.call("get_branding", json!({})).await);
    assert_eq!(got, get(&app, &org).await);
    assert_eq!(got["displayName"], "Agent Shop");
}
