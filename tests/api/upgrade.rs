//! Upgrades with data (issue 25): `tests/fixtures/upgrade/<fixture>/` keeps an installation an
//! earlier release made through its own CLI and REST API (`make.sh` made them, the README names
//! the commits), with what that release answered for every resource (`expected.json`). Each
//! test starts the current app on a copy of one, which migrates it, and reads everything back:
//! every field the old release answered is answered the same (fields added since aside),
//! documents byte for byte, tokens, passwords and sealed secrets still work, the workbench shows
//! the old shipments, and the migrated data takes new writes.
//!
//! Both releases came before per-parcel tracking numbers: their booked parcels had none, and
//! every label of a shipment carried the shipment's number. V21 gives each such parcel the
//! number its label carries.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use base64::{Engine, engine::general_purpose::STANDARD};
use reqwest::Method;
use ring::{digest, hmac};
use serde_json::{Value, json};

use crate::{
    browser::Browser,
    fixtures::{id_of, printed::pdf_text},
    helpers::TestApp,
};

/// The release before V5 and V6 (events, usage counters and webhooks): d293a63.
const BEFORE_EVENTS: &str = "before-events";
/// The release before per-parcel tracking numbers: e3d75fc.
const BEFORE_PARCEL_NUMBERS: &str = "before-parcel-numbers";

/// What an old release answered and kept for the test (`expected.json`).
struct Fixture {
    dir: PathBuf,
    facts: Value,
    /// Document id → `{shipmentId, sha256, bytes}` of its download.
    documents: BTreeMap<String, Value>,
    /// `(path, answer)`: every resource and list the release answered.
    answers: Vec<(String, Value)>,
}

impl Fixture {
    fn load(name: &str) -> Fixture {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/upgrade")
            .join(name);
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("expected.json")).expect("expected.json"),
        )
        .expect("expected.json is JSON");
        let documents = expected["documents"]
            .as_object()
            .expect("documents")
            .iter()
            .map(|(id, d)| (id.clone(), d.clone()))
            .collect();
        let answers = expected["answers"]
            .as_array()
            .expect("answers")
            .iter()
            .map(|a| {
                (
                    a["path"].as_str().expect("path").to_string(),
                    a["body"].clone(),
                )
            })
            .collect();
        Fixture {
            dir,
            facts: expected["facts"].clone(),
            documents,
            answers,
        }
    }

    /// A fact `make.sh` kept (an id, a token, a secret).
    #[track_caller]
    fn fact(&self, key: &str) -> String {
        self.facts[key]
            .as_str()
            .unwrap_or_else(|| panic!("no fact {key} in {}", self.facts))
            .to_string()
    }

    /// The current app on a copy of the fixture's data directory. Delivery logs are kept as long
    /// as the fixture lives (they are pruned after `webhooks.retention_days`).
    async fn start(&self) -> TestApp {
        let files: Vec<PathBuf> = ["shipbase.db", "secret.key"]
            .iter()
            .map(|f| self.dir.join(f))
            .filter(|f| f.exists())
            .collect();
        TestApp::spawn_on_copy_of(&files, "[webhooks]\nretention_days = 36500\n").await
    }

    /// What the old release answered for `path`.
    #[track_caller]
    fn answer(&self, path: &str) -> &Value {
        self.answers
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, a)| a)
            .unwrap_or_else(|| panic!("no answer for {path}"))
    }

    fn org_path(&self, rest: &str) -> String {
        format!("/orgs/{}{rest}", self.fact("org"))
    }

    /// The old release's answers for the organization's shipments, one per shipment.
    fn shipments(&self) -> Vec<&Value> {
        let prefix = self.org_path("/shipments/shp_");
        self.answers
            .iter()
            .filter(|(p, _)| p.starts_with(&prefix))
            .map(|(_, a)| a)
            .collect()
    }
}

