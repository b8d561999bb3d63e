//! Request errors as problem+json (DESIGN §5, §16): body size, content type, unparseable and
//! wrongly shaped JSON, unknown paths and methods, and the request id in every error.

use std::{
    io::{Read, Write},
    time::Duration,
};

use reqwest::Method;
use serde_json::json;

use crate::helpers::{TestApp, TestOrg, error_fields};

const SMALL_BODIES: &str = "[limits]\nmax_body_bytes = 2048\n";

/// A PUT /orgs/{orgId} body of exactly `len` bytes: a name and an ignored padding field.
fn org_update_of_len(len: usize) -> String {
    let empty = r#"{"name":"Padded"}"#;
    format!(r#"{{"name":"Padded"{}}}"#, " ".repeat(len - empty.len()))
}

/// The JSON endpoints these tests drive, each with a body it accepts.
fn json_endpoints(org: &TestOrg) -> [(Method, String, serde_json::Value); 2] {
    [
        (
            Method::PUT,
            format!("/orgs/{}", org.id),
            json!({"name": "Renamed"}),
        ),
        (
            Method::POST,
            format!("/orgs/{}/api-tokens", org.id),
            json!({"name": "n", "scopes": ["read:orgs"]}),
        ),
    ]
}

/// Sends a PUT with a chunked body over a raw connection and returns the status code.
fn put_chunked(base_url: &str, path: &str, token: &str, chunks: &[String]) -> u16 {
    let addr = base_url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut request = format!(
        "PUT {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    for chunk in chunks {
        request.push_str(&format!("{:x}\r\n{chunk}\r\n", chunk.len()));
    }
    request.push_str("0\r\n\r\n");
    stream.write_all(request.as_bytes()).expect("write");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            other => panic!("no status line: {other:?} after {head:?}"),
        }
    }
    let line = String::from_utf8_lossy(&head).into_owned();
    line.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {line:?}"))
}

#[tokio::test]
async fn a_body_over_max_body_bytes_is_413_and_one_at_the_limit_is_accepted() {
    let app = TestApp::spawn_with(SMALL_BODIES).await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    let at_limit = org_update_of_len(2048);
    assert_eq!(at_limit.len(), 2048);
    let updated = app
        .send_raw(
            Method::PUT,
            &path,
            Some(&org.token),
            Some("application/json"),
            at_limit,
        )
        .await
        .expect(200);
    assert_eq!(updated["name"], "Padded");

    for len in [2049, 10_000] {
        let problem = app
            .send_raw(
                Method::PUT,
                &path,
                Some(&org.token),
                Some("application/json"),
                org_update_of_len(len),
            )
            .await
            .problem(413, "payload_too_large");
        assert_eq!(
            problem["detail"],
            "the request body is larger than 2048 bytes (the server's limits.max_body_bytes)"
        );
    }
}

#[tokio::test]
async fn a_chunked_body_over_max_body_bytes_is_413() {
    let app = TestApp::spawn_with(SMALL_BODIES).await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    let body = org_update_of_len(4500);
    let chunks: Vec<String> = body
        .as_bytes()
        .chunks(1500)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    let small: Vec<String> = vec![org_update_of_len(1000)];
    let (base, token) = (app.base_url.clone(), org.token.clone());
    let (big, fits) = tokio::task::spawn_blocking(move || {
        (
            put_chunked(&base, &path, &token, &chunks),
            put_chunked(&base, &path, &token, &small),
        )
    })
    .await
    .expect("raw requests");
    assert_eq!(big, 413);
    assert_eq!(fits, 200);
}

#[tokio::test]
async fn bodies_that_are_not_json_are_415() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    for (method, path, body) in json_endpoints(&org) {
        let text = body.to_string();
        for content_type in [
            Some("text/plain"),
            Some("application/xml"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            None,
        ] {
            app.send_raw(
                method.clone(),
                &path,
                Some(&org.token),
                content_type,
                text.clone(),
            )
            .await
            .problem(415, "unsupported_media_type");
        }
        for content_type in ["application/json", "application/json; charset=utf-8"] {
            let reply = app
                .send_raw(
                    method.clone(),
                    &path,
                    Some(&org.token),
                    Some(content_type),
                    text.clone(),
                )
                .await;
            assert!(reply.status.is_success(), "{content_type}: {}", reply.text);
        }
    }
}

#[tokio::test]
async fn malformed_json_is_400_invalid_json() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    for (method, path, _) in json_endpoints(&org) {
        for body in [
            r#"{"name": "#,
            "not json",
            r#"{"name": "x", "scopes": ["read:orgs"],}"#,
            "{'name': 'x'}",
            "",
        ] {
            app.send_raw(
                method.clone(),
                &path,
                Some(&org.token),
                Some("application/json"),
                body,
            )
            .await
            .problem(400, "invalid_json");
        }
    }
}

