//! The authorization server's tables: `oauth_keys`, `oauth_clients`, `agent_connections`,
//! `oauth_codes` and `oauth_refresh_tokens`. Codes and refresh tokens are looked up by their
//! SHA-256.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::{Error, Result},
    model::{
        oauth::{Client, CodeGrant, Connection, ConnectionSummary, RefreshGrant},
        role::Role,
    },
    store::{Reader, Tx},
};

/// A signing key: its id, sealed PKCS#8 private key and base64url public key.
#[derive(Clone, Debug)]
pub struct StoredKey {
    pub id: String,
    pub private_key: String,
    pub public_key: String,
}

/// The oldest signing key: every process signs with the same one.
pub fn signing_key(db: &Reader) -> Result<Option<StoredKey>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT id, private_key, public_key FROM oauth_keys ORDER BY created_at, id LIMIT 1",
        )?
        .query_row((), |r| {
            Ok(StoredKey {
                id: r.get(0)?,
                private_key: r.get(1)?,
                public_key: r.get(2)?,
            })
        })
        .optional()?)
}

pub fn insert_key(tx: &Tx, key: &StoredKey, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO oauth_keys (id, private_key, public_key, created_at) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![key.id, key.private_key, key.public_key, now])?;
    Ok(())
}

pub fn insert_client(tx: &Tx, client: &Client) -> Result<()> {
    let uris = serde_json::to_string(&client.redirect_uris)
        .map_err(|e| Error::internal(format!("redirect URIs as JSON: {e}")))?;
    tx.conn
        .prepare_cached(
            "INSERT INTO oauth_clients (id, name, redirect_uris, client_uri, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            client.id,
            client.name,
            uris,
            client.client_uri,
            client.created_at
        ])?;
    Ok(())
}

pub fn client(db: &Reader, id: &str) -> Result<Option<Client>> {
    let found: Option<(Client, String)> = db
        .conn
        .prepare_cached(
            "SELECT id, name, redirect_uris, client_uri, created_at FROM oauth_clients WHERE id = ?1",
        )?
        .query_row([id], |r| {
            Ok((
                Client {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    redirect_uris: Vec::new(),
                    client_uri: r.get(3)?,
                    created_at: r.get(4)?,
                },
                r.get(2)?,
            ))
        })
        .optional()?;
    found
        .map(|(mut client, uris)| {
            client.redirect_uris = serde_json::from_str(&uris)
                .map_err(|e| Error::internal(format!("stored redirect URIs: {e}")))?;
            Ok(client)
        })
        .transpose()
}

/// Removes registered clients older than `before` that never got a connection.
pub fn prune_unused_clients(tx: &Tx, before: &str) -> Result<usize> {
    Ok(tx
        .conn
        .prepare_cached(
            "DELETE FROM oauth_clients WHERE created_at < ?1
             AND NOT EXISTS (SELECT 1 FROM agent_connections c WHERE c.client_id = oauth_clients.id)",
        )?
        .execute([before])?)
}

pub fn insert_code(tx: &Tx, code_hash: &[u8], grant: &CodeGrant) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO oauth_codes (code_hash, client_id, client_name, user_id, org_id,
                redirect_uri, scopes, code_challenge, resource, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            code_hash,
            grant.client_id,
            grant.client_name,
            grant.user_id,
            grant.org_id,
            grant.redirect_uri,
            grant.scopes,
            grant.code_challenge,
            grant.resource,
            grant.expires_at
        ])?;
    Ok(())
}

pub fn code(db: &Reader, code_hash: &[u8]) -> Result<Option<CodeGrant>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT client_id, client_name, user_id, org_id, redirect_uri, scopes, code_challenge,
                resource, expires_at, connection_id
             FROM oauth_codes WHERE code_hash = ?1",
        )?
        .query_row([code_hash], |r| {
            Ok(CodeGrant {
                client_id: r.get(0)?,
                client_name: r.get(1)?,
                user_id: r.get(2)?,
                org_id: r.get(3)?,
                redirect_uri: r.get(4)?,
                scopes: r.get(5)?,
                code_challenge: r.get(6)?,
                resource: r.get(7)?,
                expires_at: r.get(8)?,
                connection_id: r.get(9)?,
            })
        })
        .optional()?)
}

/// Marks a code exchanged for `connection_id`.
pub fn use_code(tx: &Tx, code_hash: &[u8], connection_id: &str) -> Result<()> {
    tx.conn
        .prepare_cached("UPDATE oauth_codes SET connection_id = ?2 WHERE code_hash = ?1")?
        .execute(params![code_hash, connection_id])?;
    Ok(())
}

const CONNECTION_COLUMNS: &str = "id, user_id, org_id, client_id, client_name, scopes, resource,
    created_at, last_used_at";

fn connection_from(r: &Row) -> crate::store::sql::Result<Connection> {
    Ok(Connection {
        id: r.get(0)?,
        user_id: r.get(1)?,
        org_id: r.get(2)?,
        client_id: r.get(3)?,
        client_name: r.get(4)?,
        scopes: r.get(5)?,
        resource: r.get(6)?,
        created_at: r.get(7)?,
        last_used_at: r.get(8)?,
    })
}

pub fn insert_connection(tx: &Tx, c: &Connection) -> Result<()> {
    tx.conn
        .prepare_cached(&format!(
            "INSERT INTO agent_connections ({CONNECTION_COLUMNS})
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        ))?
        .execute(params![
            c.id,
            c.user_id,
            c.org_id,
            c.client_id,
            c.client_name,
            c.scopes,
            c.resource,
            c.created_at,
            c.last_used_at
        ])?;
    Ok(())
}

