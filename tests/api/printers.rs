//! Printers and print jobs (DESIGN §17): the resource and its checks, rules that print on them,
//! and booking's print jobs sent to a raw 9100 listener and to an IPP printer simulator
//! (ippeveprinter), retried and then failed when nothing answers, never failing the booking.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use tokio::{io::AsyncReadExt, net::TcpListener};

use crate::{
    fixtures::{Shop, assert_id, carrier_body, id_of, rule_body},
    helpers::error_fields,
};

pub(crate) const LOOPBACK: &str = "[printers]\nallow_loopback = true\nretry_scale = 0.001\n";

pub(crate) fn printers(shop: &Shop) -> String {
    format!("/orgs/{}/printers", shop.org.id)
}

pub(crate) async fn create_printer(shop: &Shop, body: Value) -> Value {
    shop.app
        .post(&printers(shop), &shop.org.token, body)
        .await
        .expect(201)
}

/// A raw printer on a loopback port that keeps every job it receives, in the order it has
/// read them whole. Like a real one it takes a moment over each job (20 ms before reading); it
/// counts how many connections it had open at once.
pub(crate) struct RawPrinter {
    pub(crate) port: u16,
    jobs: Arc<Mutex<Vec<Vec<u8>>>>,
    /// (open now, most open at once)
    open: Arc<Mutex<(usize, usize)>>,
}

impl RawPrinter {
    pub(crate) async fn start() -> RawPrinter {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let jobs = Arc::new(Mutex::new(Vec::new()));
        let open = Arc::new(Mutex::new((0, 0)));
        let (kept, counted) = (jobs.clone(), open.clone());
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let (kept, counted) = (kept.clone(), counted.clone());
                tokio::spawn(async move {
                    {
                        let mut open = counted.lock().unwrap();
                        open.0 += 1;
                        open.1 = open.1.max(open.0);
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let mut job = Vec::new();
                    if socket.read_to_end(&mut job).await.is_ok() {
                        kept.lock().unwrap().push(job);
                    }
                    counted.lock().unwrap().0 -= 1;
                });
            }
        });
        RawPrinter { port, jobs, open }
    }

    pub(crate) fn jobs(&self) -> Vec<Vec<u8>> {
        self.jobs.lock().unwrap().clone()
    }

    /// The most connections it had open at once.
    pub(crate) fn most_open(&self) -> usize {
        self.open.lock().unwrap().1
    }
}

