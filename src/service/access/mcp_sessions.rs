//! Sessions of the legacy protocol revisions (`Mcp-Session-Id`): minted by `initialize`, bound to
//! the user and connection whose token opened them, ended by DELETE or after an hour unused.
//! Kept in the database (`mcp_sessions`, by the SHA-256 of the id), so that any process serving
//! it continues a session another began; the 2026-07-28 revision has none.

use ring::digest::{SHA256, digest};

use crate::{
    error::Result,
    model::time,
    service::Ctx,
    store::{self, shared_state::McpSession},
};

/// A session unused this long is forgotten (its client then gets 404 and starts again).
pub(crate) const IDLE_SECONDS: i64 = 60 * 60;
/// A session's last use is written at most this often (a read of it does not always write).
const TOUCH_SECONDS: i64 = 60;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub connection_id: String,
    pub user_id: String,
    /// The protocol revision `initialize` agreed on.
    pub protocol_version: String,
    /// Whether `notifications/initialized` arrived.
    pub initialized: bool,
}

fn hashed(id: &str) -> String {
    digest(&SHA256, id.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Opens a session; answers its id.
pub async fn open(ctx: &Ctx, session: Session) -> Result<String> {
    let id = crate::service::access::secret::random_urlsafe(24)?;
    let row: McpSession = (
        session.connection_id,
        session.user_id,
        session.protocol_version,
        session.initialized,
        ctx.now(),
    );
    let id_hash = hashed(&id);
    ctx.db
        .write(move |tx| store::shared_state::open_session(tx, &id_hash, &row))
        .await?;
    Ok(id)
}

/// The session `id`, marking it used; None when unknown or idle too long.
pub async fn get(ctx: &Ctx, id: &str) -> Result<Option<Session>> {
    let id_hash = hashed(id);
    let Some((connection_id, user_id, protocol_version, initialized, used)) = ctx
        .db
        .point(|db| store::shared_state::session(db, &id_hash))?
    else {
        return Ok(None);
    };
    let now = ctx.clock.now();
    let idle = time::parse(&used).map_or(i64::MAX, |used| (now - used).whole_seconds());
    if idle >= IDLE_SECONDS {
        return Ok(None);
    }
    if idle >= TOUCH_SECONDS {
        let at = time::format(now);
        ctx.db
            .write(move |tx| store::shared_state::touch_session(tx, &id_hash, &at, false))
            .await?;
    }
    Ok(Some(Session {
        connection_id,
        user_id,
        protocol_version,
        initialized,
    }))
}

pub async fn mark_initialized(ctx: &Ctx, id: &str) -> Result<()> {
    let (id_hash, at) = (hashed(id), ctx.now());
    ctx.db
        .write(move |tx| store::shared_state::touch_session(tx, &id_hash, &at, true))
        .await
}

/// Ends a session; false when there was none.
pub async fn close(ctx: &Ctx, id: &str) -> Result<bool> {
    let id_hash = hashed(id);
    ctx.db
        .write(move |tx| store::shared_state::close_session(tx, &id_hash))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[tokio::test]
    async fn sessions_open_are_found_and_close_and_only_their_hash_is_kept() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut config = Config::default();
        config.storage.data_dir = dir.path().to_path_buf();
        let ctx = Ctx::open(config).unwrap_or_else(|e| panic!("{e}"));
        let session = Session {
            connection_id: "con_1".into(),
            user_id: "usr_1".into(),
            protocol_version: "2025-06-18".into(),
            initialized: false,
        };
        let id = open(&ctx, session.clone()).await.unwrap_or_default();
        assert!(id.len() >= 32 && id.bytes().all(|b| b.is_ascii_graphic()));
        assert_eq!(get(&ctx, &id).await.ok().flatten(), Some(session));
        assert!(
            ctx.db
                .point(|db| store::shared_state::session(db, &id))
                .ok()
                .flatten()
                .is_none(),
            "the id itself is not stored"
        );
        mark_initialized(&ctx, &id).await.unwrap_or_default();
        assert_eq!(
            get(&ctx, &id).await.ok().flatten().map(|s| s.initialized),
            Some(true)
        );
        assert!(close(&ctx, &id).await.unwrap_or_default());
        assert_eq!(get(&ctx, &id).await.ok().flatten(), None);
        assert!(!close(&ctx, &id).await.unwrap_or(true));
    }
}
