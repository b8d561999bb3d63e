//! Slows down password guessing without locking anyone out for good: after a few failed
//! sign-ins for one account (or from one address), each further attempt must wait, twice as
//! long after every failure, at most 15 minutes; the record is forgotten an hour after the last
//! failure, and a successful sign-in clears the account's. Kept in the database
//! (`login_failures`), so every process serving it counts the same failures.

use crate::{
    error::Result,
    model::time::{self, Timestamp},
    service::Ctx,
    store,
};

/// Failures allowed before waits begin, per account and per address.
const FREE_PER_ACCOUNT: u32 = 5;
const FREE_PER_ADDRESS: u32 = 20;
const MAX_WAIT_SECONDS: i64 = 15 * 60;
pub(crate) const FORGET_AFTER_SECONDS: i64 = 60 * 60;

#[derive(Clone, Copy, Debug, PartialEq)]
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

    /// The key as stored.
    fn stored(&self) -> String {
        match self {
            Key::Account(email) => format!("account:{email}"),
            Key::Address(ip) => format!("address:{ip}"),
        }
    }
}

/// Seconds `key` must still wait at `now` after `failures`, if any.
fn delay(key: &Key, failures: Failures, now: Timestamp) -> Option<i64> {
    let over = failures
        .count
        .checked_sub(key.free())
        .filter(|over| *over > 0)?;
    let delay = 1i64
        .checked_shl(over.min(20))
        .unwrap_or(MAX_WAIT_SECONDS)
        .min(MAX_WAIT_SECONDS);
    let left = delay - (now - failures.last).whole_seconds();
    (left > 0).then_some(left)
}

/// The record after one more failure at `now`.
fn after_failure(before: Option<Failures>, now: Timestamp) -> Failures {
    let count = match before {
        Some(f) if (now - f.last).whole_seconds() < FORGET_AFTER_SECONDS => f.count,
        _ => 0,
    };
    Failures {
        count: count.saturating_add(1),
        last: now,
    }
}

fn read(db: &store::Reader, key: &Key) -> Result<Option<Failures>> {
    Ok(store::shared_state::failures(db, &key.stored())?
        .and_then(|(count, last)| time::parse(&last).map(|last| Failures { count, last })))
}

/// Seconds to wait before another attempt for any of `keys`, if any.
pub fn wait(ctx: &Ctx, keys: &[Key], now: Timestamp) -> Result<Option<i64>> {
    ctx.db.point(|db| {
        let mut longest = None;
        for key in keys {
            if let Some(left) = read(db, key)?.and_then(|f| delay(key, f, now)) {
                longest = Some(longest.map_or(left, |l: i64| l.max(left)));
            }
        }
        Ok(longest)
    })
}

/// Counts a failed sign-in against every key.
pub async fn failed(ctx: &Ctx, keys: &[Key], now: Timestamp) -> Result<()> {
    let keys = keys.to_vec();
    ctx.db
        .write(move |tx| {
            for key in &keys {
                let after = after_failure(read(tx, key)?, now);
                store::shared_state::set_failures(
                    tx,
                    &key.stored(),
                    after.count,
                    &time::format(after.last),
                )?;
            }
            Ok(())
        })
        .await
}

/// Clears an account's failures after it signed in.
pub async fn succeeded(ctx: &Ctx, account: &Key) -> Result<()> {
    let key = account.stored();
    ctx.db
        .write(move |tx| store::shared_state::clear_failures(tx, &key))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        ::time::OffsetDateTime::UNIX_EPOCH + ::time::Duration::seconds(seconds)
    }

    /// `n` failures at `t`, one after the other.
    fn fail(mut f: Option<Failures>, n: u32, t: i64) -> Option<Failures> {
        for _ in 0..n {
            f = Some(after_failure(f, at(t)));
        }
        f
    }

    #[test]
    fn waits_begin_after_the_free_attempts_and_double() {
        let key = Key::Account("a@example.com".into());
        let f = fail(None, FREE_PER_ACCOUNT, 0).unwrap();
        assert_eq!(
            delay(&key, f, at(0)),
            None,
            "the fifth failure costs nothing yet"
        );
        let f = after_failure(Some(f), at(0));
        assert_eq!(delay(&key, f, at(0)), Some(2));
        assert_eq!(delay(&key, f, at(2)), None);
        let f = after_failure(Some(f), at(2));
        assert_eq!(delay(&key, f, at(2)), Some(4));
    }

    #[test]
    fn waits_are_capped_and_forgotten() {
        let key = Key::Account("a@example.com".into());
        let f = fail(None, 40, 0).unwrap();
        assert_eq!(delay(&key, f, at(0)), Some(MAX_WAIT_SECONDS));
        let f = after_failure(Some(f), at(FORGET_AFTER_SECONDS));
        assert_eq!(f.count, 1, "an hour later the count starts again");
        assert_eq!(delay(&key, f, at(FORGET_AFTER_SECONDS)), None);
    }

    #[test]
    fn an_address_gets_more_attempts_than_an_account() {
        let address = Key::Address("192.0.2.1".into());
        let f = fail(None, FREE_PER_ADDRESS, 0).unwrap();
        assert_eq!(delay(&address, f, at(0)), None);
        let f = after_failure(Some(f), at(0));
        assert_eq!(delay(&address, f, at(0)), Some(2));
        assert_eq!(Key::Account("x".into()).stored(), "account:x");
    }
}