pub fn connection(db: &Reader, id: &str) -> Result<Option<Connection>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {CONNECTION_COLUMNS} FROM agent_connections WHERE id = ?1"
        ))?
        .query_row([id], connection_from)
        .optional()?)
}

/// A connection that may still act, with its user's role in its organization: it exists, and
/// its user is still a member there without a brand limit. The live check of every agent
/// request.
pub fn live_connection(db: &Reader, id: &str) -> Result<Option<(Connection, Role)>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {}, m.role FROM agent_connections c
             JOIN memberships m ON m.org_id = c.org_id AND m.user_id = c.user_id
             WHERE c.id = ?1 AND m.brand IS NULL",
            CONNECTION_COLUMNS
                .split(',')
                .map(|column| format!("c.{}", column.trim()))
                .collect::<Vec<_>>()
                .join(", ")
        ))?
        .query_row([id], |r| {
            let role: Role = r.get(CONNECTION_COLUMNS.split(',').count())?;
            Ok((connection_from(r)?, role))
        })
        .optional()?)
}

/// The connections of one user, newest first, with their organization's name.
pub fn connections_of(db: &Reader, user_id: &str) -> Result<Vec<ConnectionSummary>> {
    let mut stmt = db.conn.prepare_cached(
        "SELECT c.id, c.client_name, o.name, c.scopes, c.created_at, c.last_used_at
         FROM agent_connections c JOIN orgs o ON o.id = c.org_id
         WHERE c.user_id = ?1 ORDER BY c.created_at DESC, c.id DESC",
    )?;
    let rows = stmt.query_map([user_id], |r| {
        let scopes: String = r.get(3)?;
        Ok(ConnectionSummary {
            id: r.get(0)?,
            client_name: r.get(1)?,
            org_name: r.get(2)?,
            permissions: scopes.split_whitespace().count(),
            created_at: r.get(4)?,
            last_used_at: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<crate::store::sql::Result<_>>()?)
}

/// Ends a connection: its refresh tokens go with it, and its access tokens fail the live check.
pub fn delete_connection(tx: &Tx, id: &str) -> Result<bool> {
    Ok(tx
        .conn
        .prepare_cached("DELETE FROM agent_connections WHERE id = ?1")?
        .execute([id])?
        > 0)
}

/// Ends every connection `user_id` made to `org_id` (and so the API tokens those made).
pub fn delete_connections_of(tx: &Tx, org_id: &str, user_id: &str) -> Result<usize> {
    Ok(tx
        .conn
        .prepare_cached("DELETE FROM agent_connections WHERE org_id = ?1 AND user_id = ?2")?
        .execute([org_id, user_id])?)
}

/// Marks a registered client as having completed a sign-in.
pub fn mark_client_used(tx: &Tx, client_id: &str, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached("UPDATE oauth_clients SET used_at = ?2 WHERE id = ?1 AND used_at IS NULL")?
        .execute([client_id, now])?;
    Ok(())
}

/// Keeps the newest `keep` registered clients that never completed a sign-in and deletes the
/// older ones; how many went.
pub fn cap_unused_clients(tx: &Tx, keep: u64) -> Result<usize> {
    Ok(tx
        .conn
        .prepare_cached(
            "DELETE FROM oauth_clients WHERE used_at IS NULL AND (created_at, id) <= (
                 SELECT created_at, id FROM oauth_clients WHERE used_at IS NULL
                 ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?1)",
        )?
        .execute(params![keep])?)
}

pub fn touch_connection(tx: &Tx, id: &str, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached("UPDATE agent_connections SET last_used_at = ?2 WHERE id = ?1")?
        .execute(params![id, now])?;
    Ok(())
}

pub fn insert_refresh(tx: &Tx, token_hash: &[u8], grant: &RefreshGrant) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO oauth_refresh_tokens (token_hash, connection_id, scopes, expires_at, used_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            token_hash,
            grant.connection_id,
            grant.scopes,
            grant.expires_at,
            grant.used_at
        ])?;
    Ok(())
}

pub fn refresh(db: &Reader, token_hash: &[u8]) -> Result<Option<RefreshGrant>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT connection_id, scopes, expires_at, used_at FROM oauth_refresh_tokens
             WHERE token_hash = ?1",
        )?
        .query_row([token_hash], |r| {
            Ok(RefreshGrant {
                connection_id: r.get(0)?,
                scopes: r.get(1)?,
                expires_at: r.get(2)?,
                used_at: r.get(3)?,
            })
        })
        .optional()?)
}

pub fn use_refresh(tx: &Tx, token_hash: &[u8], now: &str) -> Result<()> {
    tx.conn
        .prepare_cached("UPDATE oauth_refresh_tokens SET used_at = ?2 WHERE token_hash = ?1")?
        .execute(params![token_hash, now])?;
    Ok(())
}

/// Removes codes and refresh tokens that expired before `now`; returns how many.
pub fn prune(tx: &Tx, now: &str) -> Result<usize> {
    let codes = tx
        .conn
        .prepare_cached("DELETE FROM oauth_codes WHERE expires_at <= ?1")?
        .execute([now])?;
    let refresh = tx
        .conn
        .prepare_cached("DELETE FROM oauth_refresh_tokens WHERE expires_at <= ?1")?
        .execute([now])?;
    Ok(codes + refresh)
}
