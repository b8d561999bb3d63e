//! API tokens: listing and paging, creation without widening, rename, revoke, lastUsedAt and
//! expiry (SPEC §2 ApiToken, §4 rows 21-22; DESIGN §4, §6).

use std::time::Duration;

use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, shipment_body},
    helpers::{TestApp, TestOrg, assert_timestamp, error_fields, is_id},
};

fn tokens_path(org: &TestOrg) -> String {
    format!("/orgs/{}/api-tokens", org.id)
}

fn is_token_value(token: &str) -> bool {
    token.strip_prefix("shb_").is_some_and(|body| {
        body.len() == 43
            && body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

fn sorted_scopes(record: &Value) -> Vec<String> {
    let mut scopes: Vec<String> = record["scopes"]
        .as_array()
        .map(|s| {
            s.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    scopes.sort();
    scopes
}

/// Asserts the fields every ApiToken record has, and that it holds no token value.
#[track_caller]
fn assert_token_record(record: &Value, org: &TestOrg) {
    assert!(
        is_id("tok", record["id"].as_str().unwrap_or_default()),
        "{record}"
    );
    assert!(record["name"].is_string(), "{record}");
    assert_eq!(
        record["tokenPrefix"].as_str().map(str::len),
        Some(12),
        "{record}"
    );
    assert!(record["scopes"].is_array(), "{record}");
    assert_timestamp(&record["createdAt"]);
    assert!(
        record["lastUsedAt"].is_null() || record["lastUsedAt"].is_string(),
        "{record}"
    );
    assert!(
        record["expiresAt"].is_null() || record["expiresAt"].is_string(),
        "{record}"
    );
    assert_eq!(
        record["createdBy"],
        json!({"id": org.user_id, "name": "Owner", "email": org.email}),
    );
    assert!(record.get("token").is_none(), "{record}");
}

#[tokio::test]
async fn listing_tokens_returns_the_page_envelope_with_default_paging() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let reply = app.get(&tokens_path(&org), &org.token).await;
    let text = reply.text.clone();
    let page = reply.expect(200);
    assert_eq!(page["total"], 1);
    assert_eq!(page["page"], 1);
    assert_eq!(page["limit"], 20);
    assert_eq!(page["totalPages"], 1);
    let data = page["data"].as_array().cloned().unwrap_or_default();
    assert_eq!(data.len(), 1);
    let owner = &data[0];
    assert_token_record(owner, &org);
    assert_eq!(owner["tokenPrefix"], &org.token[..12]);
    assert_eq!(sorted_scopes(owner), ["read:all", "write:all"]);
    assert_eq!(owner["expiresAt"], Value::Null);
    assert!(!text.contains(&org.token), "{text}");
}

#[tokio::test]
async fn no_listing_read_or_rename_response_contains_a_token_value() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (token, record) = app
        .create_api_token(&org, json!({"name": "ci", "scopes": ["read:orgs"]}))
        .await;
    let id = record["id"].as_str().unwrap_or_default().to_string();
    let path = format!("{}/{id}", tokens_path(&org));
    let replies = [
        app.get(&tokens_path(&org), &org.token).await,
        app.get(&format!("{}?limit=100", tokens_path(&org)), &org.token)
            .await,
        app.get(&path, &org.token).await,
        app.patch(&path, &org.token, json!({"name": "renamed"}))
            .await,
    ];
    for reply in replies {
        assert_eq!(reply.status, 200, "{}", reply.text);
        for secret in [&token, &org.token] {
            assert!(!reply.text.contains(secret.as_str()), "{}", reply.text);
        }
    }
}

#[tokio::test]
async fn tokens_are_paged_newest_first() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let mut created = vec![String::from("Owner token")];
    for n in 1..25 {
        let name = format!("token {n:02}");
        app.create_api_token(&org, json!({"name": name, "scopes": ["read:orgs"]}))
            .await;
        created.push(name);
    }
    let mut listed = Vec::new();
    for page_number in 1..=3 {
        let page = app
            .get(
                &format!("{}?page={page_number}&limit=10", tokens_path(&org)),
                &org.token,
            )
            .await
            .expect(200);
        assert_eq!(page["total"], 25);
        assert_eq!(page["page"], page_number);
        assert_eq!(page["limit"], 10);
        assert_eq!(page["totalPages"], 3);
        let data = page["data"].as_array().cloned().unwrap_or_default();
        assert_eq!(data.len(), if page_number == 3 { 5 } else { 10 });
        listed.extend(
            data.iter()
                .filter_map(|t| t["name"].as_str().map(String::from)),
        );
    }
    created.reverse();
    assert_eq!(listed, created);

    let beyond = app
        .get(
            &format!("{}?page=4&limit=10", tokens_path(&org)),
            &org.token,
        )
        .await
        .expect(200);
    assert_eq!(beyond["data"], json!([]));
    assert_eq!(beyond["total"], 25);
}

#[tokio::test]
async fn out_of_range_paging_parameters_are_400() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    for (query, field) in [
        ("page=0", "page"),
        ("page=-1", "page"),
        ("page=abc", "page"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=abc", "limit"),
        ("limit=1.5", "limit"),
    ] {
        let problem = app
            .get(&format!("{}?{query}", tokens_path(&org)), &org.token)
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), [field], "{query}: {problem}");
    }
    for query in ["limit=1", "limit=100", "page=1"] {
        app.get(&format!("{}?{query}", tokens_path(&org)), &org.token)
            .await
            .expect(200);
    }
}