/// Polls the printer's jobs until `done` holds for them (at most 60 s).
pub(crate) async fn jobs_until(
    shop: &Shop,
    printer_id: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let path = format!("{}/{printer_id}/jobs?limit=100", printers(shop));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let page = shop.app.get(&path, &shop.org.token).await.expect(200);
        let jobs = page["data"].as_array().cloned().unwrap_or_default();
        if done(&jobs) || Instant::now() > deadline {
            return jobs;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A pending shipment that applied a rule printing on `label_printer` / `document_printer`.
async fn shipment_with_printing_rule(
    shop: &Shop,
    label_printer: Option<&str>,
    document_printer: Option<&str>,
) -> String {
    shipment_of_parcels_with_printing_rule(shop, 1, label_printer, document_printer).await
}

/// As `shipment_with_printing_rule`, with `parcels` parcels of different weights.
async fn shipment_of_parcels_with_printing_rule(
    shop: &Shop,
    parcels: usize,
    label_printer: Option<&str>,
    document_printer: Option<&str>,
) -> String {
    let mut rule = rule_body(&id_of(&shop.carrier), &id_of(&shop.address));
    if let Some(printer) = label_printer {
        rule["autoPrintLabels"] = json!(true);
        rule["labelPrinterId"] = json!(printer);
    }
    if let Some(printer) = document_printer {
        rule["autoPrintDocuments"] = json!(true);
        rule["documentPrinterId"] = json!(printer);
        rule["generatePackingList"] = json!(true);
    }
    let rule = shop.app.create_rule(&shop.org, rule).await;
    let parcels: Vec<Value> = (1..=parcels)
        .map(|n| json!({"weight": n as f64 / 10.0}))
        .collect();
    let id = id_of(&shop.create(shop.body_with("pending", json!(parcels))).await);
    shop.post(
        &id,
        "/apply-shipping-rule",
        json!({"shippingRuleId": id_of(&rule)}),
    )
    .await
    .expect(200);
    id
}

#[tokio::test]
async fn a_printer_is_created_read_listed_replaced_and_deleted() {
    let shop = Shop::new().await;
    let body = json!({"name": "Packing desk", "kind": "raw", "address": "192.168.1.50:9100", "format": "zpl"});
    let printer = create_printer(&shop, body.clone()).await;
    assert_id(&printer["id"], "prn");
    for key in ["name", "kind", "address", "format"] {
        assert_eq!(printer[key], body[key], "{key}");
    }
    assert_eq!(printer["orgId"], json!(shop.org.id));
    let path = format!("{}/{}", printers(&shop), id_of(&printer));
    assert_eq!(
        shop.app.get(&path, &shop.org.token).await.expect(200),
        printer
    );
    let page = shop
        .app
        .get(&printers(&shop), &shop.org.token)
        .await
        .expect(200);
    assert_eq!(
        (page["total"].as_u64(), page["data"][0]["id"].clone()),
        (Some(1), printer["id"].clone())
    );

    let ipp = json!({"name": "Office", "kind": "ipp", "address": "ipp://10.0.0.7/ipp/print", "format": "pdf"});
    let replaced = shop.app.put(&path, &shop.org.token, ipp).await.expect(200);
    assert_eq!(
        (&replaced["kind"], &replaced["address"]),
        (&json!("ipp"), &json!("ipp://10.0.0.7/ipp/print"))
    );
    assert_eq!(replaced["createdAt"], printer["createdAt"]);

    shop.app.delete(&path, &shop.org.token).await.expect(200);
    shop.app
        .get(&path, &shop.org.token)
        .await
        .problem(404, "not_found");
    shop.app
        .get(&format!("{path}/jobs"), &shop.org.token)
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn a_raw_printer_without_a_port_is_taken_as_port_9100() {
    let shop = Shop::new().await;
    for address in ["192.168.1.51", "[fd00::7]", "printer.local"] {
        let body = json!({"name": "Desk", "kind": "raw", "address": address, "format": "zpl"});
        let created = shop
            .app
            .post(&printers(&shop), &shop.org.token, body)
            .await
            .expect(201);
        assert_eq!(created["address"], address);
    }
}

#[tokio::test]
async fn bad_printers_are_refused_naming_the_field() {
    let shop = Shop::new().await;
    for (body, field) in [
        (
            json!({"name": "A", "kind": "fax", "address": "10.0.0.1:9100", "format": "pdf"}),
            "kind",
        ),
        (
            json!({"name": "A", "kind": "raw", "address": "10.0.0.1:9100", "format": "png"}),
            "format",
        ),
        (
            json!({"name": "A", "kind": "raw", "address": "10.0.0.1:0", "format": "pdf"}),
            "address",
        ),
        (
            json!({"name": "A", "kind": "ipp", "address": "ftp://10.0.0.1/p", "format": "pdf"}),
            "address",
        ),
        (
            json!({"name": "A", "kind": "ipp", "address": "ipp://10.0.0.1/p", "format": "zpl"}),
            "format",
        ),
        (
            json!({"name": "", "kind": "raw", "address": "10.0.0.1:9100", "format": "pdf"}),
            "name",
        ),
        // Loopback only when printers.allow_loopback is set; link-local never.
        (
            json!({"name": "A", "kind": "raw", "address": "127.0.0.1:9100", "format": "pdf"}),
            "address",
        ),
        (
            json!({"name": "A", "kind": "ipp", "address": "http://169.254.169.254/", "format": "pdf"}),
            "address",
        ),
    ] {
        let problem = shop
            .app
            .post(&printers(&shop), &shop.org.token, body.clone())
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), [field], "{body}: {problem}");
    }
}

#[tokio::test]
async fn cloud_metadata_services_are_never_printers() {
    // Even with loopback allowed, no cloud's metadata service, IPv4 or IPv6, link-local or not.
    let shop = Shop::with_config(LOOPBACK).await;
    for address in [
        ("raw", "169.254.169.254:80"),
        ("raw", "100.100.100.200:80"),
        ("raw", "168.63.129.16:80"),
        ("raw", "192.0.0.192:80"),
        ("raw", "[fd00:ec2::254]:80"),
        ("raw", "[fd20:ce::254]:80"),
        ("raw", "[::ffff:169.254.169.254]:80"),
        ("ipp", "ipp://100.100.100.200/latest/meta-data"),
        ("ipp", "http://[fd00:ec2::254]/latest/meta-data"),
    ] {
        let (kind, address) = address;
        let body = json!({"name": "Metadata", "kind": kind, "address": address, "format": "pdf"});
        let problem = shop
            .app
            .post(&printers(&shop), &shop.org.token, body)
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), ["address"], "{address}: {problem}");
        assert!(
            problem.to_string().contains("cloud metadata")
                || problem.to_string().contains("link-local"),
            "{address}: {problem}"
        );
    }
}

