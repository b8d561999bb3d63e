//! What an outsider can send is bounded (DESIGN §19 limits): bodies while they stream, with or
//! without a Content-Length; slow request heads and stalled bodies; open connections per client
//! address; and `/mcp` checks the token before it takes a body in.

use std::{
    io::{BufRead, BufReader},
    net::SocketAddr,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpSocket, TcpStream},
};

use crate::helpers::TestApp;

/// `shipbase serve` as its own process (so that its memory can be read from /proc).
struct Served {
    child: Child,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    fn start() -> Served {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = dir.path().join("shipbase.toml");
        std::fs::write(&config, "[signup]\nopen = true\n").expect("config");
        let data_dir = dir.path().join("data").display().to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_shipbase"))
            .args(["serve", "--config"])
            .arg(&config)
            .args(["--listen", "127.0.0.1:0", "--data-dir", &data_dir])
            .env_remove("SHIPBASE_CONFIG")
            .env("RUST_LOG", "info")
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn shipbase serve");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let addr = loop {
            let line = rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("shipbase serve said it is serving");
            if line.contains("shipbase is serving") {
                let start = line.find("http://127.0.0.1:").expect("base_url") + "http://".len();
                let rest = &line[start..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ':'))
                    .unwrap_or(rest.len());
                break rest[..end].parse::<SocketAddr>().expect("address");
            }
        };
        Served {
            child,
            addr,
            _dir: dir,
        }
    }

    /// A figure of /proc/<pid>/status, in kB.
    fn status_kb(&self, field: &str) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).expect("status");
        status
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{field}:")))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc status"))
    }
}

/// Streams a chunked body of up to `total` bytes to `path` until the server answers; returns
/// the status line and the bytes it took in before answering.
async fn stream_chunked(addr: SocketAddr, path: &str, total: usize) -> (String, usize) {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut read, mut write) = stream.into_split();
    let answer = tokio::spawn(async move {
        let mut buffer = vec![0u8; 4096];
        let mut seen = Vec::new();
        while !seen.windows(2).any(|w| w == b"\r\n") {
            match read.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buffer[..n]),
            }
        }
        String::from_utf8_lossy(&seen)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    });
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\n\r\n"
    );
    write.write_all(head.as_bytes()).await.expect("head");
    let chunk = vec![b' '; 64 * 1024];
    let mut sent = 0;
    while sent < total && !answer.is_finished() {
        let frame = [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
        if write.write_all(&frame).await.is_err() {
            break;
        }
        sent += chunk.len();
    }
    let status = tokio::time::timeout(Duration::from_secs(30), answer)
        .await
        .expect("an answer within 30 s")
        .expect("reader");
    (status, sent)
}