#[tokio::test]
async fn creating_a_token_returns_its_value_once_and_it_works_at_once() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let created = app
        .post(
            &tokens_path(&org),
            &org.token,
            json!({"name": "warehouse", "scopes": ["read:orgs", "write:api_tokens"]}),
        )
        .await
        .expect(201);
    let mut keys: Vec<&String> = created
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    keys.sort();
    assert_eq!(keys, ["apiToken", "token"]);
    let token = created["token"].as_str().unwrap_or_default();
    assert!(is_token_value(token), "{token}");
    let record = &created["apiToken"];
    assert_token_record(record, &org);
    assert_eq!(record["name"], "warehouse");
    assert_eq!(record["tokenPrefix"], &token[..12]);
    assert_eq!(sorted_scopes(record), ["read:orgs", "write:api_tokens"]);
    assert_eq!(record["lastUsedAt"], Value::Null);
    assert_eq!(record["expiresAt"], Value::Null);

    app.get(&format!("/orgs/{}", org.id), token)
        .await
        .expect(200);
    app.get(&tokens_path(&org), token).await.expect(200);
}

#[tokio::test]
async fn a_token_with_an_expiry_reports_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (_, record) = app
        .create_api_token(
            &org,
            json!({"name": "temp", "scopes": ["read:orgs"], "expiresAt": "2999-01-02T03:04:05+02:00"}),
        )
        .await;
    assert_eq!(record["expiresAt"], "2999-01-02T01:04:05.000Z");
}

#[tokio::test]
async fn a_token_cannot_mint_scopes_it_lacks() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = tokens_path(&org);
    let minter = app.create_token(&org, "write:api_tokens");
    for scopes in [
        json!(["write:all"]),
        json!(["read:all"]),
        json!(["read:orgs"]),
        json!(["read:api_tokens", "write:shipments"]),
    ] {
        app.post(&path, &minter, json!({"name": "wider", "scopes": scopes}))
            .await
            .problem(403, "insufficient_scope");
    }
    for scopes in [json!(["read:api_tokens"]), json!(["write:api_tokens"])] {
        app.post(
            &path,
            &minter,
            json!({"name": "narrower", "scopes": scopes}),
        )
        .await
        .expect(201);
    }

    let reader = app.create_token(&org, "read:all");
    app.post(
        &path,
        &reader,
        json!({"name": "x", "scopes": ["read:orgs"]}),
    )
    .await
    .problem(403, "insufficient_scope");

    let page = app.get(&path, &org.token).await.expect(200);
    assert_eq!(page["total"], 5, "only the two narrower tokens were added");
}