#[tokio::test]
async fn allowed_networks_narrow_where_printers_may_be() {
    let shop = Shop::with_config("[printers]\nallowed_networks = [\"10.20.0.0/16\"]").await;
    let body =
        |address: &str| json!({"name": "Desk", "kind": "raw", "address": address, "format": "pdf"});
    shop.app
        .post(&printers(&shop), &shop.org.token, body("10.20.3.4:9100"))
        .await
        .expect(201);
    let refused = shop
        .app
        .post(&printers(&shop), &shop.org.token, body("192.168.1.50:9100"))
        .await
        .problem(400, "validation_failed");
    assert!(
        refused.to_string().contains("printers.allowed_networks"),
        "{refused}"
    );
}

#[tokio::test]
async fn printer_scopes_are_their_own() {
    let shop = Shop::new().await;
    let reader = shop.app.create_token(&shop.org, "read:printers");
    let body = json!({"name": "A", "kind": "raw", "address": "10.0.0.1:9100", "format": "pdf"});
    shop.app
        .post(&printers(&shop), &reader, body.clone())
        .await
        .problem(403, "insufficient_scope");
    shop.app.get(&printers(&shop), &reader).await.expect(200);
    let carriers_only = shop
        .app
        .create_token(&shop.org, "write:carriers read:carriers");
    shop.app
        .get(&printers(&shop), &carriers_only)
        .await
        .problem(403, "insufficient_scope");
    let writer = shop.app.create_token(&shop.org, "write:printers");
    shop.app
        .post(&printers(&shop), &writer, body)
        .await
        .expect(201);
}

