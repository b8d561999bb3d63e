//! A replay server: a loopback HTTP server (poem) that plays one carrier's API as its
//! published specification describes it. Each request is checked against the specification
//! (path, authentication, required fields and their formats); what the check finds wrong is
//! kept in `violations` and answered 400, so a test fails on any request the real API would
//! refuse. Answers are written from the specification's schemas and examples.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use poem::{
    Body, Request, Response, Route, endpoint::make, http::StatusCode, listener::TcpAcceptor,
};
use serde_json::Value;

/// What the next answers should be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// Book and track as the carrier does.
    Ok,
    /// Refuse the booking with the carrier's documented client error.
    Reject,
    /// Refuse the credentials (401).
    Unauthorized,
    /// Fail with a server error (503 or 500).
    Down,
    /// Answer after 3 s (longer than the test's timeout).
    Slow,
    /// Refuse the access token issued first (401), as a carrier does with a token it revoked.
    Revoked,
}

/// One request as the replay saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: poem::http::HeaderMap,
    pub body: Value,
    /// The body as sent (a form, when it is not JSON).
    pub raw: Vec<u8>,
    /// How many requests to the same path came before this one.
    pub earlier: usize,
}

impl Seen {
    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The carrier's behaviour: checks a request (pushing what is wrong into the list) and answers
/// (JSON, or XML: a string that starts with `<?xml`).
pub type Handler = fn(&Seen, Scenario, &mut Vec<String>) -> (StatusCode, Value);

#[derive(Clone)]
pub struct Replay {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    pub violations: Arc<Mutex<Vec<String>>>,
    scenario: Arc<Mutex<Scenario>>,
    /// How long the carrier takes to answer (before `Slow`'s own 3 s).
    delay: Arc<Mutex<Duration>>,
    /// Requests that reached the replay, counted as they arrive (an answer may come later).
    arrivals: Arc<AtomicUsize>,
}

impl Replay {
    pub async fn start(handler: Handler) -> Replay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let replay = Replay {
            url,
            seen: Arc::default(),
            violations: Arc::default(),
            scenario: Arc::new(Mutex::new(Scenario::Ok)),
            delay: Arc::default(),
            arrivals: Arc::default(),
        };
        let state = replay.clone();
        let app = Route::new().at(
            "/*path",
            make(move |mut request: Request| {
                let state = state.clone();
                async move {
                    let bytes = request.take_body().into_vec().await.unwrap_or_default();
                    let seen = Seen {
                        method: request.method().to_string(),
                        path: request.uri().path().to_string(),
                        query: url::form_urlencoded::parse(
                            request.uri().query().unwrap_or("").as_bytes(),
                        )
                        .into_owned()
                        .collect(),
                        headers: request.headers().clone(),
                        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                        raw: bytes.clone(),
                        earlier: state
                            .seen
                            .lock()
                            .unwrap()
                            .iter()
                            .filter(|s| s.path == request.uri().path())
                            .count(),
                    };
                    state.arrivals.fetch_add(1, Ordering::SeqCst);
                    let scenario = *state.scenario.lock().unwrap();
                    let delay = *state.delay.lock().unwrap();
                    tokio::time::sleep(delay).await;
                    if scenario == Scenario::Slow {
                        tokio::time::sleep(std::time::Duration::from_secs(3)).await;
                    }
                    let mut violations = Vec::new();
                    let (status, answer) = handler(&seen, scenario, &mut violations);
                    state.seen.lock().unwrap().push(seen);
                    let (status, answer) = if violations.is_empty() {
                        (status, answer)
                    } else {
                        let text = violations.join("; ");
                        // Shown with a failing test's output, where the adapter's error hides it.
                        eprintln!("replay refused the request: {text}");
                        state.violations.lock().unwrap().extend(violations);
                        (StatusCode::BAD_REQUEST, serde_json::json!({"replay": text}))
                    };
                    match answer {
                        // An XML answer, for the carriers that answer XML.
                        Value::String(xml) if xml.starts_with("<?xml") => Response::builder()
                            .status(status)
                            .content_type("application/xml; charset=UTF-8")
                            .body(xml),
                        answer => Response::builder()
                            .status(status)
                            .content_type("application/json")
                            .body(Body::from_json(answer).unwrap()),
                    }
                }
            }),
        );
        let acceptor = TcpAcceptor::from_tokio(listener).unwrap();
        tokio::spawn(async move {
            let _ = poem::Server::new_with_acceptor(acceptor).run(app).await;
        });
        replay
    }

    pub fn set(&self, scenario: Scenario) {
        *self.scenario.lock().unwrap() = scenario;
    }

