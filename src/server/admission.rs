//! Which connections are let in: at most `max_connections` open at once, and at most
//! `max_connections_per_ip` from one client address (a trusted reverse proxy carries many
//! clients, so it is counted only against the total). A connection over either cap is answered
//! 503 and closed at once, so a greedy client cannot crowd out `/health` or anyone else.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::{Arc, Mutex},
};

use tokio::{net::TcpStream, sync::Semaphore};

use super::{Limits, client::Proxies};

/// Connections open per client address.
type Open = Arc<Mutex<HashMap<IpAddr, usize>>>;

pub struct Admission {
    total: Arc<Semaphore>,
    per_ip: usize,
    open: Open,
    proxies: Proxies,
}

/// Held for as long as the connection is open; gives its place back when dropped.
pub struct Ticket {
    _total: tokio::sync::OwnedSemaphorePermit,
    ip: Option<(IpAddr, Open)>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some((ip, open)) = self.ip.take() {
            let mut open = open.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(count) = open.get_mut(&ip) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    open.remove(&ip);
                }
            }
        }
    }
}

impl Admission {
    pub fn new(limits: &Limits) -> Admission {
        Admission {
            total: Arc::new(Semaphore::new(
                limits.max_connections.min(Semaphore::MAX_PERMITS),
            )),
            per_ip: limits.max_connections_per_ip,
            open: Arc::default(),
            proxies: limits.proxies.clone(),
        }
    }

    /// A place for a connection from `peer`, or None when a cap is reached.
    pub fn admit(&self, peer: IpAddr) -> Option<Ticket> {
        let peer = peer.to_canonical();
        let total = self.total.clone().try_acquire_owned().ok()?;
        if self.proxies.trusts(peer) {
            return Some(Ticket {
                _total: total,
                ip: None,
            });
        }
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(peer).or_insert(0);
        if *count >= self.per_ip {
            tracing::warn!(address = %peer, "refusing a connection: too many from this address");
            return None;
        }
        *count += 1;
        Some(Ticket {
            _total: total,
            ip: Some((peer, self.open.clone())),
        })
    }
}

const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n\
connection: close\r\nretry-after: 1\r\ncontent-length: 28\r\n\r\nToo many open connections.\r\n";

/// Answers a connection that was not admitted with 503, as far as the socket takes it without
/// waiting, and closes it.
pub fn refuse(socket: TcpStream) {
    let _ = socket.try_write(BUSY);
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn limits(total: usize, per_ip: usize, proxies: &[&str]) -> Limits {
        Limits {
            header_timeout: Duration::from_secs(1),
            idle_timeout: Duration::from_secs(1),
            max_connections: total,
            max_connections_per_ip: per_ip,
            proxies: Proxies::parse(&proxies.iter().map(|p| p.to_string()).collect::<Vec<_>>())
                .unwrap_or_default(),
        }
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))
    }

    #[test]
    fn each_address_gets_its_share_and_gives_it_back() {
        let admission = Admission::new(&limits(10, 2, &[]));
        let a1 = admission.admit(ip("192.0.2.1"));
        let a2 = admission.admit(ip("192.0.2.1"));
        assert!(a1.is_some() && a2.is_some());
        assert!(
            admission.admit(ip("192.0.2.1")).is_none(),
            "third from one address"
        );
        assert!(
            admission.admit(ip("::ffff:192.0.2.1")).is_none(),
            "the same address in IPv6 form"
        );
        assert!(
            admission.admit(ip("192.0.2.2")).is_some(),
            "another address"
        );
        drop(a1);
        assert!(admission.admit(ip("192.0.2.1")).is_some());
        drop(a2);
        assert!(admission.open.lock().map(|o| o.len()).unwrap_or(9) <= 1);
    }

    #[test]
    fn the_total_caps_everyone_and_proxies_only_count_against_it() {
        let admission = Admission::new(&limits(3, 1, &["10.0.0.0/8"]));
        let held: Vec<_> = (0..3)
            .filter_map(|_| admission.admit(ip("10.1.2.3")))
            .collect();
        assert_eq!(
            held.len(),
            3,
            "a trusted proxy is not held to the per-address cap"
        );
        assert!(
            admission.admit(ip("192.0.2.9")).is_none(),
            "the total is reached"
        );
        drop(held);
        assert!(admission.admit(ip("192.0.2.9")).is_some());
    }
}