#[tokio::test]
async fn chunked_bodies_over_the_cap_are_413_and_cost_no_memory() {
    let server = Served::start();
    // Each endpoint once with a body just over the cap first, so that what the process sets up
    // on first use (its threads' allocator heaps, templates) is not counted as the bodies' cost.
    for path in ["/oauth/register", "/oauth/token", "/login", "/orgs"] {
        let (status, _) = stream_chunked(server.addr, path, 2 * 1024 * 1024).await;
        assert!(status.starts_with("HTTP/1.1 413"), "{status}");
    }
    let before = server.status_kb("VmHWM");
    // Four at once, as an attacker would, on the endpoints that read raw bodies.
    let attempts = ["/oauth/register", "/oauth/token", "/login", "/orgs"]
        .map(|path| stream_chunked(server.addr, path, 300 * 1024 * 1024));
    let answers = futures_util::future::join_all(attempts).await;
    for (status, sent) in &answers {
        assert!(status.starts_with("HTTP/1.1 413"), "{status}");
        assert!(
            *sent < 64 * 1024 * 1024,
            "the server kept reading: {sent} bytes went in"
        );
    }
    let grown_mb = (server.status_kb("VmHWM").saturating_sub(before)) / 1024;
    assert!(
        grown_mb < 16,
        "the server's peak memory grew by {grown_mb} MB for four refused bodies"
    );
    // And it still serves (reqwest needs the process's TLS provider, which the app tests install
    // when they start one; this test starts none).
    shipbase::outbound::sender::install_tls_provider();
    let health = reqwest::get(format!("http://{}/health", server.addr))
        .await
        .expect("health");
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn mcp_refuses_a_caller_without_a_token_before_reading_the_body() {
    let app = TestApp::spawn().await;
    let addr: SocketAddr = app.base_url.trim_start_matches("http://").parse().unwrap();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // A body that never ends: the answer must not wait for it.
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n\
              5\r\n{\"jso\r\n",
        )
        .await
        .unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .expect("answered without the rest of the body")
        .unwrap();
    let text = String::from_utf8_lossy(&answer[..n]);
    assert!(text.starts_with("HTTP/1.1 401"), "{text}");
    assert!(
        text.to_lowercase()
            .contains("www-authenticate: bearer resource_metadata="),
        "{text}"
    );
}

/// Reads until the server closes the connection (or `limit` passes); how long that took.
async fn until_closed(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buffer = [0u8; 1024];
    loop {
        match tokio::time::timeout(
            limit.saturating_sub(started.elapsed()),
            stream.read(&mut buffer),
        )
        .await
        {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test]
async fn a_request_head_sent_too_slowly_is_cut_off() {
    let app = TestApp::spawn_with("[limits]\nheader_timeout_seconds = 1").await;
    let addr: SocketAddr = app.base_url.trim_start_matches("http://").parse().unwrap();

    // One byte every 200 ms: the head never completes within the second it is given.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    let trickle = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let mut closed = false;
    for byte in trickle {
        if slow.write_all(&[*byte]).await.is_err() {
            closed = true;
            break;
        }
        let mut probe = [0u8; 256];
        if let Ok(Ok(0)) =
            tokio::time::timeout(Duration::from_millis(200), slow.read(&mut probe)).await
        {
            closed = true;
            break;
        }
    }
    assert!(
        closed,
        "a trickling head was still open after {:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );

    // A connection that sends nothing at all is closed as well.
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let took = until_closed(&mut silent, Duration::from_secs(5)).await;
    assert!(took.is_some(), "a silent connection stayed open");

    // Meanwhile the server answers others.
    let health = app.client.get(app.url("/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn a_body_that_stops_arriving_is_408_after_the_idle_timeout() {
    let app = TestApp::spawn_with("[limits]\nidle_timeout_seconds = 1").await;
    let org = app.create_org();
    let addr: SocketAddr = app.base_url.trim_start_matches("http://").parse().unwrap();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /orgs/{}/sender-addresses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\"",
        org.id, org.token
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .expect("an answer within 5 s")
        .unwrap();
    let text = String::from_utf8_lossy(&answer[..n]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("\"code\":\"request_timeout\""), "{text}");
}

/// A connection from `source` (a loopback address of this machine) to `addr`.
async fn connect_from(source: &str, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
    socket.connect(addr).await.unwrap()
}

#[tokio::test]
async fn one_address_cannot_take_every_connection() {
    let app = TestApp::spawn_with("[limits]\nmax_connections_per_ip = 3").await;
    let addr: SocketAddr = app.base_url.trim_start_matches("http://").parse().unwrap();
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_from("127.0.0.2", addr).await);
    }
    // The fourth from the same address is answered 503 and closed.
    let mut fourth = connect_from("127.0.0.2", addr).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), fourth.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 503"), "{text:?}");

    // Everyone else is served, /health included.
    let health = app.client.get(app.url("/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let mut other = connect_from("127.0.0.3", addr).await;
    other
        .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    other.read_to_end(&mut answer).await.unwrap();
    assert!(answer.starts_with(b"HTTP/1.1 200"));

    // A place given back is a place to take.
    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut again = connect_from("127.0.0.2", addr).await;
        again
            .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        let _ = again.read_to_end(&mut answer).await;
        if answer.starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the freed place was not given back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_kept_alive_connection_that_stays_idle_is_closed() {
    let app = TestApp::spawn_with("[limits]\nidle_timeout_seconds = 1").await;
    let addr: SocketAddr = app.base_url.trim_start_matches("http://").parse().unwrap();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut answer = vec![0u8; 4096];
    let n = stream.read(&mut answer).await.unwrap();
    assert!(answer[..n].starts_with(b"HTTP/1.1 200"));
    // Kept alive, then closed once it has been idle for the second it is allowed.
    let took = until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(took.is_some(), "an idle connection stayed open");
}