#[tokio::test]
async fn rules_show_their_printers_and_keep_them_from_being_deleted() {
    let shop = Shop::new().await;
    let label = create_printer(
        &shop,
        json!({"name": "Labels", "kind": "raw", "address": "10.0.0.2:9100", "format": "pdf"}),
    )
    .await;
    let office = create_printer(&shop, json!({"name": "Office", "kind": "ipp", "address": "ipp://10.0.0.3/ipp/print", "format": "pdf"})).await;
    let mut body = rule_body(&id_of(&shop.carrier), &id_of(&shop.address));
    body["autoPrintLabels"] = json!(true);
    body["labelPrinterId"] = label["id"].clone();
    body["documentPrinterId"] = office["id"].clone();
    let rule = shop.app.create_rule(&shop.org, body.clone()).await;
    assert_eq!(
        rule["labelPrinter"],
        json!({"id": label["id"], "name": "Labels"})
    );
    assert_eq!(
        rule["documentPrinter"],
        json!({"id": office["id"], "name": "Office"})
    );
    assert_eq!(rule["labelPrinterId"], label["id"]);

    let path = format!("{}/{}", printers(&shop), id_of(&label));
    let problem = shop
        .app
        .delete(&path, &shop.org.token)
        .await
        .problem(409, "conflict");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("Standard DK"),
        "{problem}"
    );

    let rules = format!("/orgs/{}/shipping-rules", shop.org.id);
    let mut unknown = body.clone();
    unknown["labelPrinterId"] = json!("prn_01ARZ3NDEKTSV4RRFFQ69G5FAV");
    let problem = shop
        .app
        .post(&rules, &shop.org.token, unknown)
        .await
        .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["labelPrinterId"]);
    let mut without = body.clone();
    without["labelPrinterId"] = Value::Null;
    let problem = shop
        .app
        .post(&rules, &shop.org.token, without)
        .await
        .problem(400, "validation_failed");
    assert_eq!(
        error_fields(&problem),
        ["labelPrinterId"],
        "autoPrintLabels needs a printer"
    );

    // Another organization's printer is unknown here.
    let other = shop.app.create_org();
    let theirs = shop
        .app
        .post(
            &format!("/orgs/{}/printers", other.id),
            &other.token,
            json!({"name": "Theirs", "kind": "raw", "address": "10.0.0.9:9100", "format": "pdf"}),
        )
        .await
        .expect(201);
    shop.app
        .get(
            &format!("{}/{}", printers(&shop), id_of(&theirs)),
            &shop.org.token,
        )
        .await
        .problem(404, "not_found");
    let mut foreign = body;
    foreign["labelPrinterId"] = theirs["id"].clone();
    let problem = shop
        .app
        .post(&rules, &shop.org.token, foreign)
        .await
        .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["labelPrinterId"]);
}

#[tokio::test]
async fn booking_prints_the_labels_on_the_rules_raw_printer() {
    let shop = Shop::with_config(LOOPBACK).await;
    let socket = RawPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": format!("127.0.0.1:{}", socket.port), "format": "pdf"}),
    )
    .await;
    let id = shipment_with_printing_rule(&shop, Some(&id_of(&printer)), None).await;
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let label = &booked["documents"][0];
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.iter().all(|j| j["status"] == "printed") && !jobs.is_empty()
    })
    .await;
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    let job = &jobs[0];
    assert_id(&job["id"], "pjb");
    assert_eq!(
        (
            &job["status"],
            &job["attempts"],
            &job["documentId"],
            &job["shipmentId"],
            &job["error"]
        ),
        (
            &json!("printed"),
            &json!(1),
            &label["id"],
            &json!(id),
            &Value::Null
        )
    );
    let content = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        label["content"].as_str().unwrap(),
    )
    .unwrap();
    assert_eq!(
        socket.jobs(),
        [content],
        "the printer got the label's bytes"
    );
}

/// The bytes of each of a booked shipment's documents of `kind`, in their order.
fn contents(booked: &Value, kind: &str) -> Vec<Vec<u8>> {
    booked["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["documentType"] == kind)
        .map(|d| {
            base64::Engine::decode(
                &base64::engine::general_purpose::STANDARD,
                d["content"].as_str().unwrap(),
            )
            .unwrap()
        })
        .collect()
}

#[tokio::test]
async fn a_printer_gets_a_bookings_labels_one_at_a_time_in_parcel_order() {
    let shop = Shop::with_config(LOOPBACK).await;
    let socket = RawPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": format!("127.0.0.1:{}", socket.port), "format": "pdf"}),
    )
    .await;
    let id = shipment_of_parcels_with_printing_rule(&shop, 10, Some(&id_of(&printer)), None).await;
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.len() == 10 && jobs.iter().all(|j| j["status"] == "printed")
    })
    .await;
    assert!(jobs.iter().all(|j| j["status"] == "printed"), "{jobs:?}");
    assert_eq!(socket.most_open(), 1, "one job at a time");
    let labels = contents(&booked, "label");
    assert_eq!(labels.len(), 10);
    let received = socket.jobs();
    assert_eq!(received.len(), 10);
    for (n, (got, label)) in received.iter().zip(&labels).enumerate() {
        assert!(
            got == label,
            "the printer's job {} is not parcel {}'s label",
            n + 1,
            n + 1
        );
    }
}

