//! Sessions of the legacy protocol revisions (`Mcp-Session-Id`): minted by `initialize`, bound to
//! the user and connection whose token opened them, ended by DELETE or after an hour unused.
//! Kept per process, in memory; the 2026-07-28 revision has none.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

/// A session unused this long is forgotten (its client then gets 404 and starts again).
const IDLE: Duration = Duration::from_secs(60 * 60);
/// Past this many sessions, the idle ones are swept out.
const SWEEP_ABOVE: usize = 10_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub connection_id: String,
    pub user_id: String,
    /// The protocol revision `initialize` agreed on.
    pub protocol_version: String,
    /// Whether `notifications/initialized` arrived.
    pub initialized: bool,
}

#[derive(Default)]
pub struct Sessions {
    live: Mutex<HashMap<String, (Session, Instant)>>,
}

impl Sessions {
    /// Opens a session; answers its id.
    pub fn open(&self, session: Session) -> String {
        let id = crate::service::auth::random_urlsafe(24)
            .unwrap_or_else(|_| ulid::Ulid::new().to_string());
        let mut live = self.lock();
        if live.len() > SWEEP_ABOVE {
            live.retain(|_, (_, used)| used.elapsed() < IDLE);
        }
        live.insert(id.clone(), (session, Instant::now()));
        id
    }

    /// The session `id`, marking it used; None when unknown or idle too long.
    pub fn get(&self, id: &str) -> Option<Session> {
        let mut live = self.lock();
        match live.get_mut(id) {
            Some((session, used)) if used.elapsed() < IDLE => {
                *used = Instant::now();
                Some(session.clone())
            }
            Some(_) => {
                live.remove(id);
                None
            }
            None => None,
        }
    }

    pub fn mark_initialized(&self, id: &str) {
        if let Some((session, _)) = self.lock().get_mut(id) {
            session.initialized = true;
        }
    }

    /// Ends a session; false when there was none.
    pub fn close(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Session, Instant)>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_open_are_found_and_close() {
        let sessions = Sessions::default();
        let session = Session {
            connection_id: "con_1".into(),
            user_id: "usr_1".into(),
            protocol_version: "2025-06-18".into(),
            initialized: false,
        };
        let id = sessions.open(session.clone());
        assert!(id.len() >= 32 && id.bytes().all(|b| b.is_ascii_graphic()));
        assert_eq!(sessions.get(&id), Some(session));
        sessions.mark_initialized(&id);
        assert_eq!(sessions.get(&id).map(|s| s.initialized), Some(true));
        assert!(sessions.close(&id));
        assert_eq!(sessions.get(&id), None);
        assert!(!sessions.close(&id));
    }
}
