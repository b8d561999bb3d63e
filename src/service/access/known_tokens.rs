//! API tokens this process has read for authentication, kept under the credential generation
//! they were read under (V32): while the database's number has not moved, nothing a token's
//! authentication reads has changed, so a request reads that one number instead of the token,
//! its creator and their membership again. A revocation, a member removed or demoted, or a
//! connection ended moves the number, in this process or any other, and the next request of
//! every token reads it again.

use std::{collections::HashMap, sync::Arc, sync::Mutex};

use time::OffsetDateTime;

use crate::store::api_tokens::Credential;

/// Tokens kept at most; past it, all are dropped and read again as they come.
const KNOWN_MAX: usize = 10_000;

#[derive(Default)]
pub struct KnownTokens {
    inner: Mutex<Known>,
}

#[derive(Default)]
struct Known {
    /// The generation every kept credential was read under.
    generation: i64,
    /// By the token's hash: the credential, and when this process last recorded its use.
    tokens: HashMap<Vec<u8>, (Arc<Credential>, Option<OffsetDateTime>)>,
}

impl Known {
    /// Whether what is kept holds at `generation`: a newer number drops it all and starts anew
    /// (then true), an older one (a reader behind another thread) is told no.
    fn current_at(&mut self, generation: i64) -> bool {
        if generation > self.generation {
            self.generation = generation;
            self.tokens.clear();
        }
        generation == self.generation
    }
}

impl KnownTokens {
    /// The credential of the token with `hash`, when it was read under `generation` (the
    /// database's number now). A newer number drops every credential kept.
    pub fn get(&self, hash: &[u8], generation: i64) -> Option<Arc<Credential>> {
        let mut known = self.lock();
        if !known.current_at(generation) {
            return None;
        }
        known.tokens.get(hash).map(|(c, _)| c.clone())
    }

    /// The credential kept for the token with `hash` and the generation it is kept under (the
    /// newest this process has read), for a request that confirms that number in the snapshot
    /// it reads (`auth::Pending`).
    pub fn latest(&self, hash: &[u8]) -> Option<(i64, Arc<Credential>)> {
        let known = self.lock();
        let (credential, _) = known.tokens.get(hash)?;
        Some((known.generation, credential.clone()))
    }

    /// Keeps `credential`, read under `generation`; one read under an older number than another
    /// thread has seen since is not kept.
    pub fn insert(&self, hash: Vec<u8>, generation: i64, credential: Arc<Credential>) {
        let mut known = self.lock();
        if !known.current_at(generation) {
            return;
        }
        if known.tokens.len() >= KNOWN_MAX {
            known.tokens.clear();
        }
        known.tokens.insert(hash, (credential, None));
    }

    /// Whether the use at `now` is to be recorded (the last one recorded, by this process or
    /// as stored, is `every_seconds` old or more); when it is, `now` is kept as the last.
    pub fn use_due(
        &self,
        hash: &[u8],
        stored: Option<OffsetDateTime>,
        now: OffsetDateTime,
        every_seconds: i64,
    ) -> bool {
        let mut known = self.lock();
        let kept = known.tokens.get_mut(hash);
        let last = kept.as_ref().and_then(|(_, used)| *used).or(stored);
        let due = last.is_none_or(|used| (now - used).whole_seconds() >= every_seconds);
        if due && let Some((_, used)) = kept {
            *used = Some(now);
        }
        due
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        model::{
            api_token::{ApiToken, Origin},
            scope::ScopeSet,
            user::CreatedBy,
        },
        store::api_tokens::Provenance,
    };

    fn credential(id: &str) -> Arc<Credential> {
        Arc::new(Credential {
            token: ApiToken {
                id: id.into(),
                org_id: "org_a".into(),
                name: "t".into(),
                token_prefix: "shb_".into(),
                scopes: ScopeSet::default(),
                created_by: CreatedBy {
                    id: "usr_a".into(),
                    name: "A".into(),
                    email: "a@example.com".into(),
                },
                expires_at: None,
                last_used_at: None,
                created_at: "2026-11-28T00:00:00Z".into(),
            },
            stored_hash: id.as_bytes().to_vec(),
            staff: false,
            made: Provenance {
                origin: Origin::Api,
                connection_id: None,
            },
            standing: None,
        })
    }

    fn id_of(found: Option<Arc<Credential>>) -> Option<String> {
        found.map(|c| c.token.id.clone())
    }

    #[test]
    fn a_credential_is_kept_until_the_generation_moves() {
        let known = KnownTokens::default();
        assert_eq!(id_of(known.get(b"a", 0)), None);
        known.insert(b"a".to_vec(), 0, credential("a"));
        assert_eq!(id_of(known.get(b"a", 0)).as_deref(), Some("a"));
        assert_eq!(id_of(known.get(b"b", 0)), None);

        // Something changed: nothing kept is used, and a read under the old number is not kept.
        assert_eq!(id_of(known.get(b"a", 1)), None);
        known.insert(b"a".to_vec(), 0, credential("a"));
        assert_eq!(id_of(known.get(b"a", 1)), None);
        known.insert(b"a".to_vec(), 1, credential("a"));
        assert_eq!(id_of(known.get(b"a", 1)).as_deref(), Some("a"));
        // A reader still on the older number is told nothing, and drops nothing.
        assert_eq!(id_of(known.get(b"a", 0)), None);
        assert_eq!(id_of(known.get(b"a", 1)).as_deref(), Some("a"));
    }

    #[test]
    fn past_the_bound_everything_is_read_again() {
        let known = KnownTokens::default();
        for n in 0..KNOWN_MAX {
            known.insert(n.to_be_bytes().to_vec(), 0, credential("x"));
        }
        known.insert(b"last".to_vec(), 0, credential("last"));
        assert_eq!(known.lock().tokens.len(), 1);
        assert_eq!(id_of(known.get(b"last", 0)).as_deref(), Some("last"));
    }

    #[test]
    fn a_use_is_due_once_a_minute_counting_from_the_last_recorded() {
        let known = KnownTokens::default();
        let at = |s: i64| {
            OffsetDateTime::from_unix_timestamp(1_800_000_000 + s)
                .unwrap_or(OffsetDateTime::UNIX_EPOCH)
        };
        known.insert(b"a".to_vec(), 0, credential("a"));
        // As stored: used 30 s ago, so not yet; never, so at once.
        assert!(!known.use_due(b"a", Some(at(0)), at(30), 60));
        assert!(known.use_due(b"a", None, at(30), 60));
        // Recorded at 30: not again until 90, whatever the stored (older) value says.
        assert!(!known.use_due(b"a", Some(at(0)), at(89), 60));
        assert!(known.use_due(b"a", Some(at(0)), at(90), 60));
        // A token not kept goes by what is stored.
        assert!(known.use_due(b"b", Some(at(0)), at(60), 60));
        assert!(!known.use_due(b"b", Some(at(0)), at(59), 60));
    }
}
