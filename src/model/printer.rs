//! Network printers and their print jobs (DESIGN §17).

use std::net::{IpAddr, Ipv6Addr};

use poem_openapi::Object;
use serde::Deserialize;

use crate::model::validate::Violations;

pub const KINDS: [&str; 2] = ["raw", "ipp"];
pub const FORMATS: [&str; 2] = ["pdf", "zpl"];

/// The writable fields of a printer: the body of a create or a full replacement.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct PrinterIn {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: String,
    /// `raw` (a TCP socket, usually port 9100, that prints what it receives) or `ipp`.
    pub kind: String,
    /// `host:port` for a raw printer (port 9100 when none is given); an `ipp://`, `ipps://`,
    /// `http://` or `https://` URI for an IPP printer (`ipp` and `ipps` on port 631 unless the
    /// URI names another).
    #[oai(validator(min_length = 1, max_length = 500))]
    pub address: String,
    /// What the printer takes: `pdf` or `zpl` (ZPL II thermal printers).
    pub format: String,
}

/// A network printer.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Printer {
    pub id: String,
    pub org_id: String,
    #[oai(flatten)]
    pub fields: PrinterIn,
    pub created_at: String,
    pub updated_at: String,
}

crate::page_of!(PrinterPage, Printer);

/// What a print job prints: a shipment's document, or a printer's test page.
pub const JOB_DOCUMENT: &str = "document";
pub const JOB_TEST_PAGE: &str = "test_page";
pub const JOB_MANIFEST: &str = "manifest";

/// One document, test page or manifest, sent (or to be sent) to a printer.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct PrintJob {
    pub id: String,
    pub printer_id: String,
    /// `document` (a shipment's document), `test_page` (the printer's test page) or
    /// `manifest` (an end-of-day manifest's PDF).
    pub kind: String,
    /// The document printed; null for a test page.
    pub document_id: Option<String>,
    /// The shipment of the document; null for a test page.
    pub shipment_id: Option<String>,
    /// `queued`, `printed` or `failed`.
    pub status: String,
    /// Attempts made so far (a job is tried at most 4 times).
    pub attempts: u32,
    /// Why the last attempt failed.
    pub error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

crate::page_of!(PrintJobPage, PrintJob);

/// What to print of a shipment, and where.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct PrintIn {
    /// The printer (`prn_…`) to send the documents to.
    pub printer_id: String,
    /// `label` (the default), `commercial_invoice`, `proforma_invoice` or `packing_list`.
    pub document_type: Option<String>,
}

/// The print jobs a print request queued, in the order they print.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct PrintJobs {
    pub print_jobs: Vec<PrintJob>,
}

/// Where a printer is reached, as its address says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A TCP socket that prints what it receives.
    Raw { host: String, port: u16 },
    /// An IPP printer, posted to over HTTP at `url`.
    Ipp { url: url::Url },
}

impl Endpoint {
    /// The host to resolve and check.
    pub fn host(&self) -> &str {
        match self {
            Endpoint::Raw { host, .. } => host,
            Endpoint::Ipp { url } => url.host_str().unwrap_or_default(),
        }
    }
}

impl PrinterIn {
    pub fn validate(&self, errors: &mut Violations) {
        errors.length("name", &self.name, 1, 200);
        // The schema's bound; within it, the address must parse for its kind.
        let long = self.address.chars().count() > 500;
        if long {
            errors.add("address", "must be at most 500 characters long");
        }
        if !KINDS.contains(&self.kind.as_str()) {
            errors.add("kind", "must be raw or ipp");
        }
        if !FORMATS.contains(&self.format.as_str()) {
            errors.add("format", "must be pdf or zpl");
        }
        if self.kind == "ipp" && self.format != "pdf" {
            errors.add("format", "an IPP printer takes pdf");
        }
        if !long
            && KINDS.contains(&self.kind.as_str())
            && let Err(message) = self.endpoint()
        {
            errors.add("address", message);
        }
    }

    /// The printer's address, parsed for its kind.
    pub fn endpoint(&self) -> Result<Endpoint, String> {
        match self.kind.as_str() {
            "raw" => raw_endpoint(&self.address),
            _ => ipp_endpoint(&self.address),
        }
    }
}

/// The port raw printers listen on when the address names none.
pub const RAW_PORT: &str = "9100";

