//! A local SMTP server for the tests: it speaks enough of RFC 5321 for a client (EHLO, MAIL,
//! RCPT, DATA, RSET, NOOP, QUIT; no STARTTLS, so a client on loopback sends in clear), keeps
//! every message it accepts, and can be told to refuse mail for a while (451, try later) or for
//! good (550).

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicU16, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    net::{TcpListener, TcpStream},
};

/// A message as the sink received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub from: String,
    pub to: Vec<String>,
    pub data: Vec<u8>,
}

impl Received {
    pub fn parsed(&self) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default()
            .parse(&self.data)
            .expect("a message the parser reads")
    }

    /// A header's text as sent (unfolded).
    pub fn header(&self, name: &str) -> String {
        self.parsed()
            .header_raw(name)
            .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    }

    pub fn subject(&self) -> String {
        self.parsed().subject().unwrap_or_default().to_string()
    }

    pub fn text(&self) -> String {
        self.parsed()
            .body_text(0)
            .map(|t| t.into_owned())
            .unwrap_or_default()
    }

    pub fn html(&self) -> String {
        self.parsed()
            .body_html(0)
            .map(|t| t.into_owned())
            .unwrap_or_default()
    }
}

pub struct Sink {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    /// 0 to accept mail, else the reply code to MAIL FROM.
    refusal: Arc<AtomicU16>,
}

impl Sink {
    pub async fn start() -> Sink {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("address").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let refusal = Arc::new(AtomicU16::new(0));
        let (kept, code) = (received.clone(), refusal.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(converse(stream, kept.clone(), code.clone()));
            }
        });
        Sink {
            port,
            received,
            refusal,
        }
    }

    /// The `[smtp]` section that sends here.
    pub fn config(&self) -> String {
        format!(
            "[smtp]\nurl = \"smtp://127.0.0.1:{}\"\nfrom = \"noreply@shop.example\"\nretry_scale = 0.001\n",
            self.port
        )
    }

    /// From now on, answer MAIL FROM with `code` (451, 550), or accept again with 0.
    pub fn refuse(&self, code: u16) {
        self.refusal.store(code, Ordering::SeqCst);
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().expect("lock").clone()
    }

    /// Waits (up to 15 s) until `n` messages have arrived; they, in order.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let now = self.received();
            if now.len() >= n {
                return now;
            }
            assert!(
                Instant::now() < deadline,
                "{} messages arrived, not {n}",
                now.len()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

async fn converse(stream: TcpStream, kept: Arc<Mutex<Vec<Received>>>, refusal: Arc<AtomicU16>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    let mut say = async |text: &str| write.write_all(text.as_bytes()).await.is_ok();
    if !say("220 sink.test ESMTP\r\n").await {
        return;
    }
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        let command = line.trim_end().to_string();
        let verb = command
            .split([' ', ':'])
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let reply = match verb.as_str() {
            "EHLO" => "250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n".to_string(),
            "HELO" => "250 sink.test\r\n".into(),
            "MAIL" => match refusal.load(Ordering::SeqCst) {
                0 => {
                    from = command[10..].trim().to_string();
                    to.clear();
                    "250 OK\r\n".into()
                }
                451 => "451 4.3.2 Try again later\r\n".into(),
                code => format!("{code} 5.7.1 Refused for good\r\n"),
            },
            "RCPT" => {
                to.push(command[8..].trim().to_string());
                "250 OK\r\n".into()
            }
            "DATA" => {
                if !say("354 Go ahead\r\n").await {
                    return;
                }
                let mut data = Vec::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    if line == ".\r\n" {
                        break;
                    }
                    let unstuffed = line.strip_prefix('.').unwrap_or(&line);
                    data.extend_from_slice(unstuffed.as_bytes());
                }
                kept.lock().expect("lock").push(Received {
                    from: from.clone(),
                    to: std::mem::take(&mut to),
                    data,
                });
                "250 OK queued\r\n".into()
            }
            "RSET" | "NOOP" => "250 OK\r\n".into(),
            "QUIT" => {
                say("221 Bye\r\n").await;
                return;
            }
            _ => "502 Not implemented\r\n".into(),
        };
        if !say(&reply).await {
            return;
        }
    }
}
