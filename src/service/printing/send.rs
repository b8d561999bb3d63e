//! Sending one document to a printer: raw TCP (the bytes as they are, as port 9100 printers
//! take them) or IPP Print-Job over HTTP (the `ipp` crate encodes the request and parses the
//! answer). The printer's host is resolved here and every address it resolves to is checked
//! (`printer::reachable`) before anything is sent.

use std::{net::SocketAddr, time::Duration};

use ipp::{
    model::StatusCode,
    operation::{IppOperation, builder::IppOperationBuilder},
    parser::IppParser,
    payload::IppPayload,
};
use tokio::{io::AsyncWriteExt, net::TcpStream};

use crate::model::printer::{Endpoint, Printer, reachable};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The whole send: a printer takes its time to accept a large job.
const SEND_TIMEOUT: Duration = Duration::from_secs(60);

/// Why an attempt failed, and whether trying again can help.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub retry: bool,
}

fn fatal(message: impl Into<String>) -> Failure {
    Failure {
        message: message.into(),
        retry: false,
    }
}

fn transient(message: impl Into<String>) -> Failure {
    Failure {
        message: message.into(),
        retry: true,
    }
}

/// Sends `content` (a document in `format`) to `printer`.
pub async fn send(
    printer: &Printer,
    format: &str,
    title: &str,
    content: Vec<u8>,
    allow_loopback: bool,
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
    let addr = resolve(endpoint.host(), port, allow_loopback).await?;
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
async fn resolve(host: &str, port: u16, allow_loopback: bool) -> Result<SocketAddr, Failure> {
    let found: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| transient(format!("cannot resolve {host}: {e}")))?
        .collect();
    let first = *found
        .first()
        .ok_or_else(|| transient(format!("{host} has no address")))?;
    if let Some(refused) = found.iter().find(|a| !reachable(a.ip(), allow_loopback)) {
        return Err(fatal(format!(
            "{host} resolves to {}, where printers are not allowed (loopback needs printers.allow_loopback)",
            refused.ip()
        )));
    }
    Ok(first)
}

async fn raw(addr: SocketAddr, content: &[u8]) -> Result<(), Failure> {
    let mut stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr))
        .await
        .map_err(|_| transient(format!("no answer from {addr} within 5 s")))?
        .map_err(|e| transient(format!("cannot connect to {addr}: {e}")))?;
    stream
        .write_all(content)
        .await
        .map_err(|e| transient(format!("sending to {addr} failed: {e}")))?;
    stream
        .shutdown()
        .await
        .map_err(|e| transient(format!("closing the job at {addr} failed: {e}")))
}

async fn ipp(
    url: &url::Url,
    printer_uri: &str,
    addr: SocketAddr,
    title: &str,
    content: Vec<u8>,
) -> Result<(), Failure> {
    let uri: poem::http::Uri = printer_uri
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
        .map_err(|e| transient(format!("the IPP request to {url} failed: {e}")))?;
    let status = response.status();
    let bytes = response
        .bytes()
        .await
        .map_err(|e| transient(format!("reading the IPP answer failed: {e}")))?;
    if !status.is_success() {
        return Err(transient(format!("the printer answered HTTP {status}")));
    }
    let answer = IppParser::new(std::io::Cursor::new(bytes.to_vec()))
        .parse()
        .map_err(|e| transient(format!("the printer's IPP answer is not valid: {e}")))?;
    let code = answer.header().status_code();
    if code.is_success() {
        Ok(())
    } else if matches!(
        code,
        StatusCode::ServerErrorBusy
            | StatusCode::ServerErrorServiceUnavailable
            | StatusCode::ServerErrorTemporaryError
            | StatusCode::ServerErrorNotAcceptingJobs
    ) {
        Err(transient(format!(
            "the printer refused the job for now: {code:?}"
        )))
    } else {
        Err(fatal(format!("the printer refused the job: {code:?}")))
    }
}
