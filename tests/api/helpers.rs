//! `TestApp::spawn()`: the real application on an OS-assigned port with its own data directory,
//! plus typed helpers that assert the status inside.

use std::{path::PathBuf, process::Output};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shipbase::{
    config::{Config, Overrides},
    model::time::Clock,
    service::Ctx,
};
use tempfile::TempDir;

pub struct TestApp {
    pub base_url: String,
    pub client: reqwest::Client,
    pub dir: TempDir,
    pub config_path: PathBuf,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
    /// The PostgreSQL database made for this app, dropped with it.
    database: Option<TestDatabase>,
}

/// A database made for one test on the PostgreSQL server; dropped (connections and all) when
/// the test is done with it, so that a run of the suite does not pile databases up.
pub struct TestDatabase {
    server: String,
    name: String,
    pub url: String,
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let drop = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let _ = with_plain_client(&self.server, move |client| client.batch_execute(&drop));
    }
}

/// An organization made through the CLI, with its owner's token.
pub struct TestOrg {
    pub id: String,
    pub slug: String,
    pub email: String,
    pub user_id: String,
    pub token: String,
}

/// The PostgreSQL server the tests may use (`SHIPBASE_TEST_POSTGRES`, a URL as
/// `.ci/postgres.sh start` prints it).
pub fn postgres_server() -> Option<String> {
    std::env::var("SHIPBASE_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
}

/// Whether the suite runs on PostgreSQL: `SHIPBASE_TEST_STORAGE=postgres` (with a server).
pub fn on_postgres() -> bool {
    std::env::var("SHIPBASE_TEST_STORAGE").is_ok_and(|s| s == "postgres")
}

/// When the suite runs on PostgreSQL, a new empty database there for one test app.
pub fn fresh_postgres_database() -> Option<TestDatabase> {
    if !on_postgres() {
        return None;
    }
    let server =
        postgres_server().expect("SHIPBASE_TEST_STORAGE=postgres needs SHIPBASE_TEST_POSTGRES");
    Some(new_postgres_database(&server))
}

/// A new empty database on `server`.
pub fn new_postgres_database(server: &str) -> TestDatabase {
    // Errors the app logs (an internal error's cause) show in the failing test's output.
    let _ = tracing_subscriber::fmt()
        .with_env_filter("shipbase=warn")
        .with_test_writer()
        .try_init();
    let name = format!("t_{}", ulid::Ulid::new().to_string().to_lowercase());
    let create = format!("CREATE DATABASE {name}");
    with_plain_client(server, move |client| client.batch_execute(&create))
        .expect("postgres")
        .expect("create database");
    TestDatabase {
        server: server.to_string(),
        url: with_database(server, &name),
        name,
    }
}

/// `url` naming database `name` instead, its parameters (`?sslrootcert=…`) kept.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url.split_at(url.find('?').unwrap_or(url.len()));
    let (server, _) = base.rsplit_once('/').expect("a URL with a database");
    format!("{server}/{name}{query}")
}

/// Runs `f` with a client for the tests' own look under the API, without TLS (and so without
/// the URL's TLS parameters, which only the app's connector knows), on a thread of its own: the
/// synchronous client runs its own runtime, which cannot run on the test's. `None` when it
/// cannot connect.
fn with_plain_client<T: Send + 'static>(
    url: &str,
    f: impl FnOnce(&mut postgres::Client) -> T + Send + 'static,
) -> Option<T> {
    let plain = url.split('?').next().unwrap_or(url).to_string();
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&plain, postgres::NoTls).ok()?;
        Some(f(&mut client))
    })
    .join()
    .expect("the PostgreSQL thread")
}

/// The text parameters of `params` as PostgreSQL takes them.
fn pg_params(params: &[String]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    params.iter().map(|p| p as _).collect()
}

fn owned(params: &[&str]) -> Vec<String> {
    params.iter().map(|p| p.to_string()).collect()
}

impl TestApp {
    /// The app's PostgreSQL database, when it runs on one.
    pub fn postgres_url(&self) -> Option<String> {
        let config: toml::Table =
            toml::from_str(&std::fs::read_to_string(&self.config_path).expect("config"))
                .expect("config TOML");
        config
            .get("storage")
            .and_then(|s| s.get("url"))
            .and_then(|u| u.as_str())
            .map(str::to_string)
    }

