//! `branding`: one row per organization that set its branding.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::{Error, Result},
    model::branding::{Logo, LogoType, Stored},
    store::{Reader, Tx},
};

fn from_row(row: &Row) -> crate::store::sql::Result<(String, Stored)> {
    let logo_type: Option<String> = row.get(4)?;
    let bytes: Option<Vec<u8>> = row.get(3)?;
    let logo = match (logo_type.as_deref().and_then(LogoType::parse), bytes) {
        (Some(logo_type), Some(bytes)) => Some(Logo { logo_type, bytes }),
        _ => None,
    };
    Ok((
        row.get(0)?,
        Stored {
            display_name: row.get(1)?,
            color: row.get(2)?,
            logo,
            updated_at: row.get(5)?,
        },
    ))
}

/// The organization's name and its stored branding (all None when it never set any); None when
/// there is no such organization.
pub fn get(db: &Reader, org_id: &str) -> Result<Option<(String, Stored)>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT o.name, b.display_name, b.color, b.logo, b.logo_type, b.updated_at
             FROM orgs o LEFT JOIN branding b ON b.org_id = o.id WHERE o.id = ?1",
        )?
        .query_row([org_id], from_row)
        .optional()?)
}

/// What a customer's page shows of the branding, without the logo's bytes: the name customers
/// see, the colour (each None when not set), whether there is a logo, when it last changed, and
/// the organization's own name; None when there is no such organization.
pub fn look(db: &Reader, org_id: &str) -> Result<Option<Look>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT o.name, b.display_name, b.color, b.logo IS NOT NULL, b.updated_at
             FROM orgs o LEFT JOIN branding b ON b.org_id = o.id WHERE o.id = ?1",
        )?
        .query_row([org_id], |r| {
            Ok(Look {
                org_name: r.get(0)?,
                display_name: r.get(1)?,
                color: r.get(2)?,
                has_logo: r.get::<_, Option<bool>>(3)?.unwrap_or(false),
                updated_at: r.get(4)?,
            })
        })
        .optional()?)
}

/// See `look`.
pub struct Look {
    pub org_name: String,
    pub display_name: Option<String>,
    pub color: Option<String>,
    pub has_logo: bool,
    pub updated_at: Option<String>,
}

/// The logo alone: its type and bytes.
pub fn logo(db: &Reader, org_id: &str) -> Result<Option<Logo>> {
    let row: Option<(String, Vec<u8>)> = db
        .conn
        .prepare_cached(
            "SELECT logo_type, logo FROM branding
             WHERE org_id = ?1 AND logo IS NOT NULL AND logo_type IS NOT NULL",
        )?
        .query_row([org_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    row.map(|(logo_type, bytes)| {
        let logo_type = LogoType::parse(&logo_type)
            .ok_or_else(|| Error::internal(format!("a stored logo of type {logo_type}")))?;
        Ok(Logo { logo_type, bytes })
    })
    .transpose()
}

/// Inserts or replaces the organization's branding.
pub fn save(tx: &Tx, org_id: &str, branding: &Stored) -> Result<()> {
    let (logo_type, bytes) = match &branding.logo {
        Some(logo) => (Some(logo.logo_type.as_str()), Some(logo.bytes.as_slice())),
        None => (None, None),
    };
    tx.conn
        .prepare_cached(
            "INSERT INTO branding (org_id, display_name, color, logo, logo_type, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(org_id) DO UPDATE SET display_name = excluded.display_name,
               color = excluded.color, logo = excluded.logo, logo_type = excluded.logo_type,
               updated_at = excluded.updated_at",
        )?
        .execute(params![
            org_id,
            branding.display_name,
            branding.color,
            bytes,
            logo_type,
            branding.updated_at
        ])?;
    Ok(())
}