    /// Makes every answer take `delay` (a slow carrier).
    pub fn set_delay(&self, delay: Duration) {
        *self.delay.lock().unwrap() = delay;
    }

    /// How many requests have reached the carrier so far, answered or not.
    pub fn arrived(&self) -> usize {
        self.arrivals.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Asserts that every request the adapter sent was one the specification allows.
    #[track_caller]
    pub fn assert_clean(&self) {
        let violations = self.violations.lock().unwrap().clone();
        assert!(
            violations.is_empty(),
            "requests broke the specification: {violations:#?}"
        );
    }
}

/// `value` at `pointer` as a string of `min..=max` characters (else a violation).
pub fn text(
    body: &Value,
    pointer: &str,
    min: usize,
    max: usize,
    violations: &mut Vec<String>,
) -> String {
    match body.pointer(pointer).and_then(Value::as_str) {
        Some(s) if (min..=max).contains(&s.chars().count()) => s.to_string(),
        Some(s) => {
            violations.push(format!("{pointer}: {s:?} is not {min}..{max} characters"));
            s.to_string()
        }
        None => {
            violations.push(format!("{pointer} is required (a string)"));
            String::new()
        }
    }
}

/// `value` at `pointer` as one of `allowed`.
pub fn one_of(body: &Value, pointer: &str, allowed: &[&str], violations: &mut Vec<String>) {
    let value = text(body, pointer, 1, 100, violations);
    if !value.is_empty() && !allowed.contains(&value.as_str()) {
        violations.push(format!("{pointer}: {value:?} is not one of {allowed:?}"));
    }
}

/// `value` at `pointer` as a number of at least `min`.
pub fn number(body: &Value, pointer: &str, min: f64, violations: &mut Vec<String>) {
    match body.pointer(pointer).and_then(Value::as_f64) {
        Some(n) if n >= min => {}
        Some(n) => violations.push(format!("{pointer}: {n} is below {min}")),
        None => violations.push(format!("{pointer} is required (a number)")),
    }
}

/// `value` at `pointer` as an array of `min..=max` items.
pub fn array<'a>(
    body: &'a Value,
    pointer: &str,
    min: usize,
    max: usize,
    violations: &mut Vec<String>,
) -> Vec<&'a Value> {
    match body.pointer(pointer).and_then(Value::as_array) {
        Some(items) if (min..=max).contains(&items.len()) => items.iter().collect(),
        Some(items) => {
            violations.push(format!(
                "{pointer}: {} items, not {min}..{max}",
                items.len()
            ));
            items.iter().collect()
        }
        None => {
            violations.push(format!("{pointer} is required (an array)"));
            Vec::new()
        }
    }
}

/// A small but complete PDF (one empty 100 × 150 mm page), as a carrier's label would be.
pub fn pdf(marker: &str) -> Vec<u8> {
    let mut out = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 283 425] >>".to_string(),
        format!("<< /Producer ({marker}) >>"),
    ];
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.push_str(&format!("{} 0 obj\n{object}\nendobj\n", i + 1));
    }
    let xref = out.len();
    out.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for offset in offsets {
        out.push_str(&format!("{offset:010} 00000 n \n"));
    }
    out.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    out.into_bytes()
}

/// A ZPL II label holding `number` as a Code 128 barcode.
pub fn zpl(number: &str) -> Vec<u8> {
    format!("^XA^CI28^FO50,50^A0N,40,40^FDReplay label^FS^FO50,120^BCN,120,Y,N,N^FD{number}^FS^XZ")
        .into_bytes()
}

/// The schema `name` of a carrier's OpenAPI description `file` (under
/// tests/fixtures/carriers), as a JSON Schema whose `$ref`s resolve; `draft` is the description's
/// dialect (OpenAPI 3.0's schemas are draft 4, 3.1's are 2020-12).
pub fn schema(file: &str, name: &str, draft: jsonschema::Draft) -> jsonschema::Validator {
    let path = format!(
        "{}/tests/fixtures/carriers/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let root = serde_json::json!({
        "allOf": [{"$ref": format!("#/components/schemas/{name}")}],
        "components": doc["components"],
    });
    jsonschema::options()
        .with_draft(draft)
        .build(&root)
        .unwrap_or_else(|e| panic!("{file} {name}: {e}"))
}

/// What `validator` finds wrong with `value`, each named with `what` and where.
pub fn check(validator: &jsonschema::Validator, value: &Value, what: &str, v: &mut Vec<String>) {
    for error in validator.iter_errors(value) {
        v.push(format!("{what}: {error} at {}", error.instance_path()));
    }
}