    /// Runs `sql` (text parameters `?1`, `?2`…) on the app's database under the API, whichever
    /// the backend; the number of rows it changed.
    pub fn db_execute(&self, sql: &str, params: &[&str]) -> u64 {
        match self.postgres_url() {
            Some(url) => {
                let (sql, params) = (sql.replace('?', "$"), owned(params));
                with_plain_client(&url, move |client| {
                    client.execute(&sql, &pg_params(&params))
                })
                .expect("pg")
                .expect("execute")
            }
            None => {
                let db = rusqlite::Connection::open(self.dir.path().join("data/shipbase.db"))
                    .expect("db");
                db.execute(sql, rusqlite::params_from_iter(params))
                    .expect("execute") as u64
            }
        }
    }

    /// The first column (as text) of the first row `sql` returns, whichever the backend.
    pub fn db_text(&self, sql: &str, params: &[&str]) -> Option<String> {
        match self.postgres_url() {
            Some(url) => {
                let (sql, params) = (sql.replace('?', "$"), owned(params));
                with_plain_client(&url, move |client| client.query(&sql, &pg_params(&params)))
                    .expect("pg")
                    .expect("query")
                    .first()
                    .map(|r| r.get::<_, String>(0))
            }
            None => {
                let db = rusqlite::Connection::open(self.dir.path().join("data/shipbase.db"))
                    .expect("db");
                let mut stmt = db.prepare(sql).expect("prepare");
                let mut rows = stmt
                    .query(rusqlite::params_from_iter(params))
                    .expect("query");
                rows.next()
                    .expect("row")
                    .map(|r| r.get::<_, String>(0).expect("text"))
            }
        }
    }

    /// Starts the app with the default test configuration.
    pub async fn spawn() -> TestApp {
        TestApp::spawn_with("").await
    }