#[tokio::test]
async fn a_dead_printer_fails_its_job_after_three_retries_and_never_the_booking() {
    let shop = Shop::with_config(LOOPBACK).await;
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let printer = create_printer(
        &shop,
        json!({"name": "Unplugged", "kind": "raw", "address": format!("127.0.0.1:{port}"), "format": "pdf"}),
    )
    .await;
    let id = shipment_with_printing_rule(&shop, Some(&id_of(&printer)), None).await;
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    assert_eq!(booked["status"], "processing");
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.iter().any(|j| j["status"] == "failed")
    })
    .await;
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(
        (&jobs[0]["status"], &jobs[0]["attempts"]),
        (&json!("failed"), &json!(4))
    );
    assert!(
        jobs[0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("the printer refused the connection"),
        "{jobs:?}"
    );
    assert_eq!(shop.get(&id).await["status"], "processing");
}

#[tokio::test]
async fn a_rule_whose_printer_cannot_take_the_carriers_labels_is_refused() {
    let shop = Shop::new().await;
    let thermal = create_printer(
        &shop,
        json!({"name": "Thermal", "kind": "raw", "address": "10.0.0.2:9100", "format": "zpl"}),
    )
    .await;
    let office = create_printer(
        &shop,
        json!({"name": "Office", "kind": "raw", "address": "10.0.0.3:9100", "format": "pdf"}),
    )
    .await;
    let rules = format!("/orgs/{}/shipping-rules", shop.org.id);
    let rule = |label: &Value, document: &Value| {
        let mut body = rule_body(&id_of(&shop.carrier), &id_of(&shop.address));
        body["autoPrintLabels"] = json!(true);
        body["labelPrinterId"] = label["id"].clone();
        body["documentPrinterId"] = document["id"].clone();
        body
    };
    // The shop's carrier makes PDF labels: a ZPL label printer would fail every job.
    let problem = shop
        .app
        .post(&rules, &shop.org.token, rule(&thermal, &office))
        .await
        .problem(409, "conflict");
    assert_eq!(
        problem["detail"],
        "labelPrinterId: printer Thermal takes zpl, but the carrier's labels are pdf"
    );
    // Customs documents and packing lists are PDF.
    let problem = shop
        .app
        .post(&rules, &shop.org.token, rule(&office, &thermal))
        .await
        .problem(409, "conflict");
    assert_eq!(
        problem["detail"],
        "documentPrinterId: printer Thermal takes zpl, but customs documents and packing lists are pdf"
    );
    shop.app
        .post(&rules, &shop.org.token, rule(&office, &office))
        .await
        .expect(201);

    // A carrier of ZPL labels pairs with the thermal printer, and not with the office one.
    let mut zpl = carrier_body(&id_of(&shop.address));
    zpl["config"]["labelFormat"] = json!("zpl");
    let zpl_carrier = shop.app.create_carrier_with(&shop.org, zpl).await;
    let mut body = rule(&thermal, &office);
    body["carrierId"] = zpl_carrier["id"].clone();
    shop.app
        .post(&rules, &shop.org.token, body.clone())
        .await
        .expect(201);
    body["labelPrinterId"] = office["id"].clone();
    shop.app
        .post(&rules, &shop.org.token, body)
        .await
        .problem(409, "conflict");
}

