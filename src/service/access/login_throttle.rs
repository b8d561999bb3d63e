//! Slows password guessing down without locking anyone out (DESIGN §19): each sign-in attempt
//! takes a slot before its password is checked — one of the account's
//! `login.failures_per_minute` and one of its address's `login.failures_per_address_per_minute` —
//! in one write, so concurrent guesses cannot pass the limit; a right password gives its slots
//! back, a wrong one keeps them until the minute is over. Over a limit is 429, never for longer
//! than the rest of that minute.
//!
//! Failures from one address must not lock the account out for everyone: when the account's
//! slots are taken, an address that has not failed this minute may still try, against a second
//! set of as many slots (`spare`), so the owner signing in from elsewhere gets through while one
//! attacker guesses. Kept in the database (`login_attempts`), so every process counts the same.

use std::net::IpAddr;

use crate::{
    config::Login,
    error::Result,
    model::time::{self, Timestamp},
    service::Ctx,
    store::{self, Tx},
};

/// The length of a counting window.
const WINDOW_SECONDS: i64 = 60;
/// Rows older than this are swept out by housekeeping.
pub(crate) const FORGET_AFTER_SECONDS: i64 = 60 * 60;

/// Slots taken by one attempt, to give back when the password is right: each key with the
/// start of the window it was counted in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slots(Vec<(String, String)>);

/// What an attempt may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// Check the password; give the slots back if it is right.
    Go(Slots),
    /// Too many failures: try again after this many seconds (1 to 60).
    Wait(i64),
}

/// Where a key stands within its current window.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Count {
    count: u32,
    since: Timestamp,
}

impl Count {
    /// The count at `now`: a window that is over starts again at zero.
    fn at(stored: Option<Count>, now: Timestamp) -> Count {
        match stored {
            Some(c) if (now - c.since).whole_seconds() < WINDOW_SECONDS => c,
            _ => Count {
                count: 0,
                since: now,
            },
        }
    }

    /// Seconds until the window is over (at least 1).
    fn left(self, now: Timestamp) -> i64 {
        (WINDOW_SECONDS - (now - self.since).whole_seconds()).clamp(1, WINDOW_SECONDS)
    }
}

/// The keys of one attempt and their limits.
struct Keys {
    account: String,
    spare: String,
    address: Option<String>,
}

impl Keys {
    fn of(email: &str, address: Option<IpAddr>) -> Keys {
        Keys {
            account: format!("account:{email}"),
            spare: format!("spare:{email}"),
            address: address.map(|ip| format!("address:{}", ip.to_canonical())),
        }
    }
}

/// The decision for one attempt, given the three counts (pure, for the tests).
fn decide(
    limits: &Login,
    account: Count,
    spare: Count,
    address: Option<Count>,
    now: Timestamp,
) -> Result<Which, i64> {
    if let Some(address) = address
        && address.count >= limits.failures_per_address_per_minute
    {
        return Err(address.left(now));
    }
    if account.count < limits.failures_per_minute {
        return Ok(Which::Account);
    }
    let clean = address.is_some_and(|a| a.count == 0);
    if clean && spare.count < limits.failures_per_minute {
        return Ok(Which::Spare);
    }
    Err(if clean {
        spare.left(now).min(account.left(now))
    } else {
        account.left(now)
    })
}

#[derive(Debug, PartialEq)]
enum Which {
    Account,
    Spare,
}

/// Takes the slots of an attempt to sign in as `email` from `address`, or says how long to wait.
pub async fn take(ctx: &Ctx, email: &str, address: Option<IpAddr>) -> Result<Attempt> {
    let keys = Keys::of(email, address);
    let limits = ctx.config.login.clone();
    let now = ctx.clock.now();
    ctx.db
        .write(move |tx| {
            let account = Count::at(read(tx, &keys.account)?, now);
            let spare = Count::at(read(tx, &keys.spare)?, now);
            let at_address = match &keys.address {
                Some(key) => Some(Count::at(read(tx, key)?, now)),
                None => None,
            };
            let which = match decide(&limits, account, spare, at_address, now) {
                Ok(which) => which,
                Err(wait) => return Ok(Attempt::Wait(wait)),
            };
            let (key, count) = match which {
                Which::Account => (keys.account, account),
                Which::Spare => (keys.spare, spare),
            };
            let mut taken = vec![(key.clone(), write(tx, &key, count)?)];
            if let (Some(key), Some(count)) = (keys.address, at_address) {
                let since = write(tx, &key, count)?;
                taken.push((key, since));
            }
            Ok(Attempt::Go(Slots(taken)))
        })
        .await
}

