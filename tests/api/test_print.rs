//! A printer's test print: `POST …/printers/{id}/test-print` answers 202 with the queued job,
//! and the test page (a PDF or a ZPL program, in the printer's format) reaches a raw 9100
//! listener through the print queue; the job is listed as a `test_page`; the scope, the
//! organization and the audit log are checked as for every write.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{
    fixtures::{Shop, assert_id, id_of, printed::run_tool},
    printers::{LOOPBACK, RawPrinter, create_printer, jobs_until, printers},
    roles::{add_person, connect_as},
};

fn test_print(shop: &Shop, printer: &Value) -> String {
    format!("{}/{}/test-print", printers(shop), id_of(printer))
}

/// Waits until the raw printer has `n` jobs (at most 30 s); returns them.
async fn received(socket: &RawPrinter, n: usize) -> Vec<Vec<u8>> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let jobs = socket.jobs();
        if jobs.len() >= n || std::time::Instant::now() > deadline {
            return jobs;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The job once it is printed (or failed).
async fn settled(shop: &Shop, printer: &Value) -> Value {
    let jobs = jobs_until(shop, &id_of(printer), |jobs| {
        !jobs.is_empty() && jobs.iter().all(|j| j["status"] != "queued")
    })
    .await;
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    jobs[0].clone()
}

#[tokio::test]
async fn a_pdf_test_page_reaches_the_printer_and_names_it() {
    let shop = Shop::with_config(LOOPBACK).await;
    let socket = RawPrinter::start().await;
    let address = format!("127.0.0.1:{}", socket.port);
    let printer = create_printer(
        &shop,
        json!({"name": "Kontor Øst", "kind": "raw", "address": address, "format": "pdf"}),
    )
    .await;
    let queued = shop
        .app
        .post(&test_print(&shop, &printer), &shop.org.token, json!({}))
        .await
        .expect(202);
    assert_id(&queued["id"], "pjb");
    assert_eq!(
        (
            &queued["printerId"],
            &queued["kind"],
            &queued["status"],
            &queued["documentId"],
            &queued["shipmentId"]
        ),
        (
            &printer["id"],
            &json!("test_page"),
            &json!("queued"),
            &Value::Null,
            &Value::Null
        )
    );

    let page = received(&socket, 1).await.remove(0);
    assert!(page.starts_with(b"%PDF-"), "a PDF");
    let file = shop.app.dir.path().join("test-page.pdf");
    std::fs::write(&file, &page).unwrap();
    let text = run_tool("pdftotext", &[file.to_str().unwrap(), "-"], "poppler-utils");
    for expected in [
        "Shipbase test page",
        "Kontor Øst",
        address.as_str(),
        "PDF",
        "Test Org",
    ] {
        assert!(text.contains(expected), "{expected} in {text}");
    }

    let job = settled(&shop, &printer).await;
    assert_eq!(
        (&job["id"], &job["kind"], &job["status"], &job["shipmentId"]),
        (
            &queued["id"],
            &json!("test_page"),
            &json!("printed"),
            &Value::Null
        )
    );
    assert_eq!(job["documentId"], Value::Null);
}

#[tokio::test]
async fn a_zpl_printer_gets_a_zpl_test_page() {
    let shop = Shop::with_config(LOOPBACK).await;
    let socket = RawPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Labels 1", "kind": "raw", "address": format!("127.0.0.1:{}", socket.port), "format": "zpl"}),
    )
    .await;
    shop.app
        .post(&test_print(&shop, &printer), &shop.org.token, json!({}))
        .await
        .expect(202);
    let program = String::from_utf8(received(&socket, 1).await.remove(0)).unwrap();
    assert!(program.starts_with("^XA"), "{program}");
    assert!(program.trim_end().ends_with("^XZ"), "{program}");
    assert!(program.contains("^PW800") && program.contains("^LL1200"));
    for text in ["Shipbase test page", "Labels 1", "ZPL", "Test Org"] {
        assert!(program.contains(&format!("^FD{text}^FS")), "{text}");
    }
    let job = settled(&shop, &printer).await;
    assert_eq!(
        (&job["kind"], &job["status"]),
        (&json!("test_page"), &json!("printed"))
    );
}

