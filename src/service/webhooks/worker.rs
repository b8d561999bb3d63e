//! The delivery worker (DESIGN §9): takes due deliveries from the outbox and sends them, at most
//! `webhooks.max_concurrency` at once and one at a time per webhook, oldest event first. A 2xx
//! answer delivers; 410 Gone disables the webhook; anything else is retried on the schedule of
//! `schedule`, then marked failed. Every state lives in the database, so deliveries
//! pending at shutdown go out after the next start (a delivery claimed by a sender that died
//! is due again when its lease runs out); the worker also prunes old rows.

use std::{
    collections::HashSet,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::time::Instant;

use tokio::{
    sync::{Notify, Semaphore, watch},
    task::JoinSet,
};

use crate::{
    error::Result,
    model::time,
    service::{
        Ctx,
        webhooks::{delivery, reveal, schedule},
    },
    store::{self, deliveries::Due},
};

/// How often the worker looks for due deliveries nobody told it about (written by another
/// process, retries falling due).
const POLL: Duration = Duration::from_secs(1);
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
/// How long a claimed delivery is reserved for its sender (longer than a send can take).
const LEASE: ::time::Duration = ::time::Duration::seconds(60);

/// Runs until `stop` turns true; then waits up to `grace` for deliveries in flight.
///
/// It keeps the set of webhooks that may have due deliveries — from the writer (new events),
/// from its own finished sends, and from a poll each second — and asks the database only for
/// the next delivery of each, so its work does not grow with a backlog.
pub async fn run(ctx: Ctx, mut stop: watch::Receiver<bool>, grace: Duration) {
    let outbox = ctx.db.outbox();
    let finished = Arc::new(Mutex::new(Vec::<String>::new()));
    let wake = Arc::new(Notify::new());
    let permits = Arc::new(Semaphore::new(
        usize::try_from(ctx.config.webhooks.max_concurrency).unwrap_or(16),
    ));
    let mut busy: HashSet<String> = HashSet::new();
    let mut candidates: HashSet<String> = HashSet::new();
    let mut tasks = JoinSet::new();
    let mut pruned_at: Option<Instant> = None;
    let mut polled_at: Option<Instant> = None;
    let mut all_upgraded = false;
    while !*stop.borrow() {
        if pruned_at.is_none_or(|at| at.elapsed() >= PRUNE_EVERY) {
            if let Err(err) = crate::service::housekeeping::run(&ctx).await {
                tracing::warn!(error = %err, "could not prune webhook deliveries");
            }
            pruned_at = Some(Instant::now());
        }
        if polled_at.is_none_or(|at| at.elapsed() >= POLL) {
            if !all_upgraded {
                match crate::service::housekeeping::upgrade_stored(&ctx).await {
                    Ok(more) => all_upgraded = !more,
                    Err(err) => {
                        tracing::warn!(error = %err, "could not bring stored shipments up to date")
                    }
                }
            }
            match due_webhooks(&ctx).await {
                Ok(due) => candidates.extend(due),
                Err(err) => tracing::error!(error = %err, "cannot read due webhook deliveries"),
            }
            polled_at = Some(Instant::now());
        }
        candidates.extend(outbox.take());
        for webhook_id in std::mem::take(&mut *lock(&finished)) {
            busy.remove(&webhook_id);
            candidates.insert(webhook_id);
        }
        let idle: Vec<String> = candidates
            .iter()
            .filter(|id| !busy.contains(*id))
            .take(permits.available_permits())
            .cloned()
            .collect();
        match next_deliveries(&ctx, idle).await {
            Ok(next) => {
                for (webhook_id, delivery) in next {
                    let Some(delivery) = delivery else {
                        candidates.remove(&webhook_id);
                        continue;
                    };
                    let Ok(permit) = permits.clone().try_acquire_owned() else {
                        break;
                    };
                    busy.insert(webhook_id.clone());
                    let (ctx, finished, wake) = (ctx.clone(), finished.clone(), wake.clone());
                    tasks.spawn(async move {
                        if let Err(err) = attempt(&ctx, delivery).await {
                            tracing::error!(error = %err, webhook_id, "webhook delivery failed to run");
                        }
                        lock(&finished).push(webhook_id);
                        drop(permit);
                        wake.notify_one();
                    });
                }
            }
            Err(err) => tracing::error!(error = %err, "cannot read due webhook deliveries"),
        }
        while tasks.try_join_next().is_some() {}
        tokio::select! {
            () = outbox.notified() => {}
            () = wake.notified() => {}
            () = tokio::time::sleep(POLL) => {}
            _ = stop.changed() => {}
        }
    }
    let drained =
        tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tasks.abort_all();
    }
}