/// Gives the slots of an attempt whose password was right back (those of a window that is
/// still running).
pub async fn give_back(ctx: &Ctx, slots: Slots) -> Result<()> {
    ctx.db
        .write(move |tx| {
            for (key, since) in &slots.0 {
                store::shared_state::give_back_attempt(tx, key, since)?;
            }
            Ok(())
        })
        .await
}

/// Counts one try against `key` (`portal:<address>`, …), at most `limit` in a minute; Err holds
/// the seconds until the next try may count. Kept with the sign-in counts, so that every process
/// counts the same and housekeeping sweeps it.
pub async fn count_try(ctx: &Ctx, key: String, limit: u32) -> Result<std::result::Result<(), i64>> {
    let now = ctx.clock.now();
    ctx.db
        .write(move |tx| {
            let count = Count::at(read(tx, &key)?, now);
            if count.count >= limit {
                return Ok(Err(count.left(now)));
            }
            write(tx, &key, count)?;
            Ok(Ok(()))
        })
        .await
}

fn read(db: &store::Reader, key: &str) -> Result<Option<Count>> {
    Ok(store::shared_state::attempts(db, key)?
        .and_then(|(count, since)| time::parse(&since).map(|since| Count { count, since })))
}

/// Counts one more attempt against `key`; the start of its window.
fn write(tx: &Tx, key: &str, count: Count) -> Result<String> {
    let since = time::format(count.since);
    store::shared_state::set_attempts(tx, key, count.count.saturating_add(1), &since)?;
    Ok(since)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        ::time::OffsetDateTime::UNIX_EPOCH + ::time::Duration::seconds(seconds)
    }

    fn count(count: u32, since: i64) -> Count {
        Count {
            count,
            since: at(since),
        }
    }

    fn limits() -> Login {
        Login {
            failures_per_minute: 5,
            failures_per_address_per_minute: 20,
        }
    }

    #[test]
    fn an_account_gets_its_attempts_then_waits_out_the_minute() {
        let fresh = count(0, 0);
        assert_eq!(
            decide(&limits(), count(4, 0), fresh, Some(count(4, 0)), at(10)),
            Ok(Which::Account)
        );
        assert_eq!(
            decide(&limits(), count(5, 0), fresh, Some(count(5, 0)), at(10)),
            Err(50),
            "the attacker's address waits for the rest of the minute"
        );
        assert_eq!(
            Count::at(Some(count(5, 0)), at(60)).count,
            0,
            "a new minute"
        );
    }

    #[test]
    fn an_address_that_has_not_failed_may_still_try_while_the_account_is_attacked() {
        assert_eq!(
            decide(
                &limits(),
                count(5, 0),
                count(0, 0),
                Some(count(0, 30)),
                at(30)
            ),
            Ok(Which::Spare)
        );
        assert_eq!(
            decide(
                &limits(),
                count(5, 0),
                count(5, 0),
                Some(count(0, 30)),
                at(30)
            ),
            Err(30),
            "even the spare slots are gone: the wait is at most the rest of the minute"
        );
        assert_eq!(
            decide(&limits(), count(5, 0), count(0, 0), None, at(30)),
            Err(30),
            "without an address there is no clean address"
        );
    }

    #[test]
    fn an_address_is_limited_across_accounts() {
        assert_eq!(
            decide(
                &limits(),
                count(0, 0),
                count(0, 0),
                Some(count(20, 0)),
                at(59)
            ),
            Err(1)
        );
    }

    #[test]
    fn waits_are_never_longer_than_a_minute() {
        for now in 0..120 {
            if let Err(wait) = decide(
                &limits(),
                count(9, 0),
                count(9, 0),
                Some(count(99, 0)),
                at(now),
            ) {
                assert!((1..=60).contains(&wait), "{wait}");
            }
        }
    }
}
