//! What the server removes every hour (run by the webhook worker's loop): delivered events and
//! delivery log rows past `webhooks.retention_days`, idempotency keys past their 24 hours,
//! expired sessions, authorization codes and refresh tokens, and registered OAuth clients that
//! never got a connection within 30 days, legacy MCP sessions unused for an hour, and sign-in
//! failures an hour old.

use crate::{
    error::Result,
    model::time,
    service::{Ctx, input::idempotency},
    store,
};

/// Registered clients nobody connected are forgotten after this many days.
const UNUSED_CLIENT_DAYS: i64 = 30;

pub async fn run(ctx: &Ctx) -> Result<()> {
    let now = ctx.clock.now();
    let events_before = now - ::time::Duration::days(i64::from(ctx.config.webhooks.retention_days));
    let keys_before = time::format(now - ::time::Duration::hours(idempotency::KEEP_HOURS));
    let clients_before = time::format(now - ::time::Duration::days(UNUSED_CLIENT_DAYS));
    let mcp_before = time::format(
        now - ::time::Duration::seconds(crate::service::access::mcp_sessions::IDLE_SECONDS),
    );
    let failures_before = time::format(
        now - ::time::Duration::seconds(
            crate::service::access::login_throttle::FORGET_AFTER_SECONDS,
        ),
    );
    let now = time::format(now);
    let removed = ctx
        .db
        .write(move |tx| {
            Ok(store::deliveries::prune(tx, events_before)?
                + store::idempotency::prune(tx, &keys_before)?
                + store::sessions::prune(tx, &now)?
                + store::oauth::prune(tx, &now)?
                + store::oauth::prune_unused_clients(tx, &clients_before)?
                + store::shared_state::prune(tx, &mcp_before, &failures_before)?)
        })
        .await?;
    if removed > 0 {
        tracing::info!(removed, "housekeeping removed expired rows");
    }
    Ok(())
}

/// Rows brought up to date per step of `upgrade_stored`.
pub const UPGRADE_BATCH: u32 = 1000;

/// Brings a batch of shipments stored before V20 (no search terms), and of shipments, orders
/// and shipping rules stored before their representations (V28, V29), up to date; whether a
/// batch came back full (more may be left). The webhook worker calls it every second until none
/// is.
pub async fn upgrade_stored(ctx: &Ctx) -> Result<bool> {
    let done = [
        upgrade_batch(
            ctx,
            store::shipments::unsearchable,
            store::shipment_terms::make_searchable,
            "indexed shipments stored before search for search",
        )
        .await?,
        upgrade_batch(
            ctx,
            store::shipments::unrendered,
            store::shipments::render,
            "stored the representation of shipments stored before it",
        )
        .await?,
        upgrade_batch(
            ctx,
            store::orders::unrendered,
            store::orders::render,
            "stored the representation of orders stored before it",
        )
        .await?,
        upgrade_batch(
            ctx,
            store::shipping_rules::unrendered,
            store::shipping_rules::render,
            "stored the representation of shipping rules stored before it",
        )
        .await?,
    ];
    Ok(done.into_iter().max().unwrap_or(0) >= UPGRADE_BATCH as usize)
}

/// Up to `UPGRADE_BATCH` rows `find` reads, brought up to date by `upgrade` in one write; how
/// many (reads make what is missing from the row meanwhile).
async fn upgrade_batch<T: Send + 'static>(
    ctx: &Ctx,
    find: fn(&store::Reader, u32) -> Result<Vec<T>>,
    upgrade: fn(&store::Tx, &[T]) -> Result<()>,
    done: &'static str,
) -> Result<usize> {
    let batch = ctx.db.read(move |db| find(db, UPGRADE_BATCH)).await?;
    if batch.is_empty() {
        return Ok(0);
    }
    let n = batch.len();
    ctx.db.write(move |tx| upgrade(tx, &batch)).await?;
    tracing::info!(rows = n, "{done}");
    Ok(n)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::{
        config::Config,
        model::{ids, oauth::Client, time::Clock, user::UserRecord},
    };

    #[tokio::test]
    async fn expired_sessions_and_unused_clients_go() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut config = Config::default();
        config.storage.data_dir = dir.path().to_path_buf();
        let start = time::parse("2026-11-01T00:00:00.000Z").unwrap_or_else(|| panic!("time"));
        let clock = Arc::new(Mutex::new(start));
        let ctx = Ctx::open_with_clock(config, Clock::Set(clock.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        let at = move |days: i64| time::format(start + ::time::Duration::days(days));
        let user = UserRecord {
            id: ids::new(ids::USER),
            email: "a@example.com".into(),
            name: "A".into(),
            language: "en".into(),
            staff: false,
            email_verified: false,
            role: None,
            created_at: at(0),
            updated_at: at(0),
        };
        let client = |id: &str, created: String| Client {
            id: id.into(),
            name: "x".into(),
            redirect_uris: vec!["https://app.example/cb".into()],
            client_uri: None,
            created_at: created,
        };
        let (old, recent) = (client("cli_old", at(0)), client("cli_recent", at(20)));
        let (u, o, r) = (user.clone(), old.clone(), recent.clone());
        let (day1, day60) = (at(1), at(60));
        ctx.db
            .write(move |tx| {
                store::users::insert(tx, &u)?;
                store::sessions::insert(tx, b"short", &u.id, &at(0), &day1)?;
                store::sessions::insert(tx, b"long", &u.id, &at(0), &day60)?;
                store::oauth::insert_client(tx, &o)?;
                store::oauth::insert_client(tx, &r)
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        *clock.lock().unwrap_or_else(|p| p.into_inner()) = start + ::time::Duration::days(40);
        run(&ctx).await.unwrap_or_else(|e| panic!("{e}"));
        let found = ctx
            .db
            .read(move |db| {
                Ok((
                    store::sessions::user_of(db, b"short", &at(0))?,
                    store::sessions::user_of(db, b"long", &at(0))?,
                    store::oauth::client(db, "cli_old")?,
                    store::oauth::client(db, "cli_recent")?,
                ))
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found.0, None, "expired on day 1");
        assert_eq!(found.1, Some(user.id), "lasts until day 60");
        assert_eq!(found.2, None, "unused for 40 days");
        assert_eq!(found.3, Some(recent), "unused for 20 days only");
    }
}
