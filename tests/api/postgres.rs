//! PostgreSQL storage (DESIGN §18): migrations, `copy-data` both ways, and two app instances on
//! one database (as two `shipbase serve` processes behind a load balancer). These need a
//! server: `SHIPBASE_TEST_POSTGRES` (`.ci/run` starts one with `.ci/postgres.sh`); without it
//! they say so and pass, as every other test runs on SQLite then.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::{
    carriers_real::exactly_once,
    fixtures::{id_of, rule_body, sender_address_body, shipment_body},
    helpers::{TestApp, TestOrg, new_postgres_database, postgres_server},
    receiver::Receiver,
};

/// Base64 of 32 bytes: the key both instances seal secrets with.
const SHARED_KEY: &str = "c2hpcGJhc2Utc2hhcmVkLXRlc3Qta2V5LTMyLWJ5dGU=";

fn server() -> Option<String> {
    let server = postgres_server();
    if server.is_none() {
        eprintln!("SHIPBASE_TEST_POSTGRES is not set: this PostgreSQL test has nothing to run on");
    }
    server
}

fn on(url: &str, extra: &str) -> String {
    format!("{extra}\n[storage]\nurl = \"{url}\"\nsecret_key = \"{SHARED_KEY}\"\n")
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// An organization with a sender address, carrier, rule, webhook and two shipments.
async fn populate(app: &TestApp, receiver: &Receiver) -> (TestOrg, Vec<Value>) {
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let (address_id, carrier_id) = (id_of(&address), id_of(&carrier));
    app.create_rule(&org, rule_body(&carrier_id, &address_id))
        .await;
    app.post(
        &format!("/orgs/{}/webhooks", org.id),
        &org.token,
        json!({"name": "hook", "url": receiver.url("/hook"), "events": ["shipment.created"]}),
    )
    .await
    .expect(201);
    let mut shipments = Vec::new();
    for _ in 0..2 {
        shipments.push(
            app.create_shipment(&org, shipment_body(&address_id, &carrier_id))
                .await,
        );
    }
    app.create_sender_address_with(&org, sender_address_body())
        .await;
    (org, shipments)
}

/// A printer nothing listens on, with a test page job that failed for good (a job carrying its
/// own content); the path of its jobs.
async fn test_page_that_failed(app: &TestApp, org: &TestOrg) -> String {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let printer = app
        .post(
            &format!("/orgs/{}/printers", org.id),
            &org.token,
            json!({"name": "Off", "kind": "raw", "address": format!("127.0.0.1:{port}"), "format": "zpl"}),
        )
        .await
        .expect(201);
    let printer_path = format!("/orgs/{}/printers/{}", org.id, id_of(&printer));
    app.post(&format!("{printer_path}/test-print"), &org.token, json!({}))
        .await
        .expect(202);
    let jobs = format!("{printer_path}/jobs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let listed = app.get(&jobs, &org.token).await.expect(200);
        if listed["data"][0]["status"] == "failed" {
            assert_eq!(listed["data"][0]["kind"], "test_page", "{listed}");
            return jobs;
        }
        assert!(std::time::Instant::now() < deadline, "{listed}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// What the API answers for each of `paths`.
async fn answers(app: &TestApp, org: &TestOrg, paths: &[String]) -> Vec<Value> {
    let mut out = Vec::new();
    for path in paths {
        out.push(app.get(path, &org.token).await.expect(200));
    }
    out
}

#[tokio::test]
async fn migrate_applies_every_version_to_an_empty_database_and_then_nothing() {
    let Some(server) = server() else { return };
    let db = new_postgres_database(&server);
    let url = db.url.clone();
    let app = TestApp::spawn_with("[storage]\nurl = \"\"\n").await;
    let first = app.cli(&["--database-url", &url, "migrate"]);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let applied: Vec<String> = stdout(&first).lines().map(str::to_string).collect();
    let sqlite = std::fs::read_dir("migrations/sqlite")
        .expect("migrations")
        .count();
    assert_eq!(applied.len(), sqlite, "{applied:?}");
    assert!(applied[0].starts_with("applied V1__"), "{applied:?}");
    let again = app.cli(&["--database-url", &url, "migrate"]);
    assert_eq!(stdout(&again).trim(), "database is up to date");
    // A plain `backup` is SQLite's; on PostgreSQL it points at pg_dump.
    let backup = app.cli(&[
        "--database-url",
        &url,
        "backup",
        &app.dir.path().join("b.db").display().to_string(),
    ]);
    assert_eq!(backup.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&backup.stderr).contains("pg_dump"));
}

#[tokio::test]
async fn connections_use_tls_and_check_the_server_certificate() {
    let Some(server) = server() else { return };
    if !server.contains("sslrootcert=") {
        eprintln!("the server's URL names no CA (sslrootcert): it does not speak TLS here");
        return;
    }
    let db = new_postgres_database(&server);
    let app = TestApp::spawn_with(&on(&db.url, "")).await;
    let org = app.create_org();
    app.get(&format!("/orgs/{}/shipments", org.id), &org.token)
        .await
        .expect(200);
    // Every connection the app holds is TLS (the check's own connection aside).
    let seen = app
        .db_text(
            "SELECT COUNT(*)::text || '/' || (COUNT(*) FILTER (WHERE s.ssl))::text
             FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
             WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()",
            &[],
        )
        .expect("a row");
    let (all, tls) = seen.split_once('/').expect("n/m");
    assert!(all.parse::<u32>().expect("n") > 0 && all == tls, "{seen}");
    // Without the CA, the server's certificate is refused, and the message says what to do.
    let without_ca = format!(
        "{}?sslmode=require",
        db.url.split('?').next().unwrap_or_default()
    );
    let out = app.cli(&["--database-url", &without_ca, "migrate"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("certificate") && stderr.contains("sslrootcert"),
        "{stderr}"
    );
}

#[tokio::test]
async fn copy_data_moves_an_installation_to_postgres_and_back_unchanged() {
    let Some(server) = server() else { return };
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(&format!(
        "[storage]\nurl = \"\"\nsecret_key = \"{SHARED_KEY}\"\n[webhooks]\nallow_private_targets = true\n\
         [printers]\nallow_loopback = true\nretry_scale = 0.001\n"
    ))
    .await;
    let (org, shipments) = populate(&app, &receiver).await;
    app.put(
        &format!("/orgs/{}/branding", org.id),
        &org.token,
        json!({"displayName": "Copied", "logo": crate::branding::PNG}),
    )
    .await
    .expect(200);
    let mut paths: Vec<String> = shipments
        .iter()
        .map(|s| format!("/orgs/{}/shipments/{}", org.id, id_of(s)))
        .collect();
    paths.push(test_page_that_failed(&app, &org).await);
    // A pickup and a manifest (with its PDF) of a booked shipment.
    let booked = app.book_shipment(&org, &id_of(&shipments[0])).await;
    let carrier_id = booked["carrierSettings"]["carrierId"].clone();
    app.post(
        &format!("/orgs/{}/pickups", org.id),
        &org.token,
        json!({"carrierId": carrier_id, "date": "2031-03-04", "readyFrom": "09:00",
               "readyUntil": "16:00", "senderAddressId": booked["senderAddressId"],
               "shipmentIds": [id_of(&booked)]}),
    )
    .await
    .expect(201);
    app.post(
        &format!("/orgs/{}/manifests", org.id),
        &org.token,
        json!({"carrierId": carrier_id}),
    )
    .await
    .expect(201);
    for list in [
        "pickups",
        "manifests",
        "shipments",
        "carriers",
        "shipping-rules",
        "sender-addresses",
        "webhooks",
    ] {
        paths.push(format!("/orgs/{}/{list}", org.id));
    }
    paths.push(format!("/orgs/{}/billing/usage", org.id));
    paths.push(format!("/orgs/{}/branding", org.id));
    let before = answers(&app, &org, &paths).await;
    receiver.wait_for("/hook", 2).await;

    let db = new_postgres_database(&server);
    let url = db.url.clone();
    let copied = app.cli(&["copy-data", "--to", &url]);
    assert_eq!(copied.status.code(), Some(0), "{copied:?}");
    let counts: HashMap<String, u64> = stdout(&copied)
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            Some((parts.next()?.to_string(), parts.next()?.parse().ok()?))
        })
        .collect();
    assert_eq!(counts["shipments"], 2);
    assert_eq!(counts["sender_addresses"], 2);
    assert_eq!(counts["events"], 2, "{counts:?}");
    assert_eq!(counts["print_jobs"], 1, "{counts:?}");
    assert_eq!(
        (
            counts["pickups"],
            counts["manifests"],
            counts["manifest_shipments"]
        ),
        (1, 1, 1)
    );
    assert_eq!(counts["shipment_counts"], 2, "pending and processing");
    assert_eq!(counts["branding"], 1, "{counts:?}");
    assert!(stdout(&copied).contains("the row counts match"));

    // A second copy into the now full database is refused and changes nothing.
    let again = app.cli(&["copy-data", "--to", &url]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("not empty"),
        "{again:?}"
    );

    let on_postgres = TestApp::spawn_with(&on(&url, "")).await;
    assert_eq!(answers(&on_postgres, &org, &paths).await, before);

    // And back, into a new SQLite data directory.
    let fresh = on_postgres.dir.path().join("back");
    let fresh_arg = fresh.display().to_string();
    let back = on_postgres.cli(&["--data-dir", &fresh_arg, "copy-data", "--from", &url]);
    assert_eq!(back.status.code(), Some(0), "{back:?}");
    let on_sqlite = TestApp::spawn_with(&format!(
        "[storage]\nurl = \"\"\ndata_dir = \"{fresh_arg}\"\nsecret_key = \"{SHARED_KEY}\"\n"
    ))
    .await;
    assert_eq!(answers(&on_sqlite, &org, &paths).await, before);
}

#[tokio::test]
async fn two_instances_on_one_database_share_everything_and_admit_exactly_the_plan_limit() {
    let Some(server) = server() else { return };
    let db = new_postgres_database(&server);
    let url = db.url.clone();
    let plans = "[plans.tiny]\nshipments = 5\nsender_addresses = 3\n[webhooks]\nallow_private_targets = true\n";
    let first = TestApp::spawn_with(&on(&url, plans)).await;
    let second = TestApp::spawn_with(&on(&url, plans)).await;
    let receiver = Receiver::start().await;
    let org = first.create_org();
    let out = first.cli(&["org", "set-plan", &org.id, "tiny"]);
    assert!(out.status.success(), "{out:?}");
    let (address, carrier) = second.create_address_and_carrier(&org).await;
    let body = shipment_body(&id_of(&address), &id_of(&carrier));
    first
        .post(
            &format!("/orgs/{}/webhooks", org.id),
            &org.token,
            json!({"name": "hook", "url": receiver.url("/hook"), "events": ["shipment.created"]}),
        )
        .await
        .expect(201);

    // Twenty creates at once, alternating between the instances: exactly five pass.
    let path = format!("/orgs/{}/shipments", org.id);
    let mut tasks = Vec::new();
    for i in 0..20 {
        let (client, base, token, body) = (
            first.client.clone(),
            if i % 2 == 0 { &first } else { &second }.url(&path),
            org.token.clone(),
            body.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let reply = client
                .post(base)
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .expect("send");
            reply.status().as_u16()
        }));
    }
    let mut statuses = HashMap::<u16, usize>::new();
    for task in tasks {
        *statuses.entry(task.await.expect("task")).or_default() += 1;
    }
    assert_eq!(statuses.get(&201), Some(&5), "{statuses:?}");
    assert_eq!(statuses.get(&402), Some(&15), "{statuses:?}");

    // Both instances see the same five, and every event went out once, from either worker.
    for app in [&first, &second] {
        let page = app.get(&path, &org.token).await.expect(200);
        assert_eq!(page["total"], 5);
    }
    receiver.wait_for("/hook", 5).await;
    let count = |sql: &str| first.db_text(sql, &[]).unwrap_or_default();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while count("SELECT COUNT(*)::text FROM webhook_deliveries WHERE state = 'delivered'") != "5" {
        assert!(std::time::Instant::now() < deadline, "deliveries settle");
        tokio::task::yield_now().await;
    }
    // Every send is recorded as an attempt: five attempts, one per delivery, means no event
    // went out twice.
    assert_eq!(count("SELECT COUNT(*)::text FROM webhook_attempts"), "5");
    assert_eq!(
        count("SELECT MAX(attempts)::text FROM webhook_deliveries"),
        "1"
    );
    assert_eq!(receiver.to("/hook").len(), 5);
}