/// Where `new` does not answer what `old` did: every field of `old` must be in `new` with the
/// same value (a null the same as a field left out, numbers as numbers), arrays element by
/// element; fields only `new` has were added since. `lastUsedAt` moves with every use, a
/// document's `content` is compared byte for byte elsewhere, and a Shopify channel's
/// `webhookUrl` is on the address the server runs on.
fn differences(old: &Value, new: &Value, at: &str, out: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            for (key, value) in old {
                if key == "lastUsedAt" || (key == "content" && value == "(see documents)") {
                    continue;
                }
                let there = new.get(key).unwrap_or(&Value::Null);
                if key == "webhookUrl" {
                    // On the server's own address, which each run chooses.
                    let path = |v: &Value| {
                        v.as_str()
                            .and_then(|u| u.find("/channels/").map(|i| u[i..].to_string()))
                    };
                    if path(value).is_some() && path(value) == path(there) {
                        continue;
                    }
                }
                differences(value, there, &format!("{at}.{key}"), out);
            }
        }
        (Value::Array(old), Value::Array(new)) => {
            if old.len() != new.len() {
                out.push(format!("{at}: {} items, was {}", new.len(), old.len()));
                return;
            }
            for (n, (o, v)) in old.iter().zip(new).enumerate() {
                differences(o, v, &format!("{at}[{n}]"), out);
            }
        }
        (Value::Number(o), Value::Number(n)) if o.as_f64() == n.as_f64() => {}
        (old, new) if old == new => {}
        (old, new) => out.push(format!("{at}: {new}, was {old}")),
    }
}

/// The token the answer at `path` was read with.
fn token_for(fixture: &Fixture, path: &str) -> String {
    if path.starts_with(&format!("/orgs/{}", fixture.fact("other_org"))) {
        fixture.fact("other_token")
    } else {
        fixture.fact("owner_token")
    }
}

