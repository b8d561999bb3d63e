//! Slows down password guessing without locking anyone out for good: after a few failed
//! sign-ins for one account (or from one address), each further attempt must wait, twice as
//! long after every failure, at most 15 minutes; the record is forgotten an hour after the last
//! failure, and a successful sign-in clears the account's. Kept per process, in memory.

use std::{collections::HashMap, sync::Mutex};

use crate::model::time::Timestamp;

/// Failures allowed before waits begin, per account and per address.
const FREE_PER_ACCOUNT: u32 = 5;
const FREE_PER_ADDRESS: u32 = 20;
const MAX_WAIT_SECONDS: i64 = 15 * 60;
const FORGET_AFTER_SECONDS: i64 = 60 * 60;
/// Entries kept at most; past it, forgotten ones are swept out.
const SWEEP_ABOVE: usize = 10_000;

#[derive(Clone, Copy)]
struct Failures {
    count: u32,
    last: Timestamp,
}

/// What is throttled: an account (by e-mail) or an address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Account(String),
    Address(String),
}

impl Key {
    fn free(&self) -> u32 {
        match self {
            Key::Account(_) => FREE_PER_ACCOUNT,
            Key::Address(_) => FREE_PER_ADDRESS,
        }
    }
}

#[derive(Default)]
pub struct LoginThrottle {
    failures: Mutex<HashMap<Key, Failures>>,
}

impl LoginThrottle {
    /// Seconds to wait before another attempt for any of `keys`, if any.
    pub fn wait(&self, keys: &[Key], now: Timestamp) -> Option<i64> {
        let failures = self.lock();
        keys.iter()
            .filter_map(|key| {
                let f = failures.get(key)?;
                let over = f.count.checked_sub(key.free()).filter(|over| *over > 0)?;
                let delay = 1i64
                    .checked_shl(over.min(20))
                    .unwrap_or(MAX_WAIT_SECONDS)
                    .min(MAX_WAIT_SECONDS);
                let left = delay - (now - f.last).whole_seconds();
                (left > 0).then_some(left)
            })
            .max()
    }

    pub fn failed(&self, keys: &[Key], now: Timestamp) {
        let mut failures = self.lock();
        if failures.len() > SWEEP_ABOVE {
            failures.retain(|_, f| (now - f.last).whole_seconds() < FORGET_AFTER_SECONDS);
        }
        for key in keys {
            let entry = failures.entry(key.clone()).or_insert(Failures {
                count: 0,
                last: now,
            });
            if (now - entry.last).whole_seconds() >= FORGET_AFTER_SECONDS {
                entry.count = 0;
            }
            entry.count += 1;
            entry.last = now;
        }
    }

    pub fn succeeded(&self, account: &Key) {
        self.lock().remove(account);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Failures>> {
        self.failures.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        time::OffsetDateTime::UNIX_EPOCH + time::Duration::seconds(seconds)
    }

    #[test]
    fn waits_begin_after_the_free_attempts_and_double() {
        let throttle = LoginThrottle::default();
        let keys = [Key::Account("a@example.com".into())];
        for _ in 0..FREE_PER_ACCOUNT {
            assert_eq!(throttle.wait(&keys, at(0)), None);
            throttle.failed(&keys, at(0));
        }
        assert_eq!(
            throttle.wait(&keys, at(0)),
            None,
            "the fifth failure costs nothing yet"
        );
        throttle.failed(&keys, at(0));
        assert_eq!(throttle.wait(&keys, at(0)), Some(2));
        assert_eq!(throttle.wait(&keys, at(2)), None);
        throttle.failed(&keys, at(2));
        assert_eq!(throttle.wait(&keys, at(2)), Some(4));
    }

    #[test]
    fn waits_are_capped_forgotten_and_cleared_by_success() {
        let throttle = LoginThrottle::default();
        let account = Key::Account("a@example.com".into());
        let keys = [account.clone()];
        for _ in 0..40 {
            throttle.failed(&keys, at(0));
        }
        assert_eq!(throttle.wait(&keys, at(0)), Some(MAX_WAIT_SECONDS));
        throttle.failed(&keys, at(FORGET_AFTER_SECONDS));
        assert_eq!(throttle.wait(&keys, at(FORGET_AFTER_SECONDS)), None);
        for _ in 0..10 {
            throttle.failed(&keys, at(FORGET_AFTER_SECONDS));
        }
        throttle.succeeded(&account);
        assert_eq!(throttle.wait(&keys, at(FORGET_AFTER_SECONDS)), None);
    }

    #[test]
    fn an_address_gets_more_attempts_across_accounts() {
        let throttle = LoginThrottle::default();
        let address = Key::Address("192.0.2.1".into());
        for n in 0..FREE_PER_ADDRESS {
            let keys = [Key::Account(format!("{n}@example.com")), address.clone()];
            assert_eq!(throttle.wait(&keys, at(0)), None);
            throttle.failed(&keys, at(0));
        }
        throttle.failed(std::slice::from_ref(&address), at(0));
        assert_eq!(throttle.wait(&[address], at(0)), Some(2));
    }
}