#[tokio::test]
async fn a_printer_changed_to_another_format_refuses_the_documents_at_once() {
    // Rules are checked when saved; a printer changed afterwards still never gets bytes it
    // cannot print.
    let shop = Shop::with_config(LOOPBACK).await;
    let socket = RawPrinter::start().await;
    let body = |format: &str| json!({"name": "Thermal", "kind": "raw", "address": format!("127.0.0.1:{}", socket.port), "format": format});
    let printer = create_printer(&shop, body("pdf")).await;
    let id = shipment_with_printing_rule(&shop, Some(&id_of(&printer)), None).await;
    shop.app
        .put(
            &format!("{}/{}", printers(&shop), id_of(&printer)),
            &shop.org.token,
            body("zpl"),
        )
        .await
        .expect(200);
    shop.app.book_shipment(&shop.org, &id).await;
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.iter().any(|j| j["status"] == "failed")
    })
    .await;
    assert_eq!(
        (&jobs[0]["status"], &jobs[0]["attempts"]),
        (&json!("failed"), &json!(1))
    );
    assert!(
        jobs[0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("takes zpl"),
        "{jobs:?}"
    );
    assert!(socket.jobs().is_empty());
}

/// ippeveprinter (Debian's cups-ipp-utils) on a loopback port, keeping the jobs it prints in
/// `spool`.
struct IppPrinter {
    child: std::process::Child,
    port: u16,
    spool: tempfile::TempDir,
    _keys: tempfile::TempDir,
}

impl IppPrinter {
    async fn start() -> IppPrinter {
        let spool = tempfile::tempdir().unwrap();
        let keys = tempfile::tempdir().unwrap();
        let log = tempfile::NamedTempFile::new().unwrap();
        let port = {
            // ippeveprinter listens on IPv4 and IPv6: a port free on both (a dual-stack bind).
            let listener = std::net::TcpListener::bind("[::]:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let child = std::process::Command::new("ippeveprinter")
            .args([
                "-p",
                &port.to_string(),
                "-n",
                "localhost",
                "-k",
                "-f",
                "application/pdf",
                // It makes itself a certificate there and takes IPPS on the same port.
                "-K",
            ])
            .arg(keys.path())
            .arg("-d")
            .arg(spool.path())
            .arg("Shipbase Test")
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(log.path()).unwrap())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("ippeveprinter is needed (apt-get install cups-ipp-utils): {e}")
            });
        let deadline = Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                Instant::now() < deadline,
                "ippeveprinter did not start (it needs avahi-daemon running, as .ci/run starts it): {}",
                std::fs::read_to_string(log.path()).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        IppPrinter {
            child,
            port,
            spool,
            _keys: keys,
        }
    }

    /// The PDF files spooled so far, in the order the printer took them (its job ids).
    fn printed(&self) -> Vec<Vec<u8>> {
        let mut files = walk(self.spool.path());
        files.sort_by_key(|p| job_number(p));
        files
            .into_iter()
            .filter_map(|p| std::fs::read(p).ok())
            .filter(|bytes| bytes.starts_with(b"%PDF-"))
            .collect()
    }
}

/// The job id that ippeveprinter's spool file names start with (`<job-id>-<title>.pdf`).
fn job_number(path: &std::path::Path) -> u64 {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(u64::MAX)
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

impl Drop for IppPrinter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn an_ipp_printer_that_answers_busy_is_waited_for_and_gets_every_label_in_order() {
    let shop = Shop::with_config(LOOPBACK).await;
    let ipp = IppPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Office", "kind": "ipp", "address": format!("ipp://127.0.0.1:{}/ipp/print", ipp.port), "format": "pdf"}),
    )
    .await;
    let id = shipment_of_parcels_with_printing_rule(&shop, 4, Some(&id_of(&printer)), None).await;
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.len() == 4 && jobs.iter().all(|j| j["status"] != "queued")
    })
    .await;
    // A printer busy with the previous label is waited for: no attempt is counted for it.
    for job in &jobs {
        assert_eq!(
            (&job["status"], &job["attempts"], &job["error"]),
            (&json!("printed"), &json!(1), &Value::Null),
            "{jobs:?}"
        );
    }
    let labels = contents(&booked, "label");
    let deadline = Instant::now() + Duration::from_secs(10);
    while ipp.printed().len() < 4 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        ipp.printed() == labels,
        "the simulator spooled the 4 labels in parcel order"
    );
}