#[tokio::test]
async fn two_instances_book_a_shipment_with_the_carrier_exactly_once() {
    let Some(server) = server() else { return };
    let db = new_postgres_database(&server);
    let (replay, setting, config) = exactly_once::replay_of("postnord").await;
    let extra = format!("[carriers]\n{setting}timeout_seconds = 10\n");
    let first = TestApp::spawn_with(&on(&db.url, &extra)).await;
    let second = TestApp::spawn_with(&on(&db.url, &extra)).await;
    let org = first.create_org();
    let address = first.create_sender_address(&org).await;
    let carrier = second
        .create_carrier_with(
            &org,
            json!({"name": "PostNord", "carrierSlug": "postnord", "config": config,
                   "senderAddressId": id_of(&address)}),
        )
        .await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["carrierSettings"]["productId"] = json!("18");
    let id = id_of(&first.create_shipment(&org, body).await);

    // Six books at once, alternating between the instances, while the carrier takes 1.5 s.
    replay.set_delay(std::time::Duration::from_millis(1500));
    let path = format!("/orgs/{}/shipments/{id}/book", org.id);
    let tasks: Vec<_> = (0..6)
        .map(|i| {
            let (client, url, token) = (
                first.client.clone(),
                if i % 2 == 0 { &first } else { &second }.url(&path),
                org.token.clone(),
            );
            tokio::spawn(async move {
                let reply = client
                    .post(url)
                    .bearer_auth(token)
                    .json(&json!({}))
                    .send()
                    .await
                    .expect("send");
                crate::helpers::Reply::read(reply).await
            })
        })
        .collect();
    let mut booked = 0;
    for task in tasks {
        let reply = task.await.expect("task");
        if reply.status == 200 {
            booked += 1;
        } else {
            reply.problem(409, "booking_in_progress");
        }
    }
    assert_eq!(booked, 1);
    exactly_once::wait_for_arrivals(&replay, 1).await;
    replay.assert_clean();
    for app in [&first, &second] {
        let shipment = app.get_shipment(&org, &id).await;
        assert_eq!(shipment["status"], "processing");
    }
}
