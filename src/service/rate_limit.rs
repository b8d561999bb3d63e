//! Per-credential token buckets (DESIGN §13): `rate_per_second` sustained, `burst` on top. Each
//! check says where the credential stands, for the `RateLimit-*` response headers.

use std::{collections::HashMap, sync::Mutex, time::Instant};

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
}