fn lock(items: &Mutex<Vec<String>>) -> std::sync::MutexGuard<'_, Vec<String>> {
    items
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn due_webhooks(ctx: &Ctx) -> Result<Vec<String>> {
    let now = ctx.now();
    ctx.db
        .read(move |db| store::deliveries::due_webhooks(db, &now))
        .await
}

/// The next due delivery of each webhook (None: it has nothing due).
async fn next_deliveries(
    ctx: &Ctx,
    webhook_ids: Vec<String>,
) -> Result<Vec<(String, Option<Due>)>> {
    if webhook_ids.is_empty() {
        return Ok(Vec::new());
    }
    let now = ctx.now();
    ctx.db
        .read(move |db| {
            webhook_ids
                .into_iter()
                .map(|id| {
                    let next = store::deliveries::next_due(db, &id, &now)?;
                    Ok((id, next))
                })
                .collect()
        })
        .await
}

/// Delivers one due delivery and records the attempt. The delivery is claimed first, so that
/// a stale list of due deliveries (or another process) never sends it twice.
async fn attempt(ctx: &Ctx, due: Due) -> Result<()> {
    let (now, lease_until) = (ctx.now(), time::format(ctx.clock.now() + LEASE));
    let claim = due.clone();
    let claimed = ctx
        .db
        .write(move |tx| store::deliveries::claim(tx, &claim, &now, &lease_until))
        .await?;
    if !claimed {
        return Ok(());
    }
    let (org_id, event_id, webhook_id) = (
        due.org_id.clone(),
        due.event_id.clone(),
        due.webhook_id.clone(),
    );
    let (event, webhook) = ctx
        .db
        .read(move |db| {
            Ok((
                store::deliveries::event(db, &org_id, &event_id)?,
                store::webhooks::get(db, &org_id, &webhook_id)?,
            ))
        })
        .await?;
    let (Some(event), Some(webhook)) = (event, webhook) else {
        // Deleted meanwhile: the cascade removes the delivery too.
        return Ok(());
    };
    let now = ctx.now();
    if !webhook.is_active {
        return ctx
            .db
            .write(move |tx| store::deliveries::settle(tx, &due, "failed", None, &now))
            .await;
    }
    let webhook = reveal(ctx, webhook)?;
    let message = delivery::Message {
        id: &event.id,
        kind: event.kind.as_str(),
        created_at: &event.created_at,
        org_id: &event.org_id,
        data: &event.data,
    };
    let outcome = delivery::send(ctx, &webhook, &message).await;
    let number = due.attempts + 1;
    let record = delivery::attempt(&webhook.id, &message, number, &outcome, ctx.now());
    let retry_at = (!outcome.succeeded() && !outcome.gone())
        .then(|| schedule::next_delay(number, ctx.config.webhooks.retry_scale))
        .flatten()
        .and_then(|delay| ::time::Duration::try_from(delay).ok())
        .map(|delay| time::format(ctx.clock.now() + delay));
    if let Some(error) = &record.error {
        tracing::info!(
            webhook_id = webhook.id,
            event_id = event.id,
            attempt = number,
            error,
            "webhook delivery did not succeed"
        );
    }
    let now = ctx.now();
    ctx.db
        .write(move |tx| {
            store::deliveries::record_attempt(tx, &due.org_id, &record)?;
            if outcome.succeeded() {
                store::deliveries::settle(tx, &due, "delivered", None, &now)
            } else if outcome.gone() {
                store::webhooks::deactivate(tx, &due.org_id, &due.webhook_id, &now)?;
                store::deliveries::settle(tx, &due, "failed", None, &now)?;
                store::deliveries::fail_pending(tx, &due.webhook_id, &now)
            } else {
                let state = if retry_at.is_some() {
                    "pending"
                } else {
                    "failed"
                };
                store::deliveries::settle(tx, &due, state, retry_at.as_deref(), &now)
            }
        })
        .await
}