fn raw_endpoint(address: &str) -> Result<Endpoint, String> {
    const SHAPE: &str =
        "must be host or host:port (9100 when absent), as 192.168.1.50:9100 or [fd00::5]:9100";
    let (host, port) = if let Some(bracketed) = address.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']').ok_or(SHAPE)?;
        let port = match after {
            "" => RAW_PORT,
            after => after.strip_prefix(':').ok_or(SHAPE)?,
        };
        (host, port)
    } else if address.parse::<Ipv6Addr>().is_ok() {
        (address, RAW_PORT)
    } else {
        address.rsplit_once(':').unwrap_or((address, RAW_PORT))
    };
    let port: u16 = port.parse().map_err(|_| SHAPE.to_string())?;
    if host.is_empty() || port == 0 || host.contains(['/', ' ', '@']) {
        return Err(SHAPE.into());
    }
    if host.contains(':') && host.parse::<Ipv6Addr>().is_err() {
        return Err(SHAPE.into());
    }
    Ok(Endpoint::Raw {
        host: host.to_string(),
        port,
    })
}

fn ipp_endpoint(address: &str) -> Result<Endpoint, String> {
    const SHAPE: &str =
        "must be an ipp://, ipps://, http:// or https:// URI, as ipp://192.168.1.60/ipp/print";
    let url = url::Url::parse(address).map_err(|_| SHAPE.to_string())?;
    let url = match url.scheme() {
        "http" | "https" => url,
        // IPP is HTTP on port 631 unless the URI says otherwise, and IPPS is HTTPS on the same
        // port (RFC 8010, RFC 7472).
        scheme @ ("ipp" | "ipps") => {
            let port = url.port().unwrap_or(631);
            let rest = &address[scheme.len() + "://".len()..];
            let http_scheme = if scheme == "ipps" { "https" } else { "http" };
            let mut http =
                url::Url::parse(&format!("{http_scheme}://{rest}")).map_err(|_| SHAPE)?;
            http.set_port(Some(port)).map_err(|()| SHAPE)?;
            http
        }
        _ => return Err(SHAPE.into()),
    };
    if url.host_str().is_none_or(str::is_empty) || !url.username().is_empty() {
        return Err(SHAPE.into());
    }
    Ok(Endpoint::Ipp { url })
}

/// Where printers may be (DESIGN §17, §19): private networks and public addresses, but never
/// cloud metadata services (in any cloud, IPv4 or IPv6), link-local, multicast, broadcast or
/// unspecified addresses; loopback only with `printers.allow_loopback`; and, when
/// `printers.allowed_networks` is set, only inside those networks.
#[derive(Clone, Debug, Default)]
pub struct Networks {
    pub allow_loopback: bool,
    pub allowed: Vec<ipnet::IpNet>,
}

/// Cloud metadata and platform services outside the link-local ranges (those are refused as
/// link-local): Alibaba Cloud, Azure's WireServer, Oracle Cloud's legacy address, AWS's IPv6
/// instance metadata (and its DNS and time services), Google Cloud's IPv6 metadata server.
const METADATA: [&str; 5] = [
    "100.100.100.200/32",
    "168.63.129.16/32",
    "192.0.0.192/32",
    "fd00:ec2::/64",
    "fd20:ce::254/128",
];

impl Networks {
    /// Why a printer may not be at `ip`, in words; None when it may.
    pub fn refusal(&self, ip: IpAddr) -> Option<&'static str> {
        let ip = ip.to_canonical();
        if is_metadata(ip) {
            return Some("a cloud metadata address");
        }
        if ip.is_loopback() && !self.allow_loopback {
            return Some("a loopback address (allowed only with printers.allow_loopback)");
        }
        let never = match ip {
            IpAddr::V4(v4) => {
                v4.is_link_local() || v4.is_multicast() || v4.is_broadcast() || v4.is_unspecified()
            }
            IpAddr::V6(v6) => {
                (v6.segments()[0] & 0xffc0) == 0xfe80 || v6.is_multicast() || v6.is_unspecified()
            }
        };
        if never {
            return Some("a link-local, multicast or unspecified address");
        }
        if !self.allowed.is_empty()
            && !ip.is_loopback()
            && !self.allowed.iter().any(|net| net.contains(&ip))
        {
            return Some("outside the networks printers.allowed_networks names");
        }
        None
    }
}

