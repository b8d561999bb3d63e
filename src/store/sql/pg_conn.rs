//! The PostgreSQL connection: a client with its statements prepared once, by their text.

use std::{cell::RefCell, collections::HashMap};

use postgres::types::ToSql as PgToSql;

use super::{Error, Result, Value};

/// A PostgreSQL client and its prepared statements, by their text.
pub struct PgConn {
    /// Always `Some` but while being dropped.
    client: RefCell<Option<postgres::Client>>,
    statements: RefCell<HashMap<String, postgres::Statement>>,
}

impl PgConn {
    pub fn new(client: postgres::Client) -> PgConn {
        PgConn {
            client: RefCell::new(Some(client)),
            statements: RefCell::default(),
        }
    }

    /// The client itself, for what the statement interface does not cover.
    pub fn client(&self) -> std::cell::RefMut<'_, postgres::Client> {
        std::cell::RefMut::map(self.client.borrow_mut(), |c| {
            c.as_mut()
                .unwrap_or_else(|| unreachable!("the client is there until drop"))
        })
    }

    pub(super) fn prepare(&self, sql: &str) -> Result<postgres::Statement> {
        if let Some(stmt) = self.statements.borrow().get(sql) {
            return Ok(stmt.clone());
        }
        let stmt = self
            .client()
            .prepare(&numbered(sql))
            .map_err(|source| Error::Prepare {
                sql: sql.split_whitespace().collect::<Vec<_>>().join(" "),
                source,
            })?;
        self.statements
            .borrow_mut()
            .insert(sql.to_string(), stmt.clone());
        Ok(stmt)
    }

    pub(super) fn query(
        &self,
        stmt: &postgres::Statement,
        values: &[Value],
    ) -> Result<Vec<postgres::Row>> {
        let params: Vec<&(dyn PgToSql + Sync)> =
            values.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        Ok(self.client().query(stmt, &params)?)
    }

    pub(super) fn execute(&self, stmt: &postgres::Statement, values: &[Value]) -> Result<u64> {
        let params: Vec<&(dyn PgToSql + Sync)> =
            values.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        Ok(self.client().execute(stmt, &params)?)
    }

    /// Whether the connection is closed (a pool drops it then).
    pub fn is_closed(&self) -> bool {
        self.client().is_closed()
    }
}

impl Drop for PgConn {
    /// Closing the client blocks on its own runtime, which cannot happen on a thread that
    /// drives another (a pool dropped inside async code): it is closed on a thread of its own.
    fn drop(&mut self) {
        let client = self.client.get_mut().take();
        if let Some(client) = client
            && tokio::runtime::Handle::try_current().is_ok()
        {
            let _ = std::thread::Builder::new()
                .name("shipbase-pg-close".into())
                .spawn(move || drop(client));
        }
    }
}

/// `?N` parameters as PostgreSQL's `$N`, and bare `?`s numbered in order, outside quoted text.
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut quoted = false;
    let mut bare = 0;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                out.push('$');
                if !chars.peek().is_some_and(char::is_ascii_digit) {
                    bare += 1;
                    out.push_str(&bare.to_string());
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_numbered_for_postgres_outside_quotes() {
        assert_eq!(
            numbered("SELECT a FROM t WHERE b = ?1 AND c = '?2' AND d IN (?2, ?10)"),
            "SELECT a FROM t WHERE b = $1 AND c = '?2' AND d IN ($2, $10)"
        );
        assert_eq!(
            numbered("SELECT a FROM t WHERE b = ? AND c = ?"),
            "SELECT a FROM t WHERE b = $1 AND c = $2"
        );
    }
}
