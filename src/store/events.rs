//! `events`: the outbox. Each event is written in the transaction of the change it reports.

use crate::store::sql::params;

use crate::{error::Result, model::event::Event, store::Tx};

pub fn insert(tx: &Tx, event: &Event) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO events (id, org_id, type, data, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            event.id,
            event.org_id,
            event.kind,
            event.data.to_string(),
            event.created_at
        ])?;
    Ok(())
}
