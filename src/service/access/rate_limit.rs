//! Per-credential token buckets (DESIGN §13): `rate_per_second` sustained, `burst` on top. Each
//! check says where the credential stands, for the `RateLimit-*` response headers. And
//! per-address counts per minute, for what anyone may call without a credential (OAuth client
//! registration, DESIGN §19).

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::error::{Error, Result};

/// Where a credential stands after a request: the `RateLimit-Limit`, `RateLimit-Remaining` and
/// `RateLimit-Reset` (seconds until the bucket is full again) of the IETF draft.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    pub limit: u32,
    pub remaining: u32,
    pub reset_secs: u64,
}

pub struct RateLimiter {
    rate: f64,
    capacity: f64,
    buckets: Mutex<HashMap<String, Bucket>>,
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimiter {
    /// `rate_per_second` 0 turns limiting off.
    pub fn new(rate_per_second: u32, burst: u32) -> RateLimiter {
        RateLimiter {
            rate: f64::from(rate_per_second),
            capacity: f64::from(rate_per_second.saturating_add(burst)).max(1.0),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `key`'s bucket and says what is left (None when limiting is
    /// off), or how long to wait.
    pub fn check(&self, key: &str) -> Result<Option<Quota>> {
        self.check_at(key, Instant::now())
    }

    fn check_at(&self, key: &str, now: Instant) -> Result<Option<Quota>> {
        if self.rate == 0.0 {
            return Ok(None);
        }
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let bucket = buckets.entry(key.to_string()).or_insert(Bucket {
            tokens: self.capacity,
            at: now,
        });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * self.rate).min(self.capacity);
        bucket.at = now;
        let limit = self.capacity as u32;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(Some(Quota {
                limit,
                remaining: bucket.tokens.floor() as u32,
                reset_secs: ((self.capacity - bucket.tokens) / self.rate).ceil() as u64,
            }))
        } else {
            let wait = ((1.0 - bucket.tokens) / self.rate).ceil().max(1.0);
            Err(Error::RateLimited {
                retry_after_secs: wait as u64,
                limit,
                reset_secs: ((self.capacity - bucket.tokens) / self.rate).ceil() as u64,
            })
        }
    }
}

/// At most `limit` calls per client address per minute (IPv6 addresses counted per /64, what one
/// subscriber is usually given; 0 means no limit). Kept in memory: limits are per process
/// (DESIGN §18).
pub struct PerMinute {
    limit: u32,
    windows: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

/// Addresses remembered at most; past it, finished windows are swept out, and when that is not
/// enough every address waits for the next minute.
const MAX_ADDRESSES: usize = 100_000;
const MINUTE: Duration = Duration::from_secs(60);

impl PerMinute {
    pub fn new(limit: u32) -> PerMinute {
        PerMinute {
            limit,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one call from `address`; Err holds the seconds until it may call again.
    pub fn check(&self, address: IpAddr) -> std::result::Result<(), u64> {
        self.check_at(address, Instant::now())
    }

    fn check_at(&self, address: IpAddr, now: Instant) -> std::result::Result<(), u64> {
        if self.limit == 0 {
            return Ok(());
        }
        let key = match address.to_canonical() {
            IpAddr::V6(v6) => {
                let [a, b, c, d, ..] = v6.segments();
                IpAddr::from([a, b, c, d, 0, 0, 0, 0])
            }
            v4 => v4,
        };
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if windows.len() >= MAX_ADDRESSES && !windows.contains_key(&key) {
            windows.retain(|_, (_, since)| now.saturating_duration_since(*since) < MINUTE);
            if windows.len() >= MAX_ADDRESSES {
                return Err(MINUTE.as_secs());
            }
        }
        let (count, since) = windows.entry(key).or_insert((0, now));
        if now.saturating_duration_since(*since) >= MINUTE {
            *count = 0;
            *since = now;
        }
        if *count >= self.limit {
            let left = MINUTE.saturating_sub(now.saturating_duration_since(*since));
            return Err(left.as_secs().max(1));
        }
        *count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_burst_is_allowed_then_refused_then_refilled() {
        let limiter = RateLimiter::new(2, 3);
        let start = Instant::now();
        assert_eq!(
            limiter.check_at("tok_a", start).ok().flatten(),
            Some(Quota {
                limit: 5,
                remaining: 4,
                reset_secs: 1
            })
        );
        for _ in 0..4 {
            assert!(limiter.check_at("tok_a", start).is_ok());
        }
        assert!(matches!(
            limiter.check_at("tok_a", start),
            Err(Error::RateLimited {
                retry_after_secs: 1,
                limit: 5,
                reset_secs: 3
            })
        ));
        assert!(
            limiter.check_at("tok_b", start).is_ok(),
            "buckets are per credential"
        );
        assert!(
            limiter
                .check_at("tok_a", start + Duration::from_millis(500))
                .is_ok()
        );
    }

    #[test]
    fn zero_rate_means_unlimited() {
        let limiter = RateLimiter::new(0, 0);
        let now = Instant::now();
        assert!((0..10_000).all(|_| matches!(limiter.check_at("k", now), Ok(None))));
    }

    #[test]
    fn an_address_gets_its_calls_per_minute_and_ipv6_counts_per_slash_64() {
        let limiter = PerMinute::new(2);
        let now = Instant::now();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap_or(IpAddr::from([0, 0, 0, 0]));
        assert_eq!(limiter.check_at(ip("192.0.2.1"), now), Ok(()));
        assert_eq!(limiter.check_at(ip("192.0.2.1"), now), Ok(()));
        assert_eq!(
            limiter.check_at(ip("192.0.2.1"), now + Duration::from_secs(15)),
            Err(45)
        );
        assert_eq!(limiter.check_at(ip("192.0.2.2"), now), Ok(()));
        assert_eq!(
            limiter.check_at(ip("192.0.2.1"), now + Duration::from_secs(60)),
            Ok(()),
            "a new minute"
        );
        assert_eq!(limiter.check_at(ip("2001:db8::1"), now), Ok(()));
        assert_eq!(limiter.check_at(ip("2001:db8::2"), now), Ok(()));
        assert!(
            limiter.check_at(ip("2001:db8::ffff"), now).is_err(),
            "the same /64"
        );
    }
}
