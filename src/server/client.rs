//! The client's address: the connection's peer or, when the peer is a trusted reverse proxy
//! (`server.trusted_proxies`), the address its `X-Forwarded-For` names — the rightmost entry that
//! is not itself a trusted proxy, since a client can write anything to the left of what its
//! proxy appended. Sign-in throttling, registration limits and the audit log use it.

use std::net::IpAddr;

use ipnet::IpNet;
use poem::http::HeaderMap;

/// The trusted reverse proxies: addresses and CIDR blocks.
#[derive(Clone, Debug, Default)]
pub struct Proxies(Vec<IpNet>);

impl Proxies {
    /// Parses `10.0.0.1`, `10.0.0.0/8`, `fd00::/8`…; the error names the entry at fault.
    pub fn parse(entries: &[String]) -> Result<Proxies, String> {
        entries
            .iter()
            .map(|entry| crate::model::net::parse(entry))
            .collect::<Result<Vec<_>, _>>()
            .map(Proxies)
    }

    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client behind a connection from `peer` that sent `headers`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return peer;
        }
        let mut hops = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        hops.reverse();
        let mut client = peer;
        for hop in hops {
            let Some(ip) = parse_hop(hop) else {
                break;
            };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

/// One `X-Forwarded-For` entry: an address, possibly with a port (`[::1]:80`, `1.2.3.4:80`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(addr) = hop.parse::<std::net::SocketAddr>() {
        return Some(addr.ip().to_canonical());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(forwarded: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in forwarded {
            map.append(
                "x-forwarded-for",
                value
                    .parse()
                    .unwrap_or(poem::http::HeaderValue::from_static("")),
            );
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_claims() {
        let proxies = Proxies::parse(&["10.0.0.0/8".into()]).unwrap_or_default();
        assert_eq!(
            proxies.client(ip("203.0.113.7"), &headers(&["198.51.100.1"])),
            ip("203.0.113.7")
        );
    }

    #[test]
    fn behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client() {
        let proxies =
            Proxies::parse(&["10.0.0.0/8".into(), "192.0.2.10".into()]).unwrap_or_default();
        let forwarded = headers(&["1.1.1.1, 198.51.100.1", "192.0.2.10"]);
        assert_eq!(
            proxies.client(ip("10.0.0.5"), &forwarded),
            ip("198.51.100.1")
        );
        assert_eq!(
            proxies.client(ip("10.0.0.5"), &headers(&[])),
            ip("10.0.0.5"),
            "no header: the proxy itself"
        );
        assert_eq!(
            proxies.client(ip("::ffff:10.0.0.5"), &headers(&["[2001:db8::1]:4711"])),
            ip("2001:db8::1")
        );
        assert_eq!(
            proxies.client(ip("10.0.0.5"), &headers(&["garbage, 198.51.100.2"])),
            ip("198.51.100.2")
        );
    }

    #[test]
    fn entries_are_addresses_or_cidr_blocks() {
        assert!(Proxies::parse(&["10.0.0.1".into(), "fd00::/8".into()]).is_ok());
        let err = Proxies::parse(&["10.0.0.0/33".into()])
            .err()
            .unwrap_or_default();
        assert!(err.contains("10.0.0.0/33"), "{err}");
    }
}
