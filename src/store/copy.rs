//! `shipbase copy-data`: a whole installation from one backend to the other (DESIGN §18). The
//! target is migrated, must be empty, and is written in one transaction; the source is read in
//! one snapshot. Every table is copied row by row, in the order its foreign keys need, and the
//! row counts of both sides are compared at the end.

use std::path::Path;

use crate::{
    error::{Error, Result},
    store::{
        open_migrated, pg,
        sql::{Conn, Owned, PgConn},
    },
};

/// Every table, parents before children. `shipment_counts` is not copied: it is counted anew
/// from the target's shipments once they are in, and its count is compared like the others'.
/// `credential_generation` is neither copied nor compared: each database moves its own.
pub const TABLES: &[&str] = &[
    "orgs",
    "branding",
    "notification_settings",
    "users",
    "memberships",
    "audit_log",
    "sender_addresses",
    "printers",
    "carriers",
    "shipping_rules",
    "returns_portals",
    "order_channels",
    "orders",
    "shopify_deliveries",
    "shipments",
    "shipment_terms",
    "booking_attempts",
    "documents",
    "tracking_links",
    "notifications",
    "mail_suppressions",
    "print_jobs",
    "pickups",
    "manifests",
    "manifest_shipments",
    "events",
    "usage_counters",
    "webhooks",
    "webhook_deliveries",
    "webhook_attempts",
    "idempotency_keys",
    "web_sessions",
    "oauth_keys",
    "oauth_clients",
    "agent_connections",
    "api_tokens",
    "oauth_codes",
    "oauth_refresh_tokens",
    "login_attempts",
    "mcp_sessions",
    "shipment_counts",
    "credential_generation",
];

const DERIVED: &str = "shipment_counts";
/// A table whose row each database keeps for itself (its migration makes it, its triggers move
/// it as the rows go in): neither copied, compared, nor a sign that the target is in use.
const OWN: &str = "credential_generation";

/// One side of a copy.
pub enum Location<'a> {
    Sqlite(&'a Path),
    Postgres(&'a str),
}

/// An open side: the connection the statement interface runs on.
enum Open {
    Sqlite(rusqlite::Connection),
    Postgres(Box<PgConn>),
}

impl Open {
    fn connect(location: &Location) -> Result<Open> {
        match location {
            Location::Sqlite(path) => Ok(Open::Sqlite(open_migrated(path)?.0)),
            Location::Postgres(url) => {
                let mut client = pg::Target::parse(url)?.connect()?;
                pg::migrate_client(&mut client)?;
                Ok(Open::Postgres(Box::new(PgConn::new(client))))
            }
        }
    }

    fn conn(&self) -> Conn<'_> {
        match self {
            Open::Sqlite(conn) => Conn::Lite(conn),
            Open::Postgres(conn) => Conn::Pg(conn),
        }
    }
}

/// A table's rows on both sides after the copy.
#[derive(Debug, PartialEq)]
pub struct Copied {
    pub table: &'static str,
    pub rows: u64,
}

