//! `api_tokens`: stored by SHA-256 hash, listed per organization.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::{
        api_token::{ApiToken, Origin},
        role::{Role, Standing},
        scope::ScopeSet,
        user::CreatedBy,
    },
    store::{PageQuery, Paged, Reader, Tx},
};

const SELECT: &str =
    "SELECT t.id, t.org_id, t.name, t.token_prefix, t.scopes, t.created_by, u.name, u.email,
        t.expires_at, t.last_used_at, t.created_at
    FROM api_tokens t JOIN users u ON u.id = t.created_by";

fn from_row(row: &Row) -> crate::store::sql::Result<ApiToken> {
    let scopes: String = row.get(4)?;
    Ok(ApiToken {
        id: row.get(0)?,
        org_id: row.get(1)?,
        name: row.get(2)?,
        token_prefix: row.get(3)?,
        scopes: ScopeSet::parse(&scopes).unwrap_or_default(),
        created_by: CreatedBy {
            id: row.get(5)?,
            name: row.get(6)?,
            email: row.get(7)?,
        },
        expires_at: row.get(8)?,
        last_used_at: row.get(9)?,
        created_at: row.get(10)?,
    })
}

/// How a token was made: its origin, and the agent connection it dies with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    pub origin: Origin,
    pub connection_id: Option<String>,
}

pub fn insert(tx: &Tx, token: &ApiToken, hash: &[u8], made: &Provenance) -> Result<()> {
    tx.conn.prepare_cached(
        "INSERT INTO api_tokens (id, org_id, name, token_hash, token_prefix, scopes, created_by,
             expires_at, created_at, origin, connection_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        token.id,
        token.org_id,
        token.name,
        hash,
        token.token_prefix,
        token.scopes.to_string(),
        token.created_by.id,
        token.expires_at,
        token.created_at,
        made.origin,
        made.connection_id
    ])?;
    Ok(())
}

pub fn get(db: &Reader, org_id: &str, token_id: &str) -> Result<Option<ApiToken>> {
    Ok(db
        .conn
        .prepare_cached(&format!("{SELECT} WHERE t.org_id = ?1 AND t.id = ?2"))?
        .query_row([org_id, token_id], from_row)
        .optional()?)
}

/// What authentication needs of a token, in one query.
pub struct Credential {
    pub token: ApiToken,
    pub stored_hash: Vec<u8>,
    /// Whether the token's creator is instance staff.
    pub staff: bool,
    pub made: Provenance,
    /// The creator's place in the token's organization now; None once they left it.
    pub standing: Option<Standing>,
}

/// The token with this hash, for authentication (any organization). A token an agent made
/// whose connection has ended is not found.
pub fn by_hash(db: &Reader, hash: &[u8]) -> Result<Option<Credential>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "{SELECT_WITH_HASH} WHERE t.token_hash = ?1
             AND (t.connection_id IS NULL OR EXISTS
                 (SELECT 1 FROM agent_connections c WHERE c.id = t.connection_id))"
        ))?
        .query_row([hash], |r| {
            let role: Option<Role> = r.get(15)?;
            let brand: Option<String> = r.get(16)?;
            Ok(Credential {
                token: from_row(r)?,
                stored_hash: r.get(11)?,
                staff: r.get(12)?,
                made: Provenance {
                    origin: r.get(13)?,
                    connection_id: r.get(14)?,
                },
                standing: role.map(|role| Standing { role, brand }),
            })
        })
        .optional()?)
}

const SELECT_WITH_HASH: &str =
    "SELECT t.id, t.org_id, t.name, t.token_prefix, t.scopes, t.created_by, u.name, u.email,
        t.expires_at, t.last_used_at, t.created_at, t.token_hash, u.staff, t.origin,
        t.connection_id, m.role, m.brand
    FROM api_tokens t JOIN users u ON u.id = t.created_by
    LEFT JOIN memberships m ON m.org_id = t.org_id AND m.user_id = t.created_by";

/// Deletes the tokens `user_id` made in `org_id` (they left it).
pub fn delete_made_by(tx: &Tx, org_id: &str, user_id: &str) -> Result<usize> {
    Ok(tx
        .conn
        .prepare_cached("DELETE FROM api_tokens WHERE org_id = ?1 AND created_by = ?2")?
        .execute(params![org_id, user_id])?)
}

/// The organization a token belongs to, for admin commands that name only the token.
pub fn org_of(db: &Reader, token_id: &str) -> Result<Option<String>> {
    Ok(db
        .conn
        .prepare_cached("SELECT org_id FROM api_tokens WHERE id = ?1")?
        .query_row([token_id], |r| r.get(0))
        .optional()?)
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<ApiToken>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "api_tokens",
        &format!("{SELECT} WHERE t.org_id = ?1 ORDER BY t.created_at DESC, t.id DESC"),
        from_row,
    )
}

/// Renames a token; false when the organization has no such token.
pub fn rename(tx: &Tx, org_id: &str, token_id: &str, name: &str) -> Result<bool> {
    let changed = tx
        .conn
        .prepare_cached("UPDATE api_tokens SET name = ?3 WHERE org_id = ?1 AND id = ?2")?
        .execute(params![org_id, token_id, name])?;
    Ok(changed == 1)
}

/// Deletes a token; false when the organization has no such token.
pub fn delete(tx: &Tx, org_id: &str, token_id: &str) -> Result<bool> {
    let changed = tx
        .conn
        .prepare_cached("DELETE FROM api_tokens WHERE org_id = ?1 AND id = ?2")?
        .execute(params![org_id, token_id])?;
    Ok(changed == 1)
}

pub fn touch(tx: &Tx, org_id: &str, token_id: &str, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached("UPDATE api_tokens SET last_used_at = ?3 WHERE org_id = ?1 AND id = ?2")?
        .execute(params![org_id, token_id, now])?;
    Ok(())
}

/// The number every change to what `by_hash` reads moves on (V32's triggers): a credential read
/// under one number is still what `by_hash` would read while it stands.
pub fn credential_generation(db: &Reader) -> Result<i64> {
    Ok(db
        .conn
        .prepare_cached("SELECT value FROM credential_generation WHERE id = 1")?
        .query_row((), |r| r.get(0))?)
}
