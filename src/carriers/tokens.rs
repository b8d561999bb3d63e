//! Access tokens carriers issue for a client's credentials (UPS OAuth client credentials),
//! kept in memory until shortly before they expire, so that a booking does not ask for a new
//! token each time. A token is keyed by where it was issued and for which client, never by
//! the secret itself; it is never logged.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

/// Tokens are taken as expired this long before the carrier says they do, so that a request
/// does not arrive with a token that ran out on the way.
const MARGIN: Duration = Duration::from_secs(60);

#[derive(Clone, Default)]
pub struct Tokens {
    kept: Arc<Mutex<HashMap<String, (String, Instant)>>>,
}

impl Tokens {
    /// The token kept for `key` that is still good.
    pub fn get(&self, key: &str) -> Option<String> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.get(key)
            .filter(|(_, until)| Instant::now() < *until)
            .map(|(token, _)| token.clone())
    }

    /// Keeps `token` for `key` for `lifetime` (less the margin; a token that lives shorter than
    /// the margin is used once and not kept).
    pub fn put(&self, key: &str, token: &str, lifetime: Duration) {
        let Some(usable) = lifetime.checked_sub(MARGIN) else {
            return;
        };
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.retain(|_, (_, until)| Instant::now() < *until);
        kept.insert(
            key.to_string(),
            (token.to_string(), Instant::now() + usable),
        );
    }

    /// Forgets the token of `key` (the carrier refused it).
    pub fn forget(&self, key: &str) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.remove(key);
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // How many, never the tokens themselves.
        let kept = self.kept.lock().map(|k| k.len()).unwrap_or(0);
        write!(f, "Tokens({kept} kept)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_kept_until_shortly_before_it_expires() {
        let tokens = Tokens::default();
        tokens.put("a", "t1", Duration::from_secs(3600));
        assert_eq!(tokens.get("a").as_deref(), Some("t1"));
        assert_eq!(tokens.get("b"), None);
        tokens.put("short", "t2", Duration::from_secs(30));
        assert_eq!(
            tokens.get("short"),
            None,
            "shorter than the margin: not kept"
        );
        tokens.forget("a");
        assert_eq!(tokens.get("a"), None);
    }
}