/// Copies everything at `from` into the empty database at `to`.
pub fn copy(from: &Location, to: &Location) -> Result<Vec<Copied>> {
    let source = Open::connect(from)?;
    let target = Open::connect(to)?;
    let (src, dst) = (source.conn(), target.conn());
    for table in TABLES.iter().filter(|t| **t != OWN) {
        let n = count(dst, table)?;
        if n > 0 {
            return Err(Error::InvalidState(format!(
                "the target is not empty: {table} has {n} rows; copy-data only fills an empty database"
            )));
        }
    }
    src.execute_batch(src.pick("BEGIN", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"))?;
    dst.execute_batch("BEGIN")?;
    let copied = (|| {
        for table in TABLES.iter().filter(|t| **t != DERIVED && **t != OWN) {
            copy_table(src, dst, table)?;
        }
        dst.execute_batch(
            "INSERT INTO shipment_counts (org_id, status, n)
             SELECT org_id, status, COUNT(*) FROM shipments WHERE true GROUP BY org_id, status
             ON CONFLICT (org_id, status) DO UPDATE SET n = excluded.n",
        )?;
        let mut copied = Vec::new();
        for table in TABLES.iter().filter(|t| **t != OWN) {
            let (a, b) = (count(src, table)?, count(dst, table)?);
            if a != b {
                return Err(Error::Internal(format!(
                    "{table}: {a} rows in the source but {b} in the target; nothing was kept"
                )));
            }
            copied.push(Copied { table, rows: a });
        }
        Ok(copied)
    })();
    let _ = src.execute_batch("COMMIT");
    match copied {
        Ok(copied) => {
            dst.execute_batch("COMMIT")?;
            Ok(copied)
        }
        Err(err) => {
            let _ = dst.execute_batch("ROLLBACK");
            Err(err)
        }
    }
}

/// The rows of `table` (of the derived counts, those that count something).
fn count(conn: Conn, table: &str) -> Result<u64> {
    let filter = if table == DERIVED {
        " WHERE n <> 0"
    } else {
        ""
    };
    let n: i64 = conn.query_row(&format!("SELECT COUNT(*) FROM {table}{filter}"), (), |r| {
        r.get(0)
    })?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Copies one table. A shipping rule may name another as its return rule, so on PostgreSQL
/// (whose foreign keys cannot be switched off by an ordinary user) rules go in once the rule
/// they name is in.
fn copy_table(src: Conn, dst: Conn, table: &str) -> Result<()> {
    let mut select = src.prepare_cached(&format!("SELECT * FROM {table}"))?;
    let columns = select.column_names();
    let mut rows = select
        .query_map((), |row| {
            (0..columns.len())
                .map(|i| row.owned(i))
                .collect::<crate::store::sql::Result<Vec<Owned>>>()
        })?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    if table == "shipping_rules" {
        rows = parents_first(&columns, rows);
    }
    let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    let mut insert = dst.prepare_cached(&format!(
        "INSERT INTO {table} ({}) VALUES ({})",
        columns.join(", "),
        placeholders.join(", ")
    ))?;
    for row in &rows {
        let params: Vec<&dyn crate::store::sql::Param> = row
            .iter()
            .map(|v| v as &dyn crate::store::sql::Param)
            .collect();
        insert.execute(params.as_slice())?;
    }
    Ok(())
}

/// Orders shipping rules so that each comes after the return rule it names.
fn parents_first(columns: &[String], rows: Vec<Vec<Owned>>) -> Vec<Vec<Owned>> {
    let at = |name: &str| columns.iter().position(|c| c == name);
    let (Some(id), Some(parent)) = (at("id"), at("return_shipping_rule_id")) else {
        return rows;
    };
    let mut placed = std::collections::HashSet::new();
    let mut ordered = Vec::with_capacity(rows.len());
    let mut left = rows;
    while !left.is_empty() {
        let before = left.len();
        let (ready, wait): (Vec<_>, Vec<_>) =
            left.into_iter().partition(|row| match &row[parent] {
                Owned::Text(p) => placed.contains(p),
                _ => true,
            });
        for row in ready {
            if let Owned::Text(v) = &row[id] {
                placed.insert(v.clone());
            }
            ordered.push(row);
        }
        left = wait;
        if left.len() == before {
            // A rule names one that does not exist: the insert reports it.
            ordered.append(&mut left);
        }
    }
    ordered
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table a migration adds must be copied too: the list is checked against the schema.
    #[test]
    fn every_table_of_the_schema_is_copied() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("s.db");
        let open = Open::connect(&Location::Sqlite(&path)).unwrap_or_else(|e| panic!("{e}"));
        let mut tables: Vec<String> = open
            .conn()
            .prepare_cached(
                "SELECT name FROM sqlite_master WHERE type = 'table'
                 AND name NOT LIKE 'sqlite_%' AND name <> 'refinery_schema_history' ORDER BY name",
            )
            .and_then(|mut s| s.query_map((), |r| r.get(0))?.collect())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut listed: Vec<String> = TABLES.iter().map(|t| t.to_string()).collect();
        tables.sort();
        listed.sort();
        assert_eq!(listed, tables);
    }
}