    /// Starts the app with extra TOML merged over the test configuration: a key given in
    /// `extra_toml` (such as `[limits] rate_per_second`) replaces the test default.
    pub async fn spawn_with(extra_toml: &str) -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let config_path = dir.path().join("shipbase.toml");
        let data_dir = dir.path().join("data").display().to_string();
        let mut config = toml::Table::new();
        let mut storage =
            toml::Table::from_iter([("data_dir".to_string(), toml::Value::String(data_dir))]);
        let database = fresh_postgres_database();
        if let Some(db) = &database {
            storage.insert("url".into(), toml::Value::String(db.url.clone()));
        }
        config.insert("storage".into(), toml::Value::Table(storage));
        config.insert(
            "limits".into(),
            toml::Value::Table(toml::Table::from_iter([(
                "rate_per_second".to_string(),
                toml::Value::Integer(0),
            )])),
        );
        let extra: toml::Table = toml::from_str(extra_toml).expect("extra TOML");
        merge_toml(&mut config, extra);
        let toml = toml::to_string(&config).expect("serialize config");
        std::fs::write(&config_path, toml).expect("write config");
        TestApp::start(dir, config_path, Clock::System, database).await
    }

    /// Starts the app on a copy of `files` (an earlier version's data directory: its
    /// `shipbase.db` and, where it had one, `secret.key`) with `extra_toml` merged over the test
    /// configuration. Always on SQLite, whatever `SHIPBASE_TEST_STORAGE` says: the files are a
    /// SQLite installation, migrated when the app opens it.
    pub async fn spawn_on_copy_of(files: &[PathBuf], extra_toml: &str) -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let data_dir = dir.path().join("data");
        std::fs::create_dir(&data_dir).expect("data dir");
        for file in files {
            let name = file.file_name().expect("a file name");
            std::fs::copy(file, data_dir.join(name))
                .unwrap_or_else(|e| panic!("copy {}: {e}", file.display()));
        }
        let config_path = dir.path().join("shipbase.toml");
        let mut config: toml::Table = toml::from_str(&format!(
            "[storage]\ndata_dir = {}\n[limits]\nrate_per_second = 0\n",
            toml::Value::String(data_dir.display().to_string())
        ))
        .expect("config TOML");
        merge_toml(&mut config, toml::from_str(extra_toml).expect("extra TOML"));
        std::fs::write(&config_path, toml::to_string(&config).expect("TOML"))
            .expect("write config");
        TestApp::start(dir, config_path, Clock::System, None).await
    }

    /// `spawn_with`, the app's "now" read from `clock`.
    pub async fn spawn_with_clock(extra_toml: &str, clock: Clock) -> TestApp {
        let app = TestApp::spawn_with(extra_toml).await;
        app.restart_with_clock("", clock).await
    }

    /// Starts the app on `dir` with the configuration file `config_path`.
    async fn start(
        dir: TempDir,
        config_path: PathBuf,
        clock: Clock,
        database: Option<TestDatabase>,
    ) -> TestApp {
        let mut config =
            Config::load(Some(&config_path), Vec::new(), &Overrides::default()).expect("config");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        if config.server.base_url.is_empty() {
            config.server.base_url = format!("http://{addr}");
        }
        let ctx = Ctx::open_with_clock(config, clock).expect("open");
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let _ = shipbase::app::serve(ctx, listener, async {
                let _ = rx.await;
            })
            .await;
        });
        TestApp {
            base_url: format!("http://{addr}"),
            client: reqwest::Client::new(),
            dir,
            config_path,
            shutdown: Some(tx),
            server: Some(server),
            database,
        }
    }

    /// Stops the app as SIGTERM would (in-flight work finishes) and starts it again on the same
    /// data directory, with `extra_toml` merged into its configuration.
    pub async fn restart_with(self, extra_toml: &str) -> TestApp {
        self.restart_with_clock(extra_toml, Clock::System).await
    }

    /// `restart_with`, the app's "now" then read from `clock`.
    pub async fn restart_with_clock(mut self, extra_toml: &str, clock: Clock) -> TestApp {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.expect("the server stops");
        }
        let mut config: toml::Table =
            toml::from_str(&std::fs::read_to_string(&self.config_path).expect("config"))
                .expect("config TOML");
        merge_toml(&mut config, toml::from_str(extra_toml).expect("extra TOML"));
        std::fs::write(&self.config_path, toml::to_string(&config).expect("TOML"))
            .expect("write config");
        let dir = tempfile::TempDir::new().expect("placeholder");
        let dir = std::mem::replace(&mut self.dir, dir);
        let config_path = self.config_path.clone();
        TestApp::start(dir, config_path, clock, self.database.take()).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// Sends a request; `token` becomes a bearer credential, `body` JSON.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let mut req = self.client.request(method, self.url(path));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        Reply::read(req.send().await.expect("request")).await
    }

    pub async fn get(&self, path: &str, token: &str) -> Reply {
        self.call(Method::GET, path, Some(token), None).await
    }

    pub async fn post(&self, path: &str, token: &str, body: Value) -> Reply {
        self.call(Method::POST, path, Some(token), Some(body)).await
    }

    pub async fn put(&self, path: &str, token: &str, body: Value) -> Reply {
        self.call(Method::PUT, path, Some(token), Some(body)).await
    }

    pub async fn patch(&self, path: &str, token: &str, body: Value) -> Reply {
        self.call(Method::PATCH, path, Some(token), Some(body))
            .await
    }

    pub async fn delete(&self, path: &str, token: &str) -> Reply {
        self.call(Method::DELETE, path, Some(token), None).await
    }

    /// Sends `body` as it is, with `content_type` when given (no JSON encoding).
    pub async fn send_raw(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        content_type: Option<&str>,
        body: impl Into<reqwest::Body>,
    ) -> Reply {
        let mut req = self.client.request(method, self.url(path)).body(body);
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(content_type) = content_type {
            req = req.header(reqwest::header::CONTENT_TYPE, content_type);
        }
        Reply::read(req.send().await.expect("request")).await
    }

    /// `POST /orgs/{orgId}/api-tokens` with the owner's token; asserts 201 and returns the
    /// token's value and its record.
    pub async fn create_api_token(&self, org: &TestOrg, body: Value) -> (String, Value) {
        let created = self
            .post(&format!("/orgs/{}/api-tokens", org.id), &org.token, body)
            .await
            .expect(201);
        let token = created["token"].as_str().expect("token").to_string();
        (token, created["apiToken"].clone())
    }

    /// Runs the shipbase binary against this app's config and data directory.
    pub fn cli(&self, args: &[&str]) -> Output {
        self.cli_with_stdin(args, "")
    }

    pub fn cli_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        use std::io::Write;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shipbase"))
            .args(args)
            .env("SHIPBASE_CONFIG", &self.config_path)
            .current_dir(self.dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn shipbase");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.as_bytes())
            .expect("write stdin");
        child.wait_with_output().expect("wait")
    }

    /// Runs a CLI command that must succeed and print JSON.
    pub fn cli_json(&self, args: &[&str]) -> Value {
        let out = self.cli(args);
        assert!(
            out.status.success(),
            "shipbase {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("JSON on stdout")
    }

    /// Runs a CLI command that must exit with `code`; returns its standard error.
    #[track_caller]
    pub fn cli_fails(&self, args: &[&str], code: i32) -> String {
        let out = self.cli(args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.code(),
            Some(code),
            "shipbase {args:?}: stdout {} stderr {stderr}",
            String::from_utf8_lossy(&out.stdout)
        );
        stderr
    }

    /// `shipbase org create --json` with a fresh slug.
    pub fn create_org(&self) -> TestOrg {
        let slug = format!("org-{}", ulid::Ulid::new().to_string().to_lowercase());
        let email = format!("owner-{slug}@example.com");
        let out = self.cli_json(&[
            "org",
            "create",
            "--name",
            "Test Org",
            "--slug",
            &slug,
            "--email",
            &email,
            "--user-name",
            "Owner",
            "--json",
        ]);
        TestOrg {
            id: out["org"]["id"].as_str().expect("org id").to_string(),
            user_id: out["user"]["id"].as_str().expect("user id").to_string(),
            token: out["token"].as_str().expect("token").to_string(),
            slug,
            email,
        }
    }

    /// Sets a password for the user with `email` (`user set-password --password-stdin`).
    pub fn set_password(&self, email: &str) -> String {
        let password = format!("pw-{}", ulid::Ulid::new());
        let out = self.cli_with_stdin(
            &["user", "set-password", "--email", email, "--password-stdin"],
            &format!("{password}\n"),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        password
    }

    /// A token of `org` with the given scopes, made by the CLI.
    pub fn create_token(&self, org: &TestOrg, scopes: &str) -> String {
        let out = self.cli_json(&[
            "token", "create", "--org", &org.id, "--name", "test", "--scopes", scopes, "--json",
        ]);
        out["token"].as_str().expect("token").to_string()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        // The app stops in the background; its database goes now (WITH (FORCE) ends its
        // connections).
        self.database.take();
    }
}

/// A header of an answer as text ("" when absent or not text): the one reading of headers that
/// replies, pages and MCP answers share.
pub fn header(headers: &reqwest::header::HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// A response with its body read.
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Reply {
    pub async fn read(resp: reqwest::Response) -> Reply {
        let status = resp.status();
        let headers = resp.headers().clone();
        let text = resp.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            status,
            headers,
            body,
            text,
        }
    }

    /// Asserts the status and returns the JSON body.
    #[track_caller]
    pub fn expect(self, status: u16) -> Value {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text);
        self.body
    }

    /// Asserts a problem+json error with this status and code (DESIGN §5) and returns it.
    #[track_caller]
    pub fn problem(self, status: u16, code: &str) -> Value {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text);
        let content_type = self.header("content-type");
        assert_eq!(content_type, "application/problem+json", "{}", self.text);
        assert_eq!(self.body["code"], code, "{}", self.text);
        assert_eq!(self.body["status"], status);
        assert_eq!(self.body["type"], format!("/errors/{code}"));
        assert!(self.body["title"].is_string());
        assert_eq!(
            self.body["requestId"].as_str(),
            Some(self.header("x-request-id").as_str())
        );
        self.body
    }

    pub fn header(&self, name: &str) -> String {
        header(&self.headers, name)
    }
}

