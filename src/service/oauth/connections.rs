//! Agent connections as their user sees them on the Apps & integrations page: each user lists
//! and disconnects only their own. Disconnecting ends the connection's refresh tokens at once
//! and its access tokens at their next request (the live check).

use crate::{
    error::{Error, Result},
    model::oauth::ConnectionSummary,
    service::{Actor, Ctx},
    store,
};

/// The signed-in user's connections, newest first.
pub async fn list(ctx: &Ctx, actor: &Actor) -> Result<Vec<ConnectionSummary>> {
    let user_id = actor.signed_in_user()?.to_string();
    ctx.db
        .read(move |db| store::oauth::connections_of(db, &user_id))
        .await
}

/// Ends one of the signed-in user's connections (another user's is 404); answers the name of
/// its client.
pub async fn disconnect(ctx: &Ctx, actor: &Actor, connection_id: &str) -> Result<String> {
    let (user_id, id) = (
        actor.signed_in_user()?.to_string(),
        connection_id.to_string(),
    );
    ctx.db
        .write(move |tx| match store::oauth::connection(tx, &id)? {
            Some(c) if c.user_id == user_id => {
                store::oauth::delete_connection(tx, &id)?;
                Ok(c.client_name)
            }
            _ => Err(Error::NotFound),
        })
        .await
}