#[tokio::test]
async fn invalid_token_requests_are_400_naming_the_field() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let cases = [
        (
            json!({"name": "x", "scopes": ["read:everything"]}),
            "scopes",
        ),
        (json!({"name": "x", "scopes": ["admin"]}), "scopes"),
        (json!({"name": "x", "scopes": []}), "scopes"),
        (json!({"name": "x"}), "scopes"),
        (json!({"scopes": ["read:orgs"]}), "name"),
        (json!({"name": "", "scopes": ["read:orgs"]}), "name"),
        (
            json!({"name": "n".repeat(101), "scopes": ["read:orgs"]}),
            "name",
        ),
        (
            json!({"name": "x", "scopes": ["read:orgs"], "expiresAt": "2001-01-01T00:00:00Z"}),
            "expiresAt",
        ),
        (
            json!({"name": "x", "scopes": ["read:orgs"], "expiresAt": "next tuesday"}),
            "expiresAt",
        ),
    ];
    for (body, field) in cases {
        let problem = app
            .post(&tokens_path(&org), &org.token, body.clone())
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), [field], "{body}: {problem}");
    }
    let page = app.get(&tokens_path(&org), &org.token).await.expect(200);
    assert_eq!(page["total"], 1);
}

#[tokio::test]
async fn a_token_name_of_100_characters_is_accepted_at_creation() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let name = "ø".repeat(100);
    let (_, record) = app
        .create_api_token(&org, json!({"name": name, "scopes": ["read:orgs"]}))
        .await;
    assert_eq!(record["name"], name.as_str());
}

#[tokio::test]
async fn renaming_a_token_accepts_1_to_100_characters() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (_, record) = app
        .create_api_token(&org, json!({"name": "old", "scopes": ["read:orgs"]}))
        .await;
    let path = format!(
        "{}/{}",
        tokens_path(&org),
        record["id"].as_str().unwrap_or_default()
    );
    for name in ["a".to_string(), "b".repeat(100), "ü".repeat(100)] {
        let renamed = app
            .patch(&path, &org.token, json!({ "name": name }))
            .await
            .expect(200);
        assert_token_record(&renamed, &org);
        assert_eq!(renamed["name"], name.as_str());
        assert_eq!(renamed["id"], record["id"]);
        assert_eq!(renamed["tokenPrefix"], record["tokenPrefix"]);
        assert_eq!(renamed["scopes"], record["scopes"]);
        let read = app.get(&path, &org.token).await.expect(200);
        assert_eq!(read["name"], name.as_str());
    }
    for body in [
        json!({"name": ""}),
        json!({"name": "c".repeat(101)}),
        json!({}),
    ] {
        let problem = app
            .patch(&path, &org.token, body.clone())
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), ["name"], "{body}");
    }
    let read = app.get(&path, &org.token).await.expect(200);
    assert_eq!(read["name"], "ü".repeat(100).as_str());
}

#[tokio::test]
async fn renaming_an_unknown_or_foreign_token_is_404() {
    let app = TestApp::spawn().await;
    let (ours, theirs) = (app.create_org(), app.create_org());
    let body = json!({"name": "mine now"});
    app.patch(
        &format!("{}/tok_01ARZ3NDEKTSV4RRFFQ69G5FAV", tokens_path(&ours)),
        &ours.token,
        body.clone(),
    )
    .await
    .problem(404, "not_found");

    let theirs_page = app
        .get(&tokens_path(&theirs), &theirs.token)
        .await
        .expect(200);
    let their_id = theirs_page["data"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    app.patch(
        &format!("{}/{their_id}", tokens_path(&ours)),
        &ours.token,
        body.clone(),
    )
    .await
    .problem(404, "not_found");
    app.patch(
        &format!("{}/{their_id}", tokens_path(&theirs)),
        &ours.token,
        body,
    )
    .await
    .problem(404, "not_found");
    let after = app
        .get(
            &format!("{}/{their_id}", tokens_path(&theirs)),
            &theirs.token,
        )
        .await
        .expect(200);
    assert_eq!(after["name"], "Owner token");
}

#[tokio::test]
async fn a_revoked_token_gets_401_on_its_next_request() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (token, record) = app
        .create_api_token(&org, json!({"name": "leaked", "scopes": ["read:orgs"]}))
        .await;
    let org_path = format!("/orgs/{}", org.id);
    app.get(&org_path, &token).await.expect(200);

    let path = format!(
        "{}/{}",
        tokens_path(&org),
        record["id"].as_str().unwrap_or_default()
    );
    let revoked = app.delete(&path, &org.token).await.expect(200);
    assert!(revoked["message"].is_string(), "{revoked}");

    app.get(&org_path, &token)
        .await
        .problem(401, "unauthenticated");
    let page = app.get(&tokens_path(&org), &org.token).await.expect(200);
    assert_eq!(page["total"], 1);
    app.delete(&path, &org.token)
        .await
        .problem(404, "not_found");
}

