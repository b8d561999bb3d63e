//! Sending one document to a printer: raw TCP (the bytes as they are, as port 9100 printers
//! take them) or IPP Print-Job over HTTP or HTTPS (the `ipp` crate encodes the request and
//! parses the answer). The printer's host is resolved here and every address it resolves to is checked
//! (`printer::Networks`) before anything is sent. What fails is said in words (refused, timed
//! out, busy), never as the socket's own error text.

use std::{net::SocketAddr, time::Duration};

use ipp::{
    model::StatusCode,
    operation::{IppOperation, builder::IppOperationBuilder},
    parser::IppParser,
    payload::IppPayload,
};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

use crate::model::printer::{Endpoint, Networks, Printer};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a raw printer may take to close the connection after a job was sent.
const RAW_DRAIN: Duration = Duration::from_secs(10);
/// The whole send: a printer takes its time to accept a large job.
const SEND_TIMEOUT: Duration = Duration::from_secs(60);

/// Why an attempt failed, and whether trying again can help.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub retry: bool,
    /// The printer is up but busy with other work: worth waiting for.
    pub busy: bool,
}

fn fatal(message: impl Into<String>) -> Failure {
    Failure {
        message: message.into(),
        retry: false,
        busy: false,
    }
}

fn transient(message: impl Into<String>) -> Failure {
    Failure {
        message: message.into(),
        retry: true,
        busy: false,
    }
}

fn busy(message: impl Into<String>) -> Failure {
    Failure {
        busy: true,
        ..transient(message)
    }
}

/// Sends `content` (a document in `format`) to `printer`.
pub async fn send(
    printer: &Printer,
    format: &str,
    title: &str,
    content: Vec<u8>,
    networks: &Networks,
) -> Result<(), Failure> {
    if format != printer.fields.format {
        return Err(fatal(format!(
            "the printer takes {}; this document is {format}",
            printer.fields.format
        )));
    }
    let endpoint = printer.fields.endpoint().map_err(fatal)?;
    let port = match &endpoint {
        Endpoint::Raw { port, .. } => *port,
        Endpoint::Ipp { url } => url.port_or_known_default().unwrap_or(631),
    };
    let addr = resolve(endpoint.host(), port, networks).await?;
    let sent = tokio::time::timeout(SEND_TIMEOUT, async {
        match &endpoint {
            Endpoint::Raw { .. } => raw(addr, &content).await,
            Endpoint::Ipp { url } => ipp(url, &printer.fields.address, addr, title, content).await,
        }
    })
    .await;
    sent.unwrap_or_else(|_| Err(transient("the printer did not take the job within 60 s")))
}

/// The printer's first address, when every address the host resolves to may be printed on.
async fn resolve(host: &str, port: u16, networks: &Networks) -> Result<SocketAddr, Failure> {
    let found = crate::outbound::dns::lookup(host)
        .await
        .map_err(|_| transient(format!("the printer's host {host} does not resolve")))?;
    if let Some(why) = found.iter().find_map(|ip| networks.refusal(*ip)) {
        return Err(fatal(format!(
            "the printer's host {host} leads to {why}, where printers are not allowed"
        )));
    }
    let first = *found
        .first()
        .ok_or_else(|| transient(format!("the printer's host {host} does not resolve")))?;
    Ok(SocketAddr::new(first, port))
}

/// A socket error in words.
fn io_failure(doing: &str, err: &std::io::Error) -> Failure {
    use std::io::ErrorKind;
    let what = match err.kind() {
        ErrorKind::ConnectionRefused => "the printer refused the connection",
        ErrorKind::TimedOut => "the printer did not answer in time",
        ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe => {
            "the printer closed the connection"
        }
        ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable => {
            "the printer's network cannot be reached"
        }
        _ => "the connection to the printer failed",
    };
    transient(format!("{what} ({doing})"))
}

/// An HTTP client error of an IPP request in words.
fn http_failure(doing: &str, err: &reqwest::Error) -> Failure {
    let what = if err.is_timeout() {
        "the printer did not answer in time"
    } else if err.is_connect() {
        "the printer could not be connected to"
    } else {
        "the connection to the printer failed"
    };
    transient(format!("{what} ({doing})"))
}

async fn raw(addr: SocketAddr, content: &[u8]) -> Result<(), Failure> {
    let mut stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr))
        .await
        .map_err(|_| transient("the printer did not answer within 5 s (connecting)"))?
        .map_err(|e| io_failure("connecting", &e))?;
    stream
        .write_all(content)
        .await
        .map_err(|e| io_failure("sending the job", &e))?;
    stream
        .shutdown()
        .await
        .map_err(|e| io_failure("finishing the job", &e))?;
    // As CUPS's socket backend does: wait for the printer to close its side, so that its next
    // job is sent when it has taken this one (a 9100 printer takes one connection at a time).
    // What it says meanwhile is discarded; one that keeps the connection open has the job all
    // the same.
    let mut sink = [0u8; 512];
    let _ = tokio::time::timeout(RAW_DRAIN, async {
        while let Ok(n) = stream.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    Ok(())
}

async fn ipp(
    url: &url::Url,
    printer_uri: &str,
    addr: SocketAddr,
    title: &str,
    content: Vec<u8>,
) -> Result<(), Failure> {
    let uri: ipp::prelude::Uri = printer_uri
        .parse()
        .map_err(|e| fatal(format!("the printer URI is not valid: {e}")))?;
    let request = IppOperationBuilder::print_job(uri, IppPayload::empty())
        .user_name("shipbase")
        .job_title(title)
        .document_format("application/pdf")
        .build()
        .map_err(|e| fatal(format!("cannot encode the IPP request: {e}")))?
        .into_ipp_request();
    let mut body = request.to_bytes().to_vec();
    body.extend_from_slice(&content);
    let host = url.host_str().unwrap_or_default();
    let client = reqwest::Client::builder()
        .resolve(host, addr)
        .redirect(reqwest::redirect::Policy::none())
        // An IPPS printer on the shop's network shows a certificate it made itself (as CUPS's
        // and ippeveprinter's do); no authority can vouch for it, so the channel is encrypted
        // but the certificate is not checked. The address is checked above as for IPP.
        .tls_danger_accept_invalid_certs(url.scheme() == "https")
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(SEND_TIMEOUT)
        .user_agent(concat!("Shipbase/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| fatal(format!("cannot build the IPP client: {e}")))?;
    let response = client
        .post(url.as_str())
        .header("Content-Type", "application/ipp")
        .body(body)
        .send()
        .await
        .map_err(|e| http_failure("sending the job", &e))?;
    let status = response.status();
    let bytes = response
        .bytes()
        .await
        .map_err(|e| http_failure("reading the answer", &e))?;
    if !status.is_success() {
        return Err(transient(format!("the printer answered HTTP {status}")));
    }
    let answer = IppParser::new(std::io::Cursor::new(bytes.to_vec()))
        .parse()
        .map_err(|_| transient("the printer's answer is not valid IPP"))?;
    let code = answer.header().status_code();
    if code.is_success() {
        Ok(())
    } else if code == StatusCode::ServerErrorBusy {
        Err(busy("the printer is busy"))
    } else if matches!(
        code,
        StatusCode::ServerErrorServiceUnavailable
            | StatusCode::ServerErrorTemporaryError
            | StatusCode::ServerErrorNotAcceptingJobs
    ) {
        Err(transient("the printer is not accepting jobs for now"))
    } else {
        Err(fatal(format!(
            "the printer refused the job (IPP status {})",
            code as u16
        )))
    }
}
