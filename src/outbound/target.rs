//! Where webhooks may deliver (DESIGN §9): never to loopback, private, link-local, unique-local,
//! multicast, unspecified or other non-public addresses, in any spelling (IPv4, IPv6,
//! IPv4-mapped and embedded forms; decimal, hex and short IPv4 are normalized by the URL parser),
//! unless `webhooks.allow_private_targets` is true. Checked when a webhook is saved and again at
//! delivery, where the addresses checked are the ones connected to (no second lookup).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use url::{Host, Url};

/// Parses a webhook URL: absolute, http or https, with a host.
pub fn parse(text: &str) -> Result<Url, String> {
    let url =
        Url::parse(text.trim()).map_err(|_| "must be an absolute http or https URL".to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("must be an absolute http or https URL".into());
    }
    if url.host().is_none() {
        return Err("must name a host".into());
    }
    Ok(url)
}

/// Whether webhooks may not reach `ip`.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => private_v6(v6),
    }
}

fn private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240 // reserved
}

fn private_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    let embedded_v4 = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if let Some(v4) = ip.to_ipv4_mapped() {
        return private_v4(v4);
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (segments[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (segments[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (segments[0] & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated)
        || (segments[0] == 0x2001 && segments[1] == 0x0db8) // documentation
        // IPv4-compatible ::a.b.c.d (deprecated): the embedded address decides.
        || (segments[..6].iter().all(|s| *s == 0) && private_v4(embedded_v4(segments[6], segments[7])))
        // NAT64 64:ff9b::/96 and 6to4 2002::/16 reach IPv4 addresses.
        || (segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] && private_v4(embedded_v4(segments[6], segments[7])))
        || (segments[0] == 0x2002 && private_v4(embedded_v4(segments[1], segments[2])))
}

/// The target of `url` when its host is an address literal.
fn literal(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        Host::Domain(_) => None,
    }
}

const REFUSED: &str = "must not point to a loopback, private, link-local or other non-public \
     address (the setting webhooks.allow_private_targets = true allows it, for tests and \
     private networks)";

/// Checks the address of a literal host; a domain is checked by `resolve`.
pub fn check_literal(url: &Url, allow_private: bool) -> Result<(), String> {
    match literal(url) {
        Some(ip) if !allow_private && is_private(ip) => Err(REFUSED.into()),
        _ => Ok(()),
    }
}

/// Checks where `url` leads: its literal address, or every address its host resolves to.
pub async fn check(url: &Url, allow_private: bool) -> Result<(), String> {
    check_literal(url, allow_private)?;
    if allow_private || literal(url).is_some() {
        return Ok(());
    }
    let host = url.host_str().unwrap_or_default();
    resolve(host, allow_private).await.map(|_| ())
}

/// Resolves `host` (see `dns`), refusing it when any of its addresses is not public.
pub async fn resolve(host: &str, allow_private: bool) -> Result<Vec<SocketAddr>, String> {
    let addrs: Vec<SocketAddr> = super::dns::lookup(host)
        .await?
        .into_iter()
        .map(|ip| SocketAddr::new(ip, 0))
        .collect();
    if !allow_private && addrs.iter().any(|a| is_private(a.ip())) {
        return Err(REFUSED.into());
    }
    Ok(addrs)
}

/// The HTTP client's resolver: the addresses it returns are the checked ones, so a name cannot
/// resolve to a public address when saved and to a private one when delivered to.
pub struct GuardedResolver {
    pub allow_private: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let addrs = resolve(name.as_str(), allow_private).await?;
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url_is_refused(text: &str) -> bool {
        parse(text)
            .and_then(|url| check_literal(&url, false))
            .is_err()
    }

    #[test]
    fn every_spelling_of_a_private_address_is_refused() {
        for text in [
            "http://127.0.0.1/",
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0x7f.0.0.1/",
            "http://0177.0.0.1/",
            "http://10.0.0.7/",
            "http://172.16.5.4/",
            "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data",
            "http://100.64.0.1/",
            "http://0.0.0.0/",
            "http://224.0.0.1/",
            "http://255.255.255.255/",
            "http://[::1]/",
            "http://[::]/",
            "http://[fc00::1]/",
            "http://[fd12:3456::1]/",
            "http://[fe80::1]/",
            "http://[ff02::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:10.0.0.1]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::a00:1]/",
            "http://[2002:a00:1::]/",
        ] {
            assert!(url_is_refused(text), "{text} was let through");
        }
    }

    #[test]
    fn public_addresses_pass_and_allowing_private_targets_lets_all_through() {
        for text in [
            "https://93.184.215.14/hook",
            "http://[2606:4700::1111]/",
            "http://[::ffff:8.8.8.8]/",
            "https://hooks.example.com/x",
        ] {
            assert!(!url_is_refused(text), "{text} was refused");
        }
        let local = parse("http://127.0.0.1:9/").unwrap_or_else(|e| panic!("{e}"));
        assert!(check_literal(&local, true).is_ok());
    }

    #[test]
    fn only_absolute_http_urls_are_targets() {
        for text in [
            "not a uri",
            "/relative",
            "ftp://example.com/",
            "mailto:a@b.c",
            "http://",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }

    #[tokio::test]
    async fn a_name_resolving_to_loopback_is_refused() {
        let url = parse("http://localhost:9/hook").unwrap_or_else(|e| panic!("{e}"));
        assert!(check(&url, false).await.is_err());
        assert!(check(&url, true).await.is_ok());
    }
}