/// A GET of a shipment confirms a token this process keeps in the one read it answers from
/// (`auth::Pending`): a change that moves the credential generation but not this token leaves
/// it reading, and its own revocation answers 401 on its next request.
#[tokio::test]
async fn a_kept_token_reading_a_shipment_sees_its_revocation_at_once() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let shipment = app
        .create_shipment(&org, shipment_body(&id_of(&address), &id_of(&carrier)))
        .await;
    let path = format!("/orgs/{}/shipments/{}", org.id, id_of(&shipment));
    let mut ids = Vec::new();
    let mut tokens = Vec::new();
    for name in ["reader", "other"] {
        let (token, record) = app
            .create_api_token(&org, json!({"name": name, "scopes": ["read:shipments"]}))
            .await;
        ids.push(format!("{}/{}", tokens_path(&org), id_of(&record)));
        tokens.push(token);
    }
    // The first read keeps the credential; the second is confirmed in the shipment's read.
    for _ in 0..2 {
        assert_eq!(app.get(&path, &tokens[0]).await.expect(200), shipment);
    }
    app.get(&path, &tokens[1]).await.expect(200);
    app.delete(&ids[1], &org.token).await.expect(200);
    assert_eq!(app.get(&path, &tokens[0]).await.expect(200), shipment);
    app.get(&path, &tokens[1])
        .await
        .problem(401, "unauthenticated");
    app.delete(&ids[0], &org.token).await.expect(200);
    app.get(&path, &tokens[0])
        .await
        .problem(401, "unauthenticated");
    app.get(&path, &org.token).await.expect(200);
}

#[tokio::test]
async fn revoking_another_orgs_token_is_404_and_it_keeps_working() {
    let app = TestApp::spawn().await;
    let (ours, theirs) = (app.create_org(), app.create_org());
    let page = app
        .get(&tokens_path(&theirs), &theirs.token)
        .await
        .expect(200);
    let their_id = page["data"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    app.delete(&format!("{}/{their_id}", tokens_path(&ours)), &ours.token)
        .await
        .problem(404, "not_found");
    app.delete(&format!("{}/{their_id}", tokens_path(&theirs)), &ours.token)
        .await
        .problem(404, "not_found");
    app.get(&format!("/orgs/{}", theirs.id), &theirs.token)
        .await
        .expect(200);
}

#[tokio::test]
async fn last_used_at_is_set_after_a_token_is_used() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (token, record) = app
        .create_api_token(&org, json!({"name": "used", "scopes": ["read:orgs"]}))
        .await;
    assert_eq!(record["lastUsedAt"], Value::Null);
    let path = format!(
        "{}/{}",
        tokens_path(&org),
        record["id"].as_str().unwrap_or_default()
    );

    app.get(&format!("/orgs/{}", org.id), &token)
        .await
        .expect(200);

    // lastUsedAt is written after the request is answered: wait for that write, at most ~2 s.
    let mut last_used = Value::Null;
    for _ in 0..40 {
        last_used = app.get(&path, &org.token).await.expect(200)["lastUsedAt"].clone();
        if !last_used.is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_timestamp(&last_used);
    assert!(
        last_used.as_str() >= record["createdAt"].as_str(),
        "{last_used} before {}",
        record["createdAt"]
    );
}

#[tokio::test]
async fn an_expired_token_gets_401() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let short = app.cli_json(&[
        "token",
        "create",
        "--org",
        &org.id,
        "--name",
        "short",
        "--scopes",
        "read:orgs",
        "--expires-in",
        "1s",
        "--json",
    ]);
    let long = app.cli_json(&[
        "token",
        "create",
        "--org",
        &org.id,
        "--name",
        "long",
        "--scopes",
        "read:orgs",
        "--expires-in",
        "1h",
        "--json",
    ]);
    assert_timestamp(&short["apiToken"]["expiresAt"]);
    // The token was created with one second to live before the CLI returned.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let org_path = format!("/orgs/{}", org.id);
    let reply = app
        .get(&org_path, short["token"].as_str().unwrap_or_default())
        .await;
    let challenge = reply.header("www-authenticate");
    reply.problem(401, "unauthenticated");
    assert!(challenge.starts_with("Bearer"), "{challenge}");
    app.get(&org_path, long["token"].as_str().unwrap_or_default())
        .await
        .expect(200);
}
