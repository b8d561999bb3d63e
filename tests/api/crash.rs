//! Crash safety: the server is killed with SIGKILL in the middle of a write load and started
//! again on the same data directory. Every write that was acknowledged with a 2xx must be there,
//! the database must pass `PRAGMA integrity_check`, and the kept counts must agree with the rows.

use std::{
    io::{BufRead, BufReader},
    path::Path,
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::fixtures::shipment_body;

/// A `shipbase serve` process on an OS-assigned port; killed with SIGKILL when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    /// Starts the binary on `data_dir` and waits (with a deadline) for its readiness line.
    fn start(data_dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shipbase"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .env_remove("SHIPBASE_CONFIG")
            .env("SHIPBASE_LOG__LEVEL", "info")
            .env("SHIPBASE_LIMITS__RATE_PER_SECOND", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn shipbase serve");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        std::thread::spawn(move || {
            // Keeps draining after the start: a closed pipe would end the server.
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut log = Vec::new();
        let base = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no readiness line in 30 s: {log:?}"));
            if line.contains("shipbase is serving")
                && let Some(at) = line.find("http://127.0.0.1:")
            {
                let rest = &line[at..];
                let end = rest
                    .find(|c: char| c != ':' && c != '/' && c != '.' && !c.is_alphanumeric())
                    .unwrap_or(rest.len());
                break rest[..end].to_string();
            }
            log.push(line);
        };
        Server { child, base }
    }

    fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reap");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn cli(data_dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_shipbase"))
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("SHIPBASE_CONFIG")
        .output()
        .expect("run shipbase");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

async fn post(client: &reqwest::Client, url: String, token: &str, body: &Value) -> (u16, Value) {
    match client.post(url).bearer_auth(token).json(body).send().await {
        Ok(resp) => {
            let status = resp.status().as_u16();
            (status, resp.json().await.unwrap_or(Value::Null))
        }
        // The server died under the request: not acknowledged.
        Err(err) => (0, json!(err.to_string())),
    }
}

#[tokio::test]
async fn every_acknowledged_write_survives_sigkill_and_the_database_stays_sound() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let created = cli(
        &data,
        &[
            "org",
            "create",
            "--name",
            "Crash",
            "--slug",
            "crash",
            "--email",
            "crash@example.com",
            "--user-name",
            "Crash",
            "--json",
            "--init",
        ],
    );
    let token = created["token"].as_str().expect("token").to_string();
    let org = created["org"]["id"].as_str().expect("org id").to_string();
    let server = Server::start(&data);
    // No in-process app installs the TLS crypto provider here.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let orgs = format!("{}/orgs/{org}", server.base);
    let (status, address) = post(
        &client,
        format!("{orgs}/sender-addresses"),
        &token,
        &json!({"name": "Main", "attContact": "Mette", "address1": "Industrivej 12",
                "zipcode": "8000", "city": "Aarhus", "phone": "+4512345678",
                "countryCode": "DK", "state": "Midtjylland", "email": "w@example.com"}),
    )
    .await;
    assert_eq!(status, 201, "{address}");
    let address_id = address["id"].as_str().expect("id").to_string();
    let (status, carrier) = post(
        &client,
        format!("{orgs}/carriers"),
        &token,
        &json!({"name": "Sandbox", "carrierSlug": "sandbox", "config": {},
                "senderAddressId": address_id}),
    )
    .await;
    assert_eq!(status, 201, "{carrier}");
    let body = shipment_body(&address_id, carrier["id"].as_str().expect("id"));

    // Sixteen writers; each records the shipments the server acknowledged.
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut writers = Vec::new();
    for _ in 0..16 {
        let (client, url, token, body, acknowledged) = (
            client.clone(),
            format!("{orgs}/shipments"),
            token.clone(),
            body.clone(),
            acknowledged.clone(),
        );
        writers.push(tokio::spawn(async move {
            loop {
                let (status, shipment) = post(&client, url.clone(), &token, &body).await;
                match status {
                    201 => acknowledged
                        .lock()
                        .expect("lock")
                        .push(shipment["id"].as_str().expect("id").to_string()),
                    0 => break,
                    other => panic!("unexpected {other}: {shipment}"),
                }
            }
        }));
    }
    // Kill once a good number of writes went through, while the writers keep writing.
    let deadline = Instant::now() + Duration::from_secs(60);
    while acknowledged.lock().expect("lock").len() < 400 {
        assert!(Instant::now() < deadline, "too few writes in 60 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.kill();
    for writer in writers {
        writer.await.expect("writer");
    }
    let acknowledged = acknowledged.lock().expect("lock").clone();

    let sound: String = rusqlite::Connection::open(data.join("shipbase.db"))
        .expect("open")
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check");
    assert_eq!(sound, "ok");

    let server = Server::start(&data);
    let orgs = format!("{}/orgs/{org}", server.base);
    for id in &acknowledged {
        let resp = client
            .get(format!("{orgs}/shipments/{id}"))
            .bearer_auth(&token)
            .send()
            .await
            .expect("GET");
        assert_eq!(resp.status(), 200, "acknowledged shipment {id} is gone");
    }
    // The kept total (V9 counts) and a real count (a filter that bypasses them) agree.
    let total = |query: &'static str| {
        let (client, url, token) = (
            client.clone(),
            format!("{orgs}/shipments{query}"),
            token.clone(),
        );
        async move {
            let list: Value = client
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("list")
                .json()
                .await
                .expect("JSON");
            list["total"].as_u64().expect("total")
        }
    };
    let kept = total("").await;
    let counted = total("?createdFrom=2000-01-01T00:00:00Z").await;
    assert_eq!(kept, counted);
    assert!(
        kept >= acknowledged.len() as u64,
        "{kept} < {}",
        acknowledged.len()
    );
}
