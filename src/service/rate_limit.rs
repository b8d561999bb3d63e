//! Per-credential token buckets (DESIGN §13): `rate_per_second` sustained, `burst` on top.

use std::{collections::HashMap, sync::Mutex, time::Instant};

use crate::error::{Error, Result};

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

    /// Takes one request from `key`'s bucket, or says how long to wait.
    pub fn check(&self, key: &str) -> Result<()> {
        self.check_at(key, Instant::now())
    }

    fn check_at(&self, key: &str, now: Instant) -> Result<()> {
        if self.rate == 0.0 {
            return Ok(());
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
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = ((1.0 - bucket.tokens) / self.rate).ceil().max(1.0);
            Err(Error::RateLimited {
                retry_after_secs: wait as u64,
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
        for _ in 0..5 {
            assert!(limiter.check_at("tok_a", start).is_ok());
        }
        assert!(matches!(
            limiter.check_at("tok_a", start),
            Err(Error::RateLimited {
                retry_after_secs: 1
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
        assert!((0..10_000).all(|_| limiter.check_at("k", now).is_ok()));
    }
}
