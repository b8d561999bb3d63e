//! `orgs` and `memberships`.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::org::{AgentSettings, Organization},
    store::{Reader, Tx},
};

const COLUMNS: &str = "id, name, slug, description, currency, vat_number, billing_email, company_name, \
    address_line1, address_line2, city, postal_code, country, overage_enabled, plan, created_at, updated_at, agents_confirm_costly";

fn from_row(row: &Row) -> crate::store::sql::Result<Organization> {
    Ok(Organization {
        id: row.get(0)?,
        name: row.get(1)?,
        slug: row.get(2)?,
        description: row.get(3)?,
        currency: row.get(4)?,
        vat_number: row.get(5)?,
        billing_email: row.get(6)?,
        company_name: row.get(7)?,
        address_line1: row.get(8)?,
        address_line2: row.get(9)?,
        city: row.get(10)?,
        postal_code: row.get(11)?,
        country: row.get(12)?,
        overage_enabled: row.get(13)?,
        plan: row.get(14)?,
        created_at: row.get(15)?,
        updated_at: row.get(16)?,
        agents: AgentSettings {
            confirm_costly: row.get(17)?,
        },
    })
}

pub fn get(db: &Reader, org_id: &str) -> Result<Option<Organization>> {
    Ok(db
        .conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM orgs WHERE id = ?1"))?
        .query_row([org_id], from_row)
        .optional()?)
}

/// The organization with this slug.
pub fn by_slug(db: &Reader, slug: &str) -> Result<Option<Organization>> {
    Ok(db
        .conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM orgs WHERE slug = ?1"))?
        .query_row([slug], from_row)
        .optional()?)
}

pub fn slug_taken(db: &Reader, slug: &str, except_org: Option<&str>) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached("SELECT 1 FROM orgs WHERE slug = ?1 AND id IS DISTINCT FROM ?2")?
        .exists(params![slug, except_org])?)
}

/// Inserts a new row or replaces the stored one (same id) with `org`.
pub fn save(tx: &Tx, org: &Organization) -> Result<()> {
    tx.conn.prepare_cached(&format!(
        "INSERT INTO orgs ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, slug = excluded.slug, description = excluded.description,
           currency = excluded.currency, vat_number = excluded.vat_number, billing_email = excluded.billing_email,
           company_name = excluded.company_name, address_line1 = excluded.address_line1,
           address_line2 = excluded.address_line2, city = excluded.city, postal_code = excluded.postal_code,
           country = excluded.country, overage_enabled = excluded.overage_enabled, plan = excluded.plan,
           updated_at = excluded.updated_at, agents_confirm_costly = excluded.agents_confirm_costly"
    ))?
    .execute(params![
        org.id,
        org.name,
        org.slug,
        org.description,
        org.currency,
        org.vat_number,
        org.billing_email,
        org.company_name,
        org.address_line1,
        org.address_line2,
        org.city,
        org.postal_code,
        org.country,
        org.overage_enabled,
        org.plan,
        org.created_at,
        org.updated_at,
        org.agents.confirm_costly,
    ])?;
    Ok(())
}

pub fn add_member(
    tx: &Tx,
    org_id: &str,
    user_id: &str,
    role: &str,
    brand: Option<&str>,
    now: &str,
) -> Result<()> {
    tx.conn.prepare_cached(
        "INSERT INTO memberships (org_id, user_id, role, brand, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(org_id, user_id) DO UPDATE SET role = excluded.role, brand = excluded.brand",
    )?
    .execute(params![org_id, user_id, role, brand, now])?;
    Ok(())
}

/// The first owner of an organization (who CLI-made tokens are attributed to).
pub fn first_owner(db: &Reader, org_id: &str) -> Result<Option<String>> {
    Ok(db.conn
        .prepare_cached(
            "SELECT user_id FROM memberships WHERE org_id = ?1 AND role = 'owner' ORDER BY created_at, user_id LIMIT 1",
        )?
        .query_row([org_id], |r| r.get(0))
        .optional()?)
}

/// The name of the organization's plan and whether it allows overage.
pub fn plan_of(db: &Reader, org_id: &str) -> Result<Option<(String, bool)>> {
    Ok(db
        .conn
        .prepare_cached("SELECT plan, overage_enabled FROM orgs WHERE id = ?1")?
        .query_row([org_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// Moves an organization to another plan; false when there is no such organization.
pub fn set_plan(tx: &Tx, org_id: &str, plan: &str, now: &str) -> Result<bool> {
    let n = tx
        .conn
        .prepare_cached("UPDATE orgs SET plan = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![org_id, plan, now])?;
    Ok(n == 1)
}

/// What changed last in an organization: the newest update of its shipments, orders and print
/// jobs, joined (DESIGN §20, live lists). Three index lookups.
pub fn change_marker(db: &Reader, org_id: &str) -> Result<String> {
    let mut parts = Vec::with_capacity(3);
    for table in ["shipments", "orders", "print_jobs"] {
        let newest: Option<String> = db
            .conn
            .prepare_cached(&format!(
                "SELECT MAX(updated_at) FROM {table} WHERE org_id = ?1"
            ))?
            .query_row([org_id], |r| r.get(0))?;
        parts.push(newest.unwrap_or_default());
    }
    Ok(parts.join("|"))
}