/// Every answer the old release gave, given again the same.
async fn reads_every_resource_back(app: &TestApp, fixture: &Fixture) {
    let mut found = Vec::new();
    for (path, old) in &fixture.answers {
        let reply = app.get(path, &token_for(fixture, path)).await;
        if reply.status != 200 {
            found.push(format!("{path}: {} {}", reply.status, reply.text));
            continue;
        }
        let mut here = Vec::new();
        if path.ends_with("/billing/usage") {
            // The plan's limits; the shipments counted are the current month's.
            differences(&old["limits"], &reply.body["limits"], "limits", &mut here);
        } else {
            differences(old, &reply.body, "", &mut here);
        }
        found.extend(here.into_iter().map(|d| format!("{path} {d}")));
    }
    assert!(
        found.is_empty(),
        "{} differences:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The label numbers: every parcel of a shipment the old release booked has the number its
/// label carries (the shipment's one number then), read from the label itself; the parcels of
/// the others have none. The shipments the old release booked, by reference.
async fn booked_parcels_have_their_labels_numbers(app: &TestApp, fixture: &Fixture) -> Vec<String> {
    let token = fixture.fact("owner_token");
    let pdfs = tempfile::tempdir().expect("temp dir");
    let mut booked = Vec::new();
    for old in fixture.shipments() {
        let shipment = app
            .get(
                &fixture.org_path(&format!("/shipments/{}", id_of(old))),
                &token,
            )
            .await
            .expect(200);
        let parcels = shipment["parcels"].as_array().expect("parcels");
        let labels: Vec<&Value> = shipment["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .filter(|d| d["documentType"] == "label")
            .collect();
        let Some(number) = old["tracking"]["number"].as_str() else {
            for parcel in parcels {
                assert_eq!(parcel["trackingNumber"], Value::Null, "{parcel}");
            }
            assert!(labels.is_empty(), "{}", shipment["reference"]);
            continue;
        };
        let reference = shipment["reference"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert_eq!(shipment["tracking"]["number"], number, "{reference}");
        assert_eq!(
            labels.len(),
            parcels.len(),
            "one label a parcel: {reference}"
        );
        for (n, (parcel, label)) in parcels.iter().zip(&labels).enumerate() {
            assert_eq!(
                parcel["trackingNumber"], number,
                "parcel {n} of {reference}: {parcel}"
            );
            let text = pdf_text(label, pdfs.path());
            assert!(
                text.contains(number),
                "label {n} of {reference} carries {number}: {text}"
            );
            assert!(
                text.contains(&format!("Parcel {} of {}", n + 1, parcels.len())),
                "{text}"
            );
        }
        booked.push(reference);
    }
    booked.sort();
    booked
}

/// Every document downloads as the bytes the old release gave, and its `content` in the
/// shipment is the same file.
async fn documents_are_the_same_files(app: &TestApp, fixture: &Fixture) {
    let token = fixture.fact("owner_token");
    for (id, old) in &fixture.documents {
        let shipment_id = old["shipmentId"].as_str().expect("shipmentId");
        let response = app
            .client
            .get(app.url(&fixture.org_path(&format!("/shipments/{shipment_id}/documents/{id}"))))
            .bearer_auth(&token)
            .send()
            .await
            .expect("download");
        assert_eq!(response.status(), 200, "{id}");
        let bytes = response.bytes().await.expect("bytes");
        assert!(bytes.starts_with(b"%PDF"), "{id}");
        assert_eq!(Some(bytes.len() as u64), old["bytes"].as_u64(), "{id}");
        let sha = digest::digest(&digest::SHA256, &bytes);
        let hex: String = sha.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(old["sha256"], hex.as_str(), "{id}");

        let shipment = app
            .get(
                &fixture.org_path(&format!("/shipments/{shipment_id}")),
                &token,
            )
            .await
            .expect(200);
        let document = shipment["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .find(|d| d["id"] == id.as_str())
            .unwrap_or_else(|| panic!("{id} in {shipment}"));
        let content = STANDARD
            .decode(document["content"].as_str().expect("content"))
            .expect("base64");
        assert_eq!(content, bytes.as_ref(), "{id}");
    }
}

/// Tokens authenticate as they did, with the scopes they had; a revoked one does not; one
/// organization's token reads nothing of the other's; deleted things stay deleted.
async fn credentials_and_boundaries_hold(app: &TestApp, fixture: &Fixture) {
    let org = fixture.org_path("");
    let shipments = fixture.org_path("/shipments");
    app.get(&org, &fixture.fact("owner_token"))
        .await
        .expect(200);
    app.get(&org, &fixture.fact("reader_token"))
        .await
        .expect(200);
    app.post(
        &fixture.org_path("/sender-addresses"),
        &fixture.fact("reader_token"),
        json!({}),
    )
    .await
    .problem(403, "insufficient_scope");
    app.get(&shipments, &fixture.fact("scanner_token"))
        .await
        .expect(200);
    app.get(
        &fixture.org_path("/carriers"),
        &fixture.fact("scanner_token"),
    )
    .await
    .problem(403, "insufficient_scope");
    app.get(&org, &fixture.fact("revoked_token"))
        .await
        .problem(401, "unauthenticated");
    app.get(
        &format!("{shipments}/{}", fixture.fact("shipment_booked3")),
        &fixture.fact("other_token"),
    )
    .await
    .problem(404, "not_found");
    app.get(
        &format!(
            "/orgs/{}/shipments/{}",
            fixture.fact("other_org"),
            fixture.fact("other_shipment")
        ),
        &fixture.fact("owner_token"),
    )
    .await
    .problem(404, "not_found");
    app.get(
        &format!("{shipments}/{}", fixture.fact("shipment_deleted")),
        &fixture.fact("owner_token"),
    )
    .await
    .problem(404, "not_found");
    app.get(
        &fixture.org_path(&format!("/orders/{}", fixture.fact("order_deleted"))),
        &fixture.fact("owner_token"),
    )
    .await
    .problem(404, "not_found");
}

/// The Shopify channel takes a new order signed with the secret it was made with.
async fn shopify_channel_keeps_its_secret(app: &TestApp, fixture: &Fixture) {
    let mut payload: Value =
        serde_json::from_slice(include_bytes!("../fixtures/shopify_order.json"))
            .expect("the Shopify payload");
    payload["id"] = json!(450789470);
    payload["name"] = json!("#2001");
    payload["order_number"] = json!(2001);
    let body = serde_json::to_vec(&payload).expect("JSON");
    let key = hmac::Key::new(hmac::HMAC_SHA256, fixture.fact("shopify_secret").as_bytes());
    let signature = STANDARD.encode(hmac::sign(&key, &body).as_ref());
    let reply = app
        .client
        .post(app.url(&format!(
            "/channels/{}/shopify/orders",
            fixture.fact("channel_shopify")
        )))
        .header("content-type", "application/json")
        .header("X-Shopify-Topic", "orders/create")
        .header("X-Shopify-Webhook-Id", "upgrade-test-2001")
        .header("X-Shopify-Shop-Domain", "nordic-goods.myshopify.com")
        .header("X-Shopify-Hmac-Sha256", signature)
        .body(body)
        .send()
        .await
        .expect("delivery");
    assert_eq!(reply.status(), 200, "{:?}", reply.text().await);
    let orders = app
        .get(
            &fixture.org_path("/orders?orderNumber=%232001"),
            &fixture.fact("owner_token"),
        )
        .await
        .expect(200);
    assert_eq!(orders["total"], 1, "{orders}");
    assert_eq!(
        orders["data"][0]["orderChannelId"],
        fixture.fact("channel_shopify")
    );
}

/// The owner signs in with the password the old release set, and the workbench shows the old
/// shipments, their pages and a preview of their first label, the orders and the settings.
async fn workbench_shows_the_old_data(app: &TestApp, fixture: &Fixture) {
    let org = fixture.fact("org");
    let mut browser = Browser::signed_in(
        app,
        "owner@nordic-goods.example",
        &fixture.fact("owner_password"),
    )
    .await;
    for path in [
        format!("/app/{org}/shipments"),
        format!("/app/{org}/orders"),
        format!("/app/{org}/settings"),
    ] {
        let page = browser.get(&path).await;
        assert_eq!(page.status, 200, "{path}: {}", page.html);
    }
    for page in [
        "sender-addresses",
        "carriers",
        "shipping-rules",
        "order-channels",
        "api-tokens",
        "members",
        "usage",
    ] {
        let path = format!("/app/{org}/settings/{page}");
        let page = browser.get(&path).await;
        assert_eq!(page.status, 200, "{path}: {}", page.html);
    }
    // The list reads the product of a row stored before V31 from its representation (or,
    // before V28, its body).
    let list = browser.get(&format!("/app/{org}/shipments")).await;
    for old in fixture.shipments() {
        let row = list.row_text(&format!("value=\"{}\"", id_of(old)));
        let product = old["carrierSettings"]["productId"]
            .as_str()
            .expect("product");
        let reference = old["reference"].as_str().expect("reference");
        assert!(row.starts_with(&format!("{reference} ")), "{row}");
        assert!(row.contains(&format!(" {product} ")), "{product} in {row}");
    }
    for old in fixture.shipments() {
        let path = format!("/app/{org}/shipments/{}", id_of(old));
        let page = browser.get(&path).await;
        assert_eq!(page.status, 200, "{path}: {}", page.html);
        let reference = old["reference"].as_str().expect("reference");
        assert!(page.html.contains(reference), "{path} shows {reference}");
    }
    for key in ["shipment_booked3", "shipment_thermal"] {
        let shipment =
            fixture.answer(&fixture.org_path(&format!("/shipments/{}", fixture.fact(key))));
        let label = id_of(&shipment["documents"][0]);
        let path = format!(
            "/app/{org}/shipments/{}/documents/{label}/preview",
            id_of(shipment)
        );
        let page = browser.get(&path).await;
        assert_eq!(page.status, 200, "{path}");
        assert_eq!(page.header("content-type"), "image/png", "{path}");
    }
    for key in ["order_fulfilled", "order_shopify"] {
        let path = format!("/app/{org}/orders/{}", fixture.fact(key));
        let page = browser.get(&path).await;
        assert_eq!(page.status, 200, "{path}: {}", page.html);
    }
}

/// The old search terms come in the background: a booked shipment is found by its number.
async fn old_shipments_are_found_by_tracking_number(app: &TestApp, fixture: &Fixture) {
    let booked = fixture
        .answer(&fixture.org_path(&format!("/shipments/{}", fixture.fact("shipment_booked3"))));
    let number = booked["tracking"]["number"].as_str().expect("number");
    let path = fixture.org_path(&format!("/shipments?search={number}"));
    for _ in 0..100 {
        let found = app
            .get(&path, &fixture.fact("owner_token"))
            .await
            .expect(200);
        if found["total"] == 1 {
            assert_eq!(found["data"][0]["id"], booked["id"]);
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{number} was never found");
}

/// New writes on the migrated data: a shipment made with the old sender address and carrier
/// books with a number a parcel, and so does an old pending one; the old order's shipment books.
async fn migrated_data_takes_writes(app: &TestApp, fixture: &Fixture) {
    let token = fixture.fact("owner_token");
    let created = app
        .post(
            &fixture.org_path("/shipments"),
            &token,
            json!({
                "reference": "AFTER-UPGRADE",
                "senderAddressId": fixture.fact("address_hq"),
                "parties": [{"type": "receiver", "name": "Nils New", "address1": "Ny Vej 3",
                             "postalCode": "5000", "city": "Odense", "countryCode": "DK"}],
                "type": "outbound",
                "carrierSettings": {"carrierId": fixture.fact("carrier_sandbox"), "productId": "standard"},
                "parcels": [{"weight": 1.0}, {"weight": 2.0}]
            }),
        )
        .await
        .expect(201);
    for id in [
        id_of(&created),
        fixture.fact("shipment_pending"),
        fixture.fact("shipment_waiting"),
    ] {
        let booked = app
            .call(
                Method::POST,
                &fixture.org_path(&format!("/shipments/{id}/book")),
                Some(&token),
                None,
            )
            .await
            .expect(200);
        let reference = booked["reference"].clone();
        assert_eq!(booked["status"], "processing", "{reference}");
        let parcels = booked["parcels"].as_array().expect("parcels");
        let numbers: Vec<&str> = parcels
            .iter()
            .map(|p| p["trackingNumber"].as_str().expect("a number a parcel"))
            .collect();
        assert_eq!(booked["tracking"]["number"], numbers[0], "{reference}");
        let mut distinct = numbers.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), numbers.len(), "{reference}: {numbers:?}");
        let labels = booked["documents"].as_array().expect("documents");
        assert_eq!(labels.len(), parcels.len(), "{reference}");
        for label in labels {
            assert!(
                STANDARD
                    .decode(label["content"].as_str().expect("content"))
                    .expect("base64")
                    .starts_with(b"%PDF"),
                "{reference}"
            );
        }
    }
    let order = app
        .get(
            &fixture.org_path(&format!("/orders/{}", fixture.fact("order_waiting"))),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(
        order["shipments"][0]["id"],
        fixture.fact("shipment_waiting")
    );
    assert_eq!(order["shipments"][0]["status"], "processing", "{order}");
}

/// The whole check of one fixture.
async fn upgrade(name: &str, booked: &[&str]) -> (TestApp, Fixture) {
    let fixture = Fixture::load(name);
    let app = fixture.start().await;
    reads_every_resource_back(&app, &fixture).await;
    assert_eq!(
        booked_parcels_have_their_labels_numbers(&app, &fixture).await,
        booked
    );
    let booked3 = app
        .get(
            &fixture.org_path(&format!("/shipments/{}", fixture.fact("shipment_booked3"))),
            &fixture.fact("owner_token"),
        )
        .await
        .expect(200);
    let number = booked3["tracking"]["number"].as_str().expect("number");
    assert!(number.starts_with("SBX"), "{number}");
    assert_eq!(
        booked3["parcels"]
            .as_array()
            .expect("parcels")
            .iter()
            .map(|p| p["trackingNumber"].clone())
            .collect::<Vec<_>>(),
        [json!(number), json!(number), json!(number)]
    );
    let manual = fixture.fact("shipment_manual");
    let manual = app
        .get(
            &fixture.org_path(&format!("/shipments/{manual}")),
            &fixture.fact("owner_token"),
        )
        .await
        .expect(200);
    assert_eq!(manual["tracking"]["number"], "OWN-000123");
    assert_eq!(manual["parcels"][1]["trackingNumber"], "OWN-000123");
    documents_are_the_same_files(&app, &fixture).await;
    credentials_and_boundaries_hold(&app, &fixture).await;
    old_shipments_are_found_by_tracking_number(&app, &fixture).await;
    workbench_shows_the_old_data(&app, &fixture).await;
    shopify_channel_keeps_its_secret(&app, &fixture).await;
    migrated_data_takes_writes(&app, &fixture).await;
    (app, fixture)
}

/// The shipments both fixtures booked (`make.sh`), by reference.
const BOOKED: [&str; 7] = [
    "1001",
    "BOOK-3P",
    "CANC-1",
    "MAN-2P",
    "RETURN-THERM-1",
    "RULE-1",
    "THERM-1",
];

#[tokio::test]
async fn upgrade_from_before_events_and_webhooks_keeps_every_resource() {
    let (app, fixture) = upgrade(BEFORE_EVENTS, &BOOKED).await;
    // That release had no secret key; the current one makes one on first start.
    assert!(!fixture.dir.join("secret.key").exists());
    assert!(app.dir.path().join("data/secret.key").exists());
}

#[tokio::test]
async fn upgrade_from_before_per_parcel_tracking_numbers_keeps_every_resource() {
    let (app, fixture) = upgrade(BEFORE_PARCEL_NUMBERS, &BOOKED).await;
    // Webhook secrets were sealed with the fixture's key: they open (the answers compared them),
    // and a test delivery is signed and logged.
    let hook = fixture.fact("webhook");
    let webhook = app
        .get(
            &fixture.org_path(&format!("/webhooks/{hook}")),
            &fixture.fact("owner_token"),
        )
        .await
        .expect(200);
    assert_eq!(webhook["secret"], fixture.fact("webhook_secret"));
    assert_eq!(webhook["isActive"], false);
    let deliveries = app
        .get(
            &fixture.org_path(&format!("/webhooks/{hook}/deliveries?limit=100")),
            &fixture.fact("owner_token"),
        )
        .await
        .expect(200);
    let old = fixture.answer(&fixture.org_path(&format!("/webhooks/{hook}/deliveries?limit=100")));
    assert_eq!(deliveries["total"], old["total"]);
    assert!(old["total"].as_u64().unwrap_or(0) >= 5, "{old}");
}

/// V21 on PostgreSQL, on the rows an old release wrote (copied as they were, into a database
/// made by V1 to V20), numbers the parcels as V21 on SQLite does: the same bodies, shipment by
/// shipment. PostgreSQL storage came after per-parcel numbers, so only this test gives its V21
/// rows to change. Needs `SHIPBASE_TEST_POSTGRES`; without it there is nothing to run on.
#[test]
fn v21_on_postgresql_numbers_the_parcels_as_on_sqlite() {
    let Some(server) = crate::helpers::postgres_server() else {
        eprintln!("SHIPBASE_TEST_POSTGRES is not set: this PostgreSQL test has nothing to run on");
        return;
    };
    let fixture = Fixture::load(BEFORE_PARCEL_NUMBERS);
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("shipbase.db");
    std::fs::copy(fixture.dir.join("shipbase.db"), &copy).expect("copy");
    let old = rusqlite::Connection::open(&copy).expect("open");
    let read = |sql: &str, columns: usize| -> Vec<Vec<rusqlite::types::Value>> {
        let mut stmt = old.prepare(sql).expect("prepare");
        stmt.query_map([], |r| (0..columns).map(|i| r.get(i)).collect())
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("rows")
    };
    let orgs = read("SELECT id, name, slug, created_at, updated_at FROM orgs", 5);
    let addresses = read(
        "SELECT id, org_id, name, att_contact, address1, zipcode, city, phone, country_code, state,
                email, created_at, updated_at FROM sender_addresses",
        13,
    );
    let shipments = read(
        "SELECT id, org_id, reference, sender_address_id, type, status, term_of_trade, body,
                created_at, updated_at FROM shipments",
        10,
    );
    let documents = read(
        "SELECT id, org_id, shipment_id, document_type, format, size, content, created_at,
                updated_at FROM documents",
        9,
    );
    drop(old);
    let migrated = shipbase::store::migrate_file(&copy).expect("SQLite migrates");
    assert!(migrated.contains(&"V21__parcel_tracking_numbers".to_string()));
    let sqlite = rusqlite::Connection::open(&copy).expect("open");
    let sqlite_bodies: BTreeMap<String, Value> = sqlite
        .prepare("SELECT id, body FROM shipments")
        .expect("prepare")
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .expect("query")
        .map(|row| {
            let (id, body) = row.expect("row");
            (id, serde_json::from_str(&body).expect("JSON"))
        })
        .collect();

    let db = crate::helpers::new_postgres_database(&server);
    let url = db.url.split('?').next().unwrap_or(&db.url).to_string();
    let mut pg = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let mut files: Vec<(u32, PathBuf)> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/postgres"))
            .expect("migrations")
            .map(|e| {
                let path = e.expect("entry").path();
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                let version = name[1..name.find("__").expect("V<n>__")]
                    .parse()
                    .expect("a version");
                (version, path)
            })
            .collect();
    files.sort();
    let (earlier, v21): (Vec<_>, Vec<_>) = files.into_iter().partition(|(v, _)| *v < 21);
    for (_, file) in &earlier {
        pg.batch_execute(&std::fs::read_to_string(file).expect("sql"))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
    let text = |v: &rusqlite::types::Value| match v {
        rusqlite::types::Value::Text(t) => t.clone(),
        other => panic!("not text: {other:?}"),
    };
    let insert = |pg: &mut postgres::Client, sql: &str, rows: &[Vec<rusqlite::types::Value>]| {
        for row in rows {
            let params: Vec<Box<dyn postgres::types::ToSql + Sync>> = row
                .iter()
                .map(|v| -> Box<dyn postgres::types::ToSql + Sync> {
                    match v {
                        rusqlite::types::Value::Blob(b) => Box::new(b.clone()),
                        other => Box::new(text(other)),
                    }
                })
                .collect();
            let refs: Vec<&(dyn postgres::types::ToSql + Sync)> =
                params.iter().map(|p| p.as_ref()).collect();
            pg.execute(sql, &refs)
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    };
    insert(
        &mut pg,
        "INSERT INTO orgs (id, name, slug, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)",
        &orgs,
    );
    insert(
        &mut pg,
        "INSERT INTO sender_addresses (id, org_id, name, att_contact, address1, zipcode, city, phone,
                                       country_code, state, email, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        &addresses,
    );
    insert(
        &mut pg,
        "INSERT INTO shipments (id, org_id, reference, sender_address_id, type, status,
                                term_of_trade, body, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        &shipments,
    );
    insert(
        &mut pg,
        "INSERT INTO documents (id, org_id, shipment_id, document_type, format, size, content,
                                created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        &documents,
    );
    let sql = std::fs::read_to_string(&v21[0].1).expect("V21");
    pg.batch_execute(&sql).expect("V21 runs on PostgreSQL");

    let mut numbered = 0;
    for row in pg
        .query("SELECT id, body, updated_at FROM shipments", &[])
        .expect("shipments")
    {
        let id: String = row.get(0);
        let body: Value = serde_json::from_str(row.get(1)).expect("JSON");
        assert_eq!(Some(&body), sqlite_bodies.get(&id), "{id}");
        let updated: String = row.get(2);
        let before = shipments
            .iter()
            .find(|s| text(&s[0]) == id)
            .expect("the row");
        assert_eq!(updated, text(&before[9]), "{id} keeps its updated_at");
        if body["parcels"][0]["trackingNumber"].is_string() {
            numbered += 1;
        }
    }
    assert_eq!(numbered, BOOKED.len());
}
