//! Host names of outbound requests (webhook targets, OAuth metadata documents, carriers,
//! printers) are looked up here, with hickory's asynchronous resolver on the async workers: each
//! lookup ends within `LOOKUP_TIMEOUT`, and at most `MAX_LOOKUPS` run at once. Never on the
//! blocking pool that serves database reads, Argon2 and PDFs, where the system's `getaddrinfo`
//! would hold a thread for as long as a name server fails to answer.

use std::{
    net::{IpAddr, SocketAddr},
    sync::{Arc, OnceLock},
    time::Duration,
};

use hickory_resolver::TokioResolver;
use tokio::sync::Semaphore;

/// The longest a lookup may take, waiting for its turn included.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);
/// Lookups under way at once; more wait for a turn (within the timeout).
const MAX_LOOKUPS: usize = 32;

struct Dns {
    /// None when the system's resolver configuration cannot be read: every lookup fails.
    resolver: Option<TokioResolver>,
    turns: Semaphore,
}

fn dns() -> &'static Dns {
    static DNS: OnceLock<Dns> = OnceLock::new();
    DNS.get_or_init(|| {
        let resolver = TokioResolver::builder_tokio()
            .and_then(|mut builder| {
                let options = builder.options_mut();
                options.timeout = Duration::from_secs(2);
                options.attempts = 2;
                builder.build()
            })
            .map_err(|err| tracing::warn!(error = %err, "no DNS resolver: outbound host names will not resolve"))
            .ok();
        Dns {
            resolver,
            turns: Semaphore::new(MAX_LOOKUPS),
        }
    })
}

/// The addresses of `host` (a name, or an address literal, bracketed or not).
pub async fn lookup(host: &str) -> Result<Vec<IpAddr>, String> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![ip]);
    }
    let unresolved = || format!("the host {host} does not resolve");
    let dns = dns();
    let resolver = dns.resolver.as_ref().ok_or_else(unresolved)?;
    let looked_up = tokio::time::timeout(LOOKUP_TIMEOUT, async {
        let _turn = dns.turns.acquire().await.map_err(|_| unresolved())?;
        resolver.lookup_ip(host).await.map_err(|_| unresolved())
    })
    .await
    .map_err(|_| unresolved())??;
    let addresses: Vec<IpAddr> = looked_up.iter().collect();
    if addresses.is_empty() {
        return Err(unresolved());
    }
    Ok(addresses)
}

/// reqwest's resolver for clients whose targets need no address check (carriers).
pub struct Resolver;

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async move {
            let addresses = lookup(name.as_str()).await?;
            Ok(
                Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)))
                    as reqwest::dns::Addrs,
            )
        })
    }
}

impl Resolver {
    pub fn shared() -> Arc<Resolver> {
        Arc::new(Resolver)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn address_literals_need_no_lookup() {
        assert_eq!(
            lookup("127.0.0.1").await,
            Ok(vec![IpAddr::from([127, 0, 0, 1])])
        );
        assert_eq!(
            lookup("[::1]").await,
            Ok(vec!["::1".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))])
        );
    }

    #[tokio::test]
    async fn a_name_that_cannot_exist_fails_in_bounded_time() {
        let started = std::time::Instant::now();
        let found = lookup("no-such-host.invalid").await;
        assert!(found.is_err(), "{found:?}");
        assert!(started.elapsed() <= LOOKUP_TIMEOUT + Duration::from_secs(1));
    }
}
