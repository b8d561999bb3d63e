//! The command line (DESIGN §14, §16): exit status 0 on success, 2 on bad usage, 1 on any other
//! failure with one line on stderr.

use std::{
    io::{BufRead, BufReader},
    process::{Child, Command, Stdio},
    time::Duration,
};

use serde_json::{Value, json};
use shipbase::config::Config;
use time::{OffsetDateTime, format_description::well_known::Rfc3339};

use crate::helpers::{TestApp, assert_timestamp, is_id};

/// Asserts that a failure said exactly one thing on stderr.
#[track_caller]
fn assert_one_line(stderr: &str) {
    assert_eq!(stderr.lines().count(), 1, "stderr: {stderr:?}");
    assert!(!stderr.trim().is_empty());
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn scopes_of(record: &Value) -> Vec<String> {
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

#[tokio::test]
async fn org_create_json_prints_the_org_its_owner_and_an_owner_token() {
    let app = TestApp::spawn().await;
    let out = app.cli_json(&[
        "org",
        "create",
        "--name",
        "Acme Logistics",
        "--slug",
        "acme-logistics",
        "--email",
        "owner@acme.example.com",
        "--user-name",
        "Ada Owner",
        "--json",
    ]);
    let org_id = out["org"]["id"].as_str().unwrap_or_default().to_string();
    assert!(is_id("org", &org_id), "{out}");
    assert_eq!(out["org"]["name"], "Acme Logistics");
    assert_eq!(out["org"]["slug"], "acme-logistics");
    assert_eq!(out["org"]["currency"], "DKK");
    assert_timestamp(&out["org"]["createdAt"]);
    assert!(is_id("usr", out["user"]["id"].as_str().unwrap_or_default()));
    assert_eq!(out["user"]["email"], "owner@acme.example.com");
    assert_eq!(out["user"]["name"], "Ada Owner");
    assert_eq!(out["user"]["superAdmin"], true);
    let token = out["token"].as_str().unwrap_or_default();
    assert!(token.starts_with("shb_") && token.len() == 47, "{token}");

    app.get(&format!("/orgs/{org_id}"), token).await.expect(200);
    let listed = app.cli_json(&["token", "list", "--org", &org_id, "--json"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(scopes_of(&listed[0]), ["read:all", "write:all"]);
    assert_eq!(listed[0]["tokenPrefix"], &token[..12]);
}

#[tokio::test]
async fn token_create_takes_scopes_and_an_expiry() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let before = OffsetDateTime::now_utc();
    let out = app.cli_json(&[
        "token",
        "create",
        "--org",
        &org.id,
        "--name",
        "shop sync",
        "--scopes",
        "read:shipments write:orders",
        "--expires-in",
        "30d",
        "--json",
    ]);
    let after = OffsetDateTime::now_utc();
    let token = out["token"].as_str().unwrap_or_default();
    assert!(token.starts_with("shb_") && token.len() == 47, "{token}");
    let record = &out["apiToken"];
    assert!(is_id("tok", record["id"].as_str().unwrap_or_default()));
    assert_eq!(record["name"], "shop sync");
    assert_eq!(record["tokenPrefix"], &token[..12]);
    assert_eq!(scopes_of(record), ["read:shipments", "write:orders"]);
    assert_timestamp(&record["expiresAt"]);
    let expires = OffsetDateTime::parse(record["expiresAt"].as_str().unwrap_or_default(), &Rfc3339)
        .expect("expiresAt");
    let thirty_days = time::Duration::days(30);
    assert!(
        expires >= before + thirty_days - time::Duration::seconds(1)
            && expires <= after + thirty_days,
        "{expires} is not 30 days after {before}"
    );

    // The token authenticates: it lacks read:orgs, so the org is 403, not 401.
    app.get(&format!("/orgs/{}", org.id), token)
        .await
        .problem(403, "insufficient_scope");
}

#[tokio::test]
async fn token_create_with_unknown_scopes_or_a_bad_duration_exits_1() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    for extra in [
        ["--scopes", "read:everything"],
        ["--expires-in", "30"],
        ["--expires-in", "3w"],
        ["--expires-in", "0d"],
    ] {
        let mut args = vec!["token", "create", "--org", &org.id, "--name", "x"];
        args.extend(extra);
        assert_one_line(&app.cli_fails(&args, 1));
    }
    let stderr = app.cli_fails(
        &[
            "token",
            "create",
            "--org",
            &org.id,
            "--name",
            "x",
            "--scopes",
            "read:shipment fly:away",
        ],
        1,
    );
    assert_eq!(
        stderr.trim(),
        "error: unknown scopes: read:shipment (did you mean \"read:shipments\"?), fly:away"
    );
    let listed = app.cli_json(&["token", "list", "--org", &org.id, "--json"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn token_list_json_is_an_array_of_records_without_token_values() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let second = app.create_token(&org, "read:orgs");
    let third = app.create_token(&org, "write:api_tokens");
    let out = app.cli(&["token", "list", "--org", &org.id, "--json"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for secret in [&org.token, &second, &third] {
        assert!(!text.contains(secret.as_str()), "{text}");
    }
    let listed: Value = serde_json::from_str(&text).expect("JSON");
    let records = listed.as_array().cloned().unwrap_or_default();
    assert_eq!(records.len(), 3);
    for record in &records {
        assert!(is_id("tok", record["id"].as_str().unwrap_or_default()));
        assert_eq!(record["tokenPrefix"].as_str().map(str::len), Some(12));
        assert!(record.get("token").is_none(), "{record}");
        assert_eq!(record["createdBy"]["email"], org.email.as_str());
    }
    assert_eq!(records[0]["tokenPrefix"], &third[..12], "newest first");

    // An organization that is not there is an error, not an empty list.
    let said = app.cli_fails(&["token", "list", "--org", "org_nope"], 1);
    assert!(said.contains("organization org_nope not found"), "{said}");
}

#[tokio::test]
async fn token_revoke_makes_the_token_401() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let out = app.cli_json(&[
        "token",
        "create",
        "--org",
        &org.id,
        "--name",
        "doomed",
        "--scopes",
        "read:orgs",
        "--json",
    ]);
    let (token, id) = (
        out["token"].as_str().unwrap_or_default(),
        out["apiToken"]["id"].as_str().unwrap_or_default(),
    );
    let path = format!("/orgs/{}", org.id);
    app.get(&path, token).await.expect(200);

    let revoked = app.cli(&["token", "revoke", id]);
    assert!(revoked.status.success(), "{revoked:?}");
    app.get(&path, token).await.problem(401, "unauthenticated");
    app.get(&path, &org.token).await.expect(200);
    assert_one_line(&app.cli_fails(&["token", "revoke", id], 1));
}

#[tokio::test]
async fn user_add_json_prints_the_user_and_adding_them_twice_exits_1() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let args = [
        "user",
        "add",
        "--org",
        &org.id,
        "--email",
        "packer@example.com",
        "--name",
        "Pat Packer",
        "--role",
        "admin",
        "--json",
    ];
    let user = app.cli_json(&args);
    assert!(
        is_id("usr", user["id"].as_str().unwrap_or_default()),
        "{user}"
    );
    assert_eq!(user["email"], "packer@example.com");
    assert_eq!(user["name"], "Pat Packer");
    assert_eq!(user["superAdmin"], false);
    assert_eq!(user["emailVerified"], false);
    assert!(user["language"].is_string());
    assert_timestamp(&user["createdAt"]);
    assert_timestamp(&user["updatedAt"]);

    assert_one_line(&app.cli_fails(&args, 1));
}

#[tokio::test]
async fn user_add_as_owner_makes_a_super_admin() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let user = app.cli_json(&[
        "user",
        "add",
        "--org",
        &org.id,
        "--email",
        "co-owner@example.com",
        "--name",
        "Co Owner",
        "--role",
        "owner",
        "--json",
    ]);
    assert_eq!(user["superAdmin"], true);
}

#[tokio::test]
async fn user_set_password_reads_one_line_from_stdin() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let set = |email: &str, input: &str| {
        app.cli_with_stdin(
            &["user", "set-password", "--email", email, "--password-stdin"],
            input,
        )
    };
    let ok = set(&org.email, "correct horse battery staple\n");
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");

    for (email, input) in [
        ("nobody@example.com", "correct horse battery staple\n"),
        (org.email.as_str(), "short\n"),
        (org.email.as_str(), "1234567\n"),
    ] {
        let failed = set(email, input);
        assert_eq!(
            failed.status.code(),
            Some(1),
            "{email} {input:?}: {failed:?}"
        );
        assert_one_line(&String::from_utf8_lossy(&failed.stderr));
    }
}

#[tokio::test]
async fn staff_grant_exits_0_for_a_user_and_1_for_an_unknown_email() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let out = app.cli(&["staff", "grant", "--email", &org.email]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_one_line(&app.cli_fails(&["staff", "grant", "--email", "nobody@example.com"], 1));
}

#[tokio::test]
async fn backup_writes_a_sqlite_copy_and_refuses_an_existing_file() {
    if crate::helpers::on_postgres() {
        return; // a SQLite file's backup; tests/api/postgres.rs covers PostgreSQL's answer
    }
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let file = app.dir.path().join("backup.db");
    let file_arg = file.display().to_string();
    let out = app.cli(&["backup", &file_arg]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    let copy = rusqlite::Connection::open(&file).expect("open backup");
    let slug: String = copy
        .query_row("SELECT slug FROM orgs WHERE id = ?1", [&org.id], |row| {
            row.get(0)
        })
        .expect("org in the backup");
    assert_eq!(slug, org.slug);
    drop(copy);

    let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    assert_one_line(&app.cli_fails(&["backup", &file_arg], 1));
    assert_eq!(std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0), size);
}

#[tokio::test]
async fn migrate_applies_v1_to_a_fresh_data_dir_and_then_has_nothing_to_do() {
    if crate::helpers::on_postgres() {
        return; // a SQLite data directory; tests/api/postgres.rs migrates a fresh database
    }
    let app = TestApp::spawn().await;
    let fresh = app.dir.path().join("fresh");
    let fresh = fresh.display().to_string();
    let first = app.cli(&["--data-dir", &fresh, "migrate"]);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let first = stdout(&first);
    assert!(
        first
            .lines()
            .next()
            .is_some_and(|l| l.starts_with("applied V1__")),
        "{first}"
    );
    let second = app.cli(&["--data-dir", &fresh, "migrate"]);
    assert_eq!(second.status.code(), Some(0), "{second:?}");
    assert_eq!(stdout(&second).trim(), "database is up to date");
}

#[tokio::test]
async fn config_check_accepts_the_test_configuration() {
    let app = TestApp::spawn().await;
    let out = app.cli(&["config", "check"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout(&out).contains("ok"), "{out:?}");
}

#[tokio::test]
async fn config_check_refuses_an_unknown_key_or_a_bad_listen_address_in_one_line() {
    let app = TestApp::spawn().await;
    for (name, text, named) in [
        (
            "unknown.toml",
            "[server]\nlisen = \"127.0.0.1:9000\"\n",
            "lisen",
        ),
        ("toplevel.toml", "colour = \"blue\"\n", "colour"),
        (
            "listen.toml",
            "[server]\nlisten = \"nowhere\"\n",
            "server.listen",
        ),
    ] {
        let file = app.dir.path().join(name);
        std::fs::write(&file, text).expect("write config");
        let stderr = app.cli_fails(&["config", "check", &file.display().to_string()], 1);
        assert_one_line(&stderr);
        assert!(stderr.contains(named), "{name}: {stderr}");
    }

    // Every problem of a file in the one line: unknown keys with the key meant, a value of the
    // wrong type and a value out of range.
    let file = app.dir.path().join("many.toml");
    std::fs::write(
        &file,
        "[server]\nlisen = \"127.0.0.1:9000\"\n[limits]\nburst = \"many\"\nmax_body_bytes = 0\n\
         [webhooks]\nallow_private_target = true\n",
    )
    .expect("write config");
    let stderr = app.cli_fails(&["config", "check", &file.display().to_string()], 1);
    assert_one_line(&stderr);
    for named in [
        "4 problems",
        "server.lisen: unknown key; did you mean \"listen\"?",
        "webhooks.allow_private_target: unknown key; did you mean \"allow_private_targets\"?",
        "limits.burst: must be a whole number of at least 0, not string \"many\"",
        "limits.max_body_bytes: must be at least 1",
    ] {
        assert!(stderr.contains(named), "{named}: {stderr}");
    }
}

#[tokio::test]
async fn config_example_prints_toml_of_the_defaults_that_passes_config_check() {
    let app = TestApp::spawn().await;
    let out = app.cli(&["config", "example"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = stdout(&out);
    let parsed: Config = toml::from_str(&text).expect("the example is TOML of a Config");
    assert_eq!(parsed, Config::default());

    let file = app.dir.path().join("example.toml");
    std::fs::write(&file, &text).expect("write example");
    let check = app.cli(&["config", "check", &file.display().to_string()]);
    assert_eq!(check.status.code(), Some(0), "{check:?}");
}

#[tokio::test]
async fn bad_usage_exits_2() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let cases: [&[&str]; 7] = [
        &["org", "create", "--name", "X"],
        &["frobnicate"],
        &[],
        &["token", "create", "--name", "x"],
        &["token", "revoke"],
        &[
            "user",
            "add",
            "--org",
            &org.id,
            "--email",
            "a@example.com",
            "--name",
            "A",
            "--role",
            "king",
        ],
        &["user", "set-password", "--email", "a@example.com"],
    ];
    for args in cases {
        app.cli_fails(args, 2);
    }
}

#[tokio::test]
async fn failures_exit_1_with_one_line_on_stderr() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let unknown_org = "org_01ARZ3NDEKTSV4RRFFQ69G5FAV";
    let cases: [&[&str]; 5] = [
        &[
            "org",
            "create",
            "--name",
            "Again",
            "--slug",
            &org.slug,
            "--email",
            "again@example.com",
            "--user-name",
            "Again",
        ],
        &[
            "org",
            "create",
            "--name",
            "Bad",
            "--slug",
            "Bad Slug",
            "--email",
            "bad@example.com",
            "--user-name",
            "Bad",
        ],
        &["token", "create", "--org", unknown_org, "--name", "x"],
        &[
            "user",
            "add",
            "--org",
            unknown_org,
            "--email",
            "a@example.com",
            "--name",
            "A",
        ],
        &["token", "revoke", "tok_01ARZ3NDEKTSV4RRFFQ69G5FAV"],
    ];
    for args in cases {
        let stderr = app.cli_fails(args, 1);
        assert_one_line(&stderr);
    }
    let duplicate = app.cli_fails(cases[0], 1);
    assert!(duplicate.contains(&org.slug), "{duplicate}");
}

#[tokio::test]
async fn a_data_dir_below_a_regular_file_exits_1_with_one_line() {
    let app = TestApp::spawn().await;
    let file = app.dir.path().join("plain-file");
    std::fs::write(&file, "not a directory").expect("write file");
    let data_dir = file.join("data").display().to_string();
    let cases: [&[&str]; 3] = [
        &[
            "--data-dir",
            &data_dir,
            "org",
            "create",
            "--name",
            "X",
            "--slug",
            "x",
            "--email",
            "x@example.com",
            "--user-name",
            "X",
        ],
        &["--data-dir", &data_dir, "migrate"],
        &[
            "--data-dir",
            &data_dir,
            "token",
            "list",
            "--org",
            "org_01ARZ3NDEKTSV4RRFFQ69G5FAV",
        ],
    ];
    for args in cases {
        // On PostgreSQL, migrate does not use the data directory.
        if crate::helpers::on_postgres() && args.contains(&"migrate") {
            continue;
        }
        assert_one_line(&app.cli_fails(args, 1));
    }
}

/// Kills the child when a test ends before it does.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[tokio::test]
async fn serve_answers_until_sigterm_and_then_exits_0() {
    let log = serve_once(&[]).await;
    assert!(
        log.iter().any(|l| l.contains("shut down")),
        "no shutdown line: {log:?}"
    );
}

#[tokio::test]
async fn the_log_is_plain_text_off_a_terminal_with_rounded_numbers_or_json_when_asked() {
    let log = serve_once(&[]).await;
    assert!(
        !log.iter().any(|l| l.contains('\u{1b}')),
        "colour codes: {log:?}"
    );
    let request = log
        .iter()
        .find(|l| l.contains("path=\"/health\"") || l.contains("path=/health"))
        .unwrap_or_else(|| panic!("no request line: {log:?}"));
    let latency = request
        .split("latency_ms=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no latency: {request}"));
    let decimals = latency.split_once('.').map_or(0, |(_, d)| d.len());
    assert!(decimals <= 2 && latency.parse::<f64>().is_ok(), "{request}");

    let log = serve_once(&[("SHIPBASE_LOG__FORMAT", "json")]).await;
    let request = log
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .find(|line| line["fields"]["path"] == "/health")
        .unwrap_or_else(|| panic!("no request line: {log:?}"));
    assert_eq!(request["fields"]["status"], 200, "{request}");
    let latency = request["fields"]["latency_ms"].as_f64().expect("latency");
    assert!(latency >= 0.0 && (latency * 100.0 - (latency * 100.0).round()).abs() < 1e-6);
}

/// Runs `serve` with `env`, asks it for /health once, stops it with SIGTERM, and returns its log
/// (it exited 0).
async fn serve_once(env: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let listen = format!("127.0.0.1:{}", free_port());
    let data_dir = dir.path().join("data").display().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shipbase"))
        .args(["serve", "--listen", &listen, "--data-dir", &data_dir])
        .env_remove("SHIPBASE_CONFIG")
        .envs(env.iter().copied())
        .env("RUST_LOG", "info")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn shipbase serve");
    let stderr = child.stderr.take().expect("stderr");
    let pid = child.id().to_string();
    let server = Running(child);

    let (tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut log = Vec::new();
    loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.recv())
            .await
            .unwrap_or_else(|_| panic!("no readiness line in 30 s: {log:?}"))
            .unwrap_or_else(|| panic!("shipbase serve ended before serving: {log:?}"));
        let ready = line.contains("shipbase is serving");
        log.push(line);
        if ready {
            break;
        }
    }

    // No in-process app installs the TLS crypto provider here (run alone, this test had none).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let health = client
        .get(format!("http://{listen}/health"))
        .send()
        .await
        .expect("GET /health");
    assert_eq!(health.status(), 200);
    drop(client);

    let kill = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("run kill");
    assert!(kill.success());
    while let Some(line) = tokio::time::timeout(Duration::from_secs(30), lines.recv())
        .await
        .unwrap_or_else(|_| panic!("stderr still open 30 s after SIGTERM: {log:?}"))
    {
        log.push(line);
    }
    let status = tokio::task::spawn_blocking(move || {
        let mut server = server;
        server.0.wait()
    })
    .await
    .expect("join")
    .expect("wait");
    assert_eq!(status.code(), Some(0), "{log:?}");
    // A clean stop leaves everything in the SQLite file: the write-ahead log is empty.
    let wal = dir.path().join("data").join("shipbase.db-wal");
    let left = std::fs::metadata(&wal).map_or(0, |m| m.len());
    assert_eq!(
        left,
        0,
        "{} holds {left} bytes after the stop",
        wal.display()
    );
    log
}

#[tokio::test]
async fn dev_seed_writes_counted_shipments_with_a_sandbox_pair_when_there_is_none() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let out = app.cli(&["dev", "seed", "--org", &org.id, "--shipments", "12"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("seeded 12 shipments"));
    let list = app
        .get(&format!("/orgs/{}/shipments?limit=100", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(list["total"], 12);
    let carriers = app
        .get(&format!("/orgs/{}/carriers", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(carriers["total"], 1);
    let newest = &list["data"][0];
    assert_eq!(
        (
            &newest["reference"],
            &newest["carrierSettings"]["carrierId"]
        ),
        (&json!("SEED-11"), &carriers["data"][0]["id"])
    );
    let usage = app
        .get(&format!("/orgs/{}/billing/usage", org.id), &org.token)
        .await
        .expect(200);
    // Seeded shipments are dated a minute apart up to now: those of this month are counted.
    let month = &usage["currentPeriod"]["start"].as_str().unwrap_or_default()[..7];
    let this_month = list["data"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|s| {
                    s["createdAt"]
                        .as_str()
                        .is_some_and(|t| t.starts_with(month))
                })
                .count()
        })
        .unwrap_or_default();
    assert_eq!(usage["shipments"]["used"], this_month, "{usage}");
    app.cli_fails(
        &["dev", "seed", "--org", "org_nothing", "--shipments", "1"],
        1,
    );
}

/// Runs the binary with `args` against the data directory `dir`, no configuration file.
fn shipbase_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_shipbase"))
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env_remove("SHIPBASE_CONFIG")
        .env_remove("SHIPBASE_STORAGE__URL")
        .output()
        .expect("run shipbase")
}

#[test]
fn commands_on_a_directory_without_a_database_create_none_and_name_the_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("elsewhere");
    let create = [
        "org",
        "create",
        "--name",
        "Acme",
        "--slug",
        "acme",
        "--email",
        "owner@acme.test",
        "--user-name",
        "Ada",
        "--json",
    ];
    let cases: [&[&str]; 5] = [
        &create,
        &["token", "list", "--org", "org_x"],
        &[
            "user",
            "set-password",
            "--email",
            "a@b.test",
            "--password-stdin",
        ],
        &["backup", "copy.db"],
        &["dev", "seed", "--org", "org_x", "--shipments", "1"],
    ];
    for args in cases {
        let out = shipbase_in(&data, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_one_line(&stderr);
        let path = std::path::absolute(data.join("shipbase.db")).expect("absolute");
        assert!(
            stderr.contains(&format!("no database at {}", path.display())),
            "{stderr}"
        );
        assert!(stderr.contains("--data-dir"), "{stderr}");
        assert!(stderr.contains("SHIPBASE_CONFIG"), "{stderr}");
        assert!(!data.join("shipbase.db").exists(), "{args:?} created it");
        assert!(!data.join("secret.key").exists(), "{args:?} made a key");
    }

    // Named explicitly, first use creates it; the next command finds it.
    let mut first = create.to_vec();
    first.push("--init");
    let out = shipbase_in(&data, &first);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let created: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let org = created["org"]["id"].as_str().expect("org id");
    assert!(data.join("shipbase.db").exists());
    let listed = shipbase_in(&data, &["token", "list", "--org", org, "--json"]);
    assert_eq!(listed.status.code(), Some(0), "{listed:?}");
    let tokens: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_eq!(tokens.as_array().map(Vec::len), Some(1), "{tokens}");
}