/// The fields of a validation problem.
pub fn error_fields(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .filter_map(|e| e["field"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `(field, message)` of every error of a problem.
pub fn error_pairs(problem: &Value) -> Vec<(String, String)> {
    problem["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|e| {
                    (
                        e["field"].as_str().unwrap_or_default().to_string(),
                        e["message"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A valid POST /orgs body with a fresh slug.
pub fn signup_body() -> Value {
    let slug = format!("signup-{}", ulid::Ulid::new().to_string().to_lowercase());
    json!({"name": "Signup Co", "slug": slug, "creatorEmail": format!("{slug}@example.com"), "creatorName": "Sam"})
}

/// Merges `over` into `base`, table by table; values in `over` win.
fn merge_toml(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(base)), toml::Value::Table(over)) => merge_toml(base, over),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (DESIGN §3).
pub fn is_timestamp(value: &str) -> bool {
    value.len() == 24
        && value.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            10 => c == 'T',
            13 | 16 => c == ':',
            19 => c == '.',
            23 => c == 'Z',
            _ => c.is_ascii_digit(),
        })
}

/// `<kind>_` followed by a 26-character ULID in Crockford base32 (DESIGN §3).
pub fn is_id(kind: &str, value: &str) -> bool {
    value
        .strip_prefix(kind)
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|ulid| {
            ulid.len() == 26
                && ulid
                    .chars()
                    .all(|c| "0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains(c))
        })
}

/// Asserts a JSON string field holds a timestamp in the API's form.
#[track_caller]
pub fn assert_timestamp(value: &Value) {
    let text = value.as_str().unwrap_or_default();
    assert!(is_timestamp(text), "not a timestamp: {value}");
}