#[tokio::test]
async fn booking_prints_documents_on_an_ipp_printer() {
    prints_documents_on_an_ipp_printer("ipp").await;
}

#[tokio::test]
async fn booking_prints_documents_on_an_ipps_printer_with_its_own_certificate() {
    prints_documents_on_an_ipp_printer("ipps").await;
}

async fn prints_documents_on_an_ipp_printer(scheme: &str) {
    let shop = Shop::with_config(LOOPBACK).await;
    let ipp = IppPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Office", "kind": "ipp", "address": format!("{scheme}://127.0.0.1:{}/ipp/print", ipp.port), "format": "pdf"}),
    )
    .await;
    let id = shipment_with_printing_rule(&shop, None, Some(&id_of(&printer))).await;
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let packing = booked["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["documentType"] == "packing_list")
        .cloned()
        .expect("a packing list");
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        !jobs.is_empty() && jobs.iter().all(|j| j["status"] != "queued")
    })
    .await;
    assert_eq!(
        jobs.len(),
        1,
        "only the packing list goes to the document printer: {jobs:?}"
    );
    assert_eq!(
        (&jobs[0]["status"], &jobs[0]["documentId"]),
        (&json!("printed"), &packing["id"]),
        "{jobs:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while ipp.printed().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let content = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        packing["content"].as_str().unwrap(),
    )
    .unwrap();
    assert_eq!(
        ipp.printed(),
        [content],
        "the simulator spooled the packing list"
    );
}

#[tokio::test]
async fn a_booked_shipments_labels_are_printed_on_request_in_parcel_order() {
    let shop = Shop::with_config(LOOPBACK).await;
    let socket = RawPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": format!("127.0.0.1:{}", socket.port), "format": "pdf"}),
    )
    .await;
    let body = shop.body_with(
        "pending",
        json!([{"weight": 1.0}, {"weight": 2.0}, {"weight": 3.0}]),
    );
    let id = id_of(&shop.create(body).await);
    let print = json!({"printerId": id_of(&printer)});

    // Nothing to print before booking.
    shop.post(&id, "/print", print.clone())
        .await
        .problem(409, "invalid_state");
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let answer = shop.post(&id, "/print", print.clone()).await.expect(200);
    let jobs = answer["printJobs"].as_array().cloned().unwrap_or_default();
    let labels = contents(&booked, "label");
    assert_eq!(jobs.len(), 3, "{answer}");
    for (job, label) in jobs.iter().zip(booked["documents"].as_array().unwrap()) {
        assert_eq!(
            (&job["status"], &job["documentId"], &job["printerId"]),
            (&json!("queued"), &label["id"], &printer["id"])
        );
    }
    jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.len() == 3 && jobs.iter().all(|j| j["status"] == "printed")
    })
    .await;
    assert!(socket.jobs() == labels, "the three labels, in parcel order");

    // Checked like any body: the printer must be the organization's, the type one it has.
    let problem = shop
        .post(
            &id,
            "/print",
            json!({"printerId": "prn_01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
        )
        .await
        .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["printerId"]);
    let problem = shop
        .post(
            &id,
            "/print",
            json!({"printerId": id_of(&printer), "documentType": "poster"}),
        )
        .await
        .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["documentType"]);
    shop.post(
        &id,
        "/print",
        json!({"printerId": id_of(&printer), "documentType": "packing_list"}),
    )
    .await
    .problem(409, "invalid_state");
    // A reader may not print (printing counts as write:shipments).
    let reader = shop.app.create_token(&shop.org, "read:all");
    shop.app
        .post(&shop.path(&id, "/print"), &reader, print)
        .await
        .problem(403, "insufficient_scope");
}