fn is_metadata(ip: IpAddr) -> bool {
    METADATA
        .iter()
        .filter_map(|net| net.parse::<ipnet::IpNet>().ok())
        .any(|net| net.contains(&ip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(kind: &str, address: &str, format: &str) -> PrinterIn {
        PrinterIn {
            name: "Desk".into(),
            kind: kind.into(),
            address: address.into(),
            format: format.into(),
        }
    }

    fn problems(f: &PrinterIn) -> Vec<String> {
        let mut errors = Violations::new();
        f.validate(&mut errors);
        match errors.finish() {
            Ok(()) => Vec::new(),
            Err(crate::error::Error::Validation(v)) => v.into_iter().map(|v| v.field).collect(),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn raw_addresses_are_host_and_port() {
        assert_eq!(
            fields("raw", "192.168.1.50:9100", "zpl").endpoint(),
            Ok(Endpoint::Raw {
                host: "192.168.1.50".into(),
                port: 9100
            })
        );
        assert_eq!(
            fields("raw", "[fd00::5]:9100", "pdf").endpoint(),
            Ok(Endpoint::Raw {
                host: "fd00::5".into(),
                port: 9100
            })
        );
        // Without a port, the raw printing port.
        for (address, host) in [
            ("printer", "printer"),
            ("fd00::5", "fd00::5"),
            ("[fd00::5]", "fd00::5"),
        ] {
            assert_eq!(
                fields("raw", address, "pdf").endpoint(),
                Ok(Endpoint::Raw {
                    host: host.into(),
                    port: 9100
                }),
                "{address}"
            );
        }
        for bad in [
            "printer:0",
            "printer:70000",
            ":9100",
            "a/b:9100",
            "[fd00::5]9100",
            "[fd00::5",
            "",
        ] {
            assert_eq!(problems(&fields("raw", bad, "pdf")), ["address"], "{bad}");
        }
    }

    #[test]
    fn ipp_addresses_become_http_on_631() {
        let Ok(Endpoint::Ipp { url }) = fields("ipp", "ipp://10.0.0.7/ipp/print", "pdf").endpoint()
        else {
            panic!("not parsed");
        };
        assert_eq!(url.as_str(), "http://10.0.0.7:631/ipp/print");
        let Ok(Endpoint::Ipp { url }) =
            fields("ipp", "http://printer.local:8631/ipp/print", "pdf").endpoint()
        else {
            panic!("not parsed");
        };
        assert_eq!(url.as_str(), "http://printer.local:8631/ipp/print");
        let Ok(Endpoint::Ipp { url }) =
            fields("ipp", "ipps://10.0.0.7/ipp/print", "pdf").endpoint()
        else {
            panic!("not parsed");
        };
        assert_eq!(url.as_str(), "https://10.0.0.7:631/ipp/print");
        let Ok(Endpoint::Ipp { url }) =
            fields("ipp", "IPPS://10.0.0.7:8443/ipp/print", "pdf").endpoint()
        else {
            panic!("not parsed");
        };
        assert_eq!(url.as_str(), "https://10.0.0.7:8443/ipp/print");
        assert_eq!(problems(&fields("ipp", "ftp://x/y", "pdf")), ["address"]);
        assert_eq!(problems(&fields("ipp", "ipp://x/y", "zpl")), ["format"]);
        assert_eq!(problems(&fields("fax", "x:1", "png")), ["kind", "format"]);
    }

    fn reachable(ip: &str, allow_loopback: bool) -> bool {
        let networks = Networks {
            allow_loopback,
            allowed: Vec::new(),
        };
        networks
            .refusal(ip.parse::<IpAddr>().unwrap_or(IpAddr::from([0, 0, 0, 0])))
            .is_none()
    }

    #[test]
    fn loopback_only_when_allowed_and_never_link_local() {
        assert!(reachable("192.168.1.50", false));
        assert!(reachable("10.1.2.3", false));
        assert!(reachable("fd00::5", false));
        assert!(!reachable("127.0.0.1", false));
        assert!(reachable("127.0.0.1", true));
        assert!(!reachable("::1", false));
        assert!(!reachable("::ffff:127.0.0.1", false));
        assert!(!reachable("fe80::1", true));
        assert!(!reachable("0.0.0.0", true));
        assert!(!reachable("224.0.0.1", true));
    }

    #[test]
    fn cloud_metadata_services_are_refused_in_every_cloud() {
        for metadata in [
            "169.254.169.254",
            "169.254.170.2",
            "100.100.100.200",
            "168.63.129.16",
            "192.0.0.192",
            "fd00:ec2::254",
            "fd00:ec2::253",
            "fd20:ce::254",
            "::ffff:169.254.169.254",
            "::ffff:100.100.100.200",
        ] {
            assert!(!reachable(metadata, true), "{metadata}");
        }
        assert!(
            reachable("100.100.100.201", false),
            "a neighbour of one is fine"
        );
    }

    #[test]
    fn allowed_networks_narrow_where_printers_may_be() {
        let networks = Networks {
            allow_loopback: true,
            allowed: vec!["192.168.10.0/24".parse().unwrap_or_else(|_| panic!("net"))],
        };
        let ip = |s: &str| s.parse::<IpAddr>().unwrap_or(IpAddr::from([0, 0, 0, 0]));
        assert_eq!(networks.refusal(ip("192.168.10.20")), None);
        assert_eq!(
            networks.refusal(ip("192.168.11.20")),
            Some("outside the networks printers.allowed_networks names")
        );
        assert_eq!(
            networks.refusal(ip("127.0.0.1")),
            None,
            "loopback as configured"
        );
    }
}