#[tokio::test]
async fn json_of_the_wrong_shape_is_400_validation_failed_naming_the_field() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (org_path, tokens_path) = (
        format!("/orgs/{}", org.id),
        format!("/orgs/{}/api-tokens", org.id),
    );
    let cases = [
        (Method::POST, &tokens_path, json!([]), "body"),
        (Method::POST, &tokens_path, json!("a string"), "body"),
        (Method::POST, &tokens_path, json!(42), "body"),
        (Method::POST, &tokens_path, json!(null), "body"),
        (
            Method::POST,
            &tokens_path,
            json!({"name": 5, "scopes": ["read:orgs"]}),
            "name",
        ),
        (
            Method::POST,
            &tokens_path,
            json!({"name": "x", "scopes": "read:orgs"}),
            "scopes",
        ),
        (Method::PUT, &org_path, json!([{"name": "x"}]), "body"),
        (Method::PUT, &org_path, json!({"name": 5}), "name"),
        (
            Method::PUT,
            &org_path,
            json!({"overageEnabled": "yes"}),
            "overageEnabled",
        ),
        (Method::PUT, &org_path, json!({"city": 8000}), "city"),
    ];
    for (method, path, body, field) in cases {
        let problem = app
            .call(method, path, Some(&org.token), Some(body.clone()))
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), [field], "{body}: {problem}");
    }
}

#[tokio::test]
async fn unknown_fields_are_400_naming_each_path_with_a_suggestion_and_change_nothing() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let problem = app
        .put(
            &format!("/orgs/{}", org.id),
            &org.token,
            json!({"name": "Renamed", "colour": "blue", "vatNumbr": "DK1", "id": "org_01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
        )
        .await
        .problem(400, "validation_failed");
    let errors: Vec<(String, String)> = problem["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["field"].as_str().unwrap_or_default().into(),
                e["message"].as_str().unwrap_or_default().into(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [
            ("colour".to_string(), "unknown field".to_string()),
            ("id".to_string(), "unknown field".to_string()),
            (
                "vatNumbr".to_string(),
                "unknown field; did you mean \"vatNumber\"?".to_string()
            ),
        ]
    );
    let org_now = app
        .get(&format!("/orgs/{}", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(org_now["name"], "Test Org");
    let problem = app
        .post(
            &format!("/orgs/{}/api-tokens", org.id),
            &org.token,
            json!({"name": "n", "scopes": ["read:orgs"], "token": "shb_chosen", "nested": {"a": 1}}),
        )
        .await
        .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["nested", "token"]);
}

#[tokio::test]
async fn body_errors_are_reported_only_after_authorization() {
    let app = TestApp::spawn().await;
    let (ours, theirs) = (app.create_org(), app.create_org());
    let path = format!("/orgs/{}", ours.id);
    let read_only = app.create_token(&ours, "read:orgs");
    for body in ["not json", r#"{"currency": "XYZ"}"#] {
        app.send_raw(
            Method::PUT,
            &path,
            Some(&theirs.token),
            Some("application/json"),
            body,
        )
        .await
        .problem(404, "not_found");
        app.send_raw(
            Method::PUT,
            &path,
            Some(&read_only),
            Some("application/json"),
            body,
        )
        .await
        .problem(403, "insufficient_scope");
    }
}

#[tokio::test]
async fn an_unknown_path_is_a_404_problem() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    for path in [
        "/no-such-path".to_string(),
        format!("/orgs/{}/no-such-resource", org.id),
        format!("/orgs/{}/api-tokens/tok_1/extra", org.id),
    ] {
        app.call(Method::GET, &path, Some(&org.token), None)
            .await
            .problem(404, "not_found");
    }
}

#[tokio::test]
async fn a_wrong_method_is_a_405_problem() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    for (method, path) in [
        (Method::DELETE, format!("/orgs/{}", org.id)),
        (Method::PATCH, format!("/orgs/{}", org.id)),
        (Method::POST, "/health".to_string()),
        (Method::GET, "/orgs".to_string()),
        (Method::PUT, format!("/orgs/{}/api-tokens", org.id)),
    ] {
        app.call(method, &path, Some(&org.token), None)
            .await
            .problem(405, "method_not_allowed");
    }
}

#[tokio::test]
async fn the_request_id_of_every_error_body_is_its_x_request_id_header() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    let replies = [
        app.call(Method::GET, &path, None, None).await,
        app.call(Method::GET, "/nowhere", None, None).await,
        app.send_raw(
            Method::PUT,
            &path,
            Some(&org.token),
            Some("text/plain"),
            "x",
        )
        .await,
        app.send_raw(
            Method::PUT,
            &path,
            Some(&org.token),
            Some("application/json"),
            "{",
        )
        .await,
        app.put(&path, &org.token, json!({"currency": "XYZ"})).await,
    ];
    let mut ids = Vec::new();
    for reply in replies {
        assert!(reply.status.is_client_error(), "{}", reply.text);
        let header = reply.header("x-request-id");
        assert_eq!(header.len(), 26, "{header:?}");
        assert_eq!(reply.body["requestId"], header.as_str(), "{}", reply.text);
        ids.push(header);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 5);
}