#[tokio::test]
async fn test_pages_go_one_at_a_time_and_are_retried_like_any_job() {
    let shop = Shop::with_config(LOOPBACK).await;
    let socket = RawPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": format!("127.0.0.1:{}", socket.port), "format": "pdf"}),
    )
    .await;
    for _ in 0..3 {
        shop.app
            .post(&test_print(&shop, &printer), &shop.org.token, json!({}))
            .await
            .expect(202);
    }
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.len() == 3 && jobs.iter().all(|j| j["status"] == "printed")
    })
    .await;
    assert!(jobs.iter().all(|j| j["status"] == "printed"), "{jobs:?}");
    assert_eq!(received(&socket, 3).await.len(), 3);
    assert_eq!(socket.most_open(), 1, "one job at a time");

    // Nothing listens: the job is tried four times, then failed with the reason.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let printer = create_printer(
        &shop,
        json!({"name": "Off", "kind": "raw", "address": format!("127.0.0.1:{port}"), "format": "pdf"}),
    )
    .await;
    shop.app
        .post(&test_print(&shop, &printer), &shop.org.token, json!({}))
        .await
        .expect(202);
    let job = settled(&shop, &printer).await;
    assert_eq!(
        (&job["status"], &job["attempts"]),
        (&json!("failed"), &json!(4))
    );
    assert!(job["error"].as_str().unwrap().contains("refused"), "{job}");
}

#[tokio::test]
async fn a_test_print_needs_write_printers_and_the_organizations_printer() {
    let shop = Shop::with_config(LOOPBACK).await;
    let printer = create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": "10.0.0.1:9100", "format": "pdf"}),
    )
    .await;
    let path = test_print(&shop, &printer);

    // A member may print shipments' documents, not administer printers.
    let (email, _, password) = add_person(&shop.app, &shop.org, "member");
    let member = connect_as(&shop.app, &email, &password, &shop.org.id, None, None).await;
    shop.app
        .post(&path, member.access(), json!({}))
        .await
        .problem(403, "insufficient_scope");
    let reader = shop.app.create_token(&shop.org, "read:printers");
    shop.app
        .post(&path, &reader, json!({}))
        .await
        .problem(403, "insufficient_scope");

    // Another organization's printer, and one that does not exist, are 404.
    let other = shop.app.create_org();
    shop.app
        .post(
            &path.replace(&shop.org.id, &other.id),
            &other.token,
            json!({}),
        )
        .await
        .problem(404, "not_found");
    shop.app
        .post(
            &format!(
                "{}/prn_01ARZ3NDEKTSV4RRFFQ69G5FAV/test-print",
                printers(&shop)
            ),
            &shop.org.token,
            json!({}),
        )
        .await
        .problem(404, "not_found");

    let jobs = shop
        .app
        .get(
            &format!("{}/{}/jobs", printers(&shop), id_of(&printer)),
            &shop.org.token,
        )
        .await
        .expect(200);
    assert_eq!(jobs["total"], 0, "refusals queue nothing: {jobs}");

    let writer = shop.app.create_token(&shop.org, "write:printers");
    let queued = shop.app.post(&path, &writer, json!({})).await.expect(202);
    let audit = shop
        .app
        .get(&format!("/orgs/{}/audit", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    let entry = &audit["data"][0];
    assert_eq!(
        (&entry["operation"], &entry["resourceId"]),
        (&json!("print_test_page"), &printer["id"])
    );
    assert_eq!(entry["actor"]["type"], "api_token", "{entry}");
    assert_eq!(queued["kind"], "test_page");
}

#[tokio::test]
async fn a_test_print_is_idempotent_under_a_key() {
    let shop = Shop::with_config(LOOPBACK).await;
    let printer = create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": "10.0.0.1:9100", "format": "zpl"}),
    )
    .await;
    let send = || {
        shop.app
            .client
            .post(shop.app.url(&test_print(&shop, &printer)))
            .bearer_auth(&shop.org.token)
            .header("Idempotency-Key", "test-print-1")
            .send()
    };
    let first = send().await.unwrap();
    assert_eq!(first.status(), 202);
    let first: Value = first.json().await.unwrap();
    let again = send().await.unwrap();
    assert_eq!(again.status(), 202);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.json::<Value>().await.unwrap(), first);
    let jobs = shop
        .app
        .get(
            &format!("{}/{}/jobs", printers(&shop), id_of(&printer)),
            &shop.org.token,
        )
        .await
        .expect(200);
    assert_eq!(jobs["total"], 1, "{jobs}");
}
