//! A webhook receiver on a loopback port: records every delivery and answers 200, or the
//! statuses a test scripts for a path.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
    time::Duration,
};

use base64::{Engine, engine::general_purpose::STANDARD};
use poem::{Request, Response, Route, Server, listener::TcpAcceptor};
use ring::hmac;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct Delivery {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
    pub answered: u16,
}

impl Delivery {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON delivery")
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map(String::as_str)
            .unwrap_or_default()
    }

    /// Whether one of the `webhook-signature` entries is the Standard Webhooks signature of this
    /// delivery under `secret` (`whsec_` + base64 key).
    pub fn signed_with(&self, secret: &str) -> bool {
        let key = STANDARD
            .decode(secret.trim_start_matches("whsec_"))
            .expect("base64 secret");
        let key = hmac::Key::new(hmac::HMAC_SHA256, &key);
        let content = [
            self.header("webhook-id").as_bytes(),
            b".",
            self.header("webhook-timestamp").as_bytes(),
            b".",
            &self.body,
        ]
        .concat();
        self.header("webhook-signature").split(' ').any(|entry| {
            entry
                .strip_prefix("v1,")
                .and_then(|sig| STANDARD.decode(sig).ok())
                .is_some_and(|sig| hmac::verify(&key, &content, &sig).is_ok())
        })
    }
}

#[derive(Default)]
struct State {
    deliveries: Vec<Delivery>,
    scripts: HashMap<String, VecDeque<u16>>,
    delays: HashMap<String, Duration>,
}

pub struct Receiver {
    pub base: String,
    state: Arc<Mutex<State>>,
    changed: Arc<tokio::sync::Notify>,
}

impl Receiver {
    pub async fn start() -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let state: Arc<Mutex<State>> = Arc::default();
        let changed = Arc::new(tokio::sync::Notify::new());
        let endpoint = Route::new().at(
            "/*path",
            poem::endpoint::make({
                let (state, changed) = (state.clone(), changed.clone());
                move |req: Request| {
                    let (state, changed) = (state.clone(), changed.clone());
                    async move { record(req, &state, &changed).await }
                }
            }),
        );
        let acceptor = TcpAcceptor::from_tokio(listener).expect("acceptor");
        tokio::spawn(async move {
            let _ = Server::new_with_acceptor(acceptor).run(endpoint).await;
        });
        Receiver {
            base,
            state,
            changed,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The next deliveries to `path` are answered with `statuses`, then with 200.
    pub fn answer(&self, path: &str, statuses: &[u16]) {
        self.lock()
            .scripts
            .insert(path.to_string(), statuses.iter().copied().collect());
    }

    /// Deliveries to `path` are answered after `delay`.
    pub fn delay(&self, path: &str, delay: Duration) {
        self.lock().delays.insert(path.to_string(), delay);
    }

    /// What `path` received so far.
    pub fn to(&self, path: &str) -> Vec<Delivery> {
        self.lock()
            .deliveries
            .iter()
            .filter(|d| d.path == path)
            .cloned()
            .collect()
    }

    /// Waits (at most 15 s) until `path` received `n` deliveries; returns them.
    pub async fn wait_for(&self, path: &str, n: usize) -> Vec<Delivery> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            let changed = self.changed.notified();
            let got = self.to(path);
            if got.len() >= n {
                return got;
            }
            assert!(
                tokio::time::timeout_at(deadline, changed).await.is_ok(),
                "{path} received {} of {n} deliveries: {:?}",
                got.len(),
                got.iter().map(Delivery::json).collect::<Vec<_>>()
            );
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

async fn record(req: Request, state: &Mutex<State>, changed: &tokio::sync::Notify) -> Response {
    let path = req.uri().path().to_string();
    let headers = req
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let body = req.into_body().into_vec().await.unwrap_or_default();
    let (answered, delay) = {
        let mut state = state.lock().unwrap_or_else(|p| p.into_inner());
        let answered = state
            .scripts
            .get_mut(&path)
            .and_then(VecDeque::pop_front)
            .unwrap_or(200);
        let delay = state.delays.get(&path).copied();
        state.deliveries.push(Delivery {
            path,
            headers,
            body,
            answered,
        });
        (answered, delay)
    };
    changed.notify_waiters();
    // Recorded at once, answered after the delay: a test can act while the sender waits.
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    Response::builder()
        .status(poem::http::StatusCode::from_u16(answered).unwrap_or_default())
        .body("")
}
