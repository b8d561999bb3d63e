//! `Tx`: the unit of work of one write job. Store write functions take it; the service layer
//! records on it what the write causes beyond its own rows — events to emit, orders whose status
//! must be settled once before commit, plan usage — and reads the organization's plan from it.
//! The writer turns all of it into rows inside the job's savepoint, so an event or a count is
//! never kept for a change that rolled back, and never lost for one that committed.

use std::{
    cell::RefCell,
    collections::{BTreeMap, btree_map::Entry},
    rc::Rc,
    sync::Arc,
};

use crate::{
    config::Plan,
    error::Result,
    model::{
        event::{Event, EventKind},
        usage::Counter,
    },
    store::{
        Effects, Reader, Tx, deliveries, events, orgs, usage,
        webhooks::{self},
    },
};

/// The configured plans by name.
pub type Plans = Arc<BTreeMap<String, Plan>>;

/// Runs at the end of every write job, inside its savepoint (the service settles orders here).
pub type BeforeCommit = Arc<dyn Fn(&Tx) -> Result<()> + Send + Sync>;

/// An organization's plan as a write sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct OrgPlan {
    pub plan: Plan,
    pub overage_enabled: bool,
}

/// An order a write touched, to be settled before commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TouchedOrder {
    pub org_id: String,
    pub order_id: String,
    /// When the latest touching change happened.
    pub at: String,
}

impl<'c> std::ops::Deref for Tx<'c> {
    type Target = Reader<'c>;
    fn deref(&self) -> &Reader<'c> {
        &self.reader
    }
}

impl<'c> Tx<'c> {
    pub(in crate::store) fn new(conn: crate::store::sql::Conn<'c>, plans: &'c Plans) -> Tx<'c> {
        Tx {
            reader: Reader { conn },
            plans,
            effects: RefCell::new(Effects::default()),
        }
    }

    /// The active webhooks of `org_id` that subscribe to `kind`: where an event of that kind
    /// would go. Empty means nobody listens, and the event need not be made at all.
    pub fn targets(&self, org_id: &str, kind: EventKind) -> Result<Vec<String>> {
        let cached = self.effects.borrow().subscribers.get(org_id).cloned();
        let subscribers = match cached {
            Some(subscribers) => subscribers,
            None => {
                let read = Rc::new(webhooks::subscribers(self, org_id)?);
                self.effects
                    .borrow_mut()
                    .subscribers
                    .insert(org_id.to_string(), read.clone());
                read
            }
        };
        Ok(subscribers
            .iter()
            .filter(|s| s.events.contains(&kind))
            .map(|s| s.webhook_id.clone())
            .collect())
    }

    /// Records an event for `webhook_ids`; when the job ends it is written to the outbox with
    /// one queued delivery per webhook.
    pub fn emit(&self, event: Event, webhook_ids: Vec<String>) {
        if !webhook_ids.is_empty() {
            self.effects.borrow_mut().events.push((event, webhook_ids));
        }
    }

    /// Tells the delivery worker, once the job commits, that `webhook_id` has a delivery due
    /// that no event of this job queued (a replay).
    pub fn wake_deliveries(&self, webhook_id: &str) {
        self.effects.borrow_mut().woken.push(webhook_id.to_string());
    }

    /// Marks an order whose shipments changed at `at`: its status is settled once, before
    /// commit, after every other change of the job.
    pub fn touch_order(&self, org_id: &str, order_id: &str, at: &str) {
        let mut effects = self.effects.borrow_mut();
        match effects
            .orders
            .entry((org_id.to_string(), order_id.to_string()))
        {
            Entry::Vacant(slot) => {
                slot.insert(at.to_string());
            }
            Entry::Occupied(mut slot) => {
                if slot.get().as_str() < at {
                    slot.insert(at.to_string());
                }
            }
        }
    }

    /// The orders touched so far, forgetting them.
    pub fn take_touched_orders(&self) -> Vec<TouchedOrder> {
        std::mem::take(&mut self.effects.borrow_mut().orders)
            .into_iter()
            .map(|((org_id, order_id), at)| TouchedOrder {
                org_id,
                order_id,
                at,
            })
            .collect()
    }

    /// The plan of the organization and whether it allows overage. An organization whose plan
    /// is no longer configured falls back to `default` (and to no limits when that is missing).
    pub fn plan(&self, org_id: &str) -> Result<OrgPlan> {
        let (name, overage_enabled) = orgs::plan_of(self, org_id)?.unwrap_or_default();
        let plan = self
            .plans
            .get(&name)
            .or_else(|| self.plans.get("default"))
            .cloned()
            .unwrap_or_default();
        Ok(OrgPlan {
            plan,
            overage_enabled,
        })
    }

    /// Adds `delta` to a plan counter of the organization for `period`, in this transaction.
    pub fn add_usage(
        &self,
        org_id: &str,
        counter: Counter,
        period: &str,
        delta: i64,
    ) -> Result<()> {
        usage::add(self, org_id, counter, period, delta)
    }

    /// Writes what the job collected (the events, in the order they were emitted, and their
    /// deliveries); returns the webhooks it queued deliveries for, or woke.
    pub(in crate::store) fn flush(&self) -> Result<Vec<String>> {
        let events = std::mem::take(&mut self.effects.borrow_mut().events);
        let mut queued = std::mem::take(&mut self.effects.borrow_mut().woken);
        for (event, webhook_ids) in events {
            events::insert(self, &event)?;
            deliveries::enqueue(self, &event, &webhook_ids)?;
            queued.extend(webhook_ids);
        }
        Ok(queued)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::{
        error::Error,
        model::{
            event::{Event, EventKind},
            org::Organization,
        },
        store::{Db, Options},
    };

    fn org(id: &str, plan: &str) -> Organization {
        Organization {
            id: id.into(),
            name: "Acme".into(),
            slug: id.replace('_', "-").to_lowercase(),
            description: None,
            currency: "DKK".into(),
            vat_number: None,
            billing_email: None,
            company_name: None,
            address_line1: None,
            address_line2: None,
            city: None,
            postal_code: None,
            country: None,
            overage_enabled: false,
            agents: Default::default(),
            plan: plan.into(),
            created_at: "2026-11-23T10:00:00.000Z".into(),
            updated_at: "2026-11-23T10:00:00.000Z".into(),
        }
    }

    /// A database whose hook records the orders each job touched.
    fn open(dir: &tempfile::TempDir, seen: Arc<Mutex<Vec<TouchedOrder>>>) -> Db {
        let plans = BTreeMap::from([
            (
                "default".to_string(),
                Plan {
                    carriers: 5,
                    ..Plan::default()
                },
            ),
            (
                "tiny".to_string(),
                Plan {
                    carriers: 1,
                    ..Plan::default()
                },
            ),
        ]);
        let hook: BeforeCommit = Arc::new(move |tx: &Tx| {
            let touched = tx.take_touched_orders();
            let fail = touched.iter().any(|t| t.order_id == "ord_fail");
            seen.lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend(touched);
            if fail {
                return Err(Error::InvalidState("settling failed".into()));
            }
            Ok(())
        });
        Db::open(Options {
            path: &dir.path().join("t.db"),
            url: None,
            synchronous: "normal",
            read_connections: 2,
            plans: Arc::new(plans),
            before_commit: hook,
        })
        .unwrap_or_else(|e| panic!("{e}"))
    }

    async fn event_kinds(db: &Db) -> Vec<String> {
        db.read(|r| {
            let mut stmt = r
                .conn
                .prepare_cached("SELECT type FROM events ORDER BY id")?;
            let kinds = stmt
                .query_map((), |row| row.get(0))?
                .collect::<crate::store::sql::Result<Vec<String>>>()?;
            Ok(kinds)
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn event(kind: EventKind) -> Event {
        Event::new(
            kind,
            "org_a",
            "2026-11-23T10:00:00.000Z",
            serde_json::json!({"k": 1}),
        )
    }

    fn webhook(
        id: &str,
        events: Vec<EventKind>,
        is_active: bool,
    ) -> crate::model::webhook::Webhook {
        crate::model::webhook::Webhook {
            id: id.into(),
            org_id: "org_a".into(),
            name: "hook".into(),
            url: "http://127.0.0.1:9/".into(),
            secret: "sealed".into(),
            previous_secret: None,
            previous_secret_expires_at: None,
            events,
            is_active,
            created_at: "2026-11-23T10:00:00.000Z".into(),
            updated_at: "2026-11-23T10:00:00.000Z".into(),
        }
    }

    /// Emits `kind` the way the service does: to whoever subscribes.
    fn emit(tx: &Tx, kind: EventKind) -> Result<()> {
        let targets = tx.targets("org_a", kind)?;
        tx.emit(event(kind), targets);
        Ok(())
    }

    async fn count(db: &Db, table: &'static str) -> i64 {
        db.read(move |r| {
            Ok(r.conn
                .query_row(&format!("SELECT COUNT(*) FROM {table}"), (), |row| {
                    row.get(0)
                })?)
        })
        .await
        .unwrap_or(-1)
    }

    #[tokio::test]
    async fn events_are_written_with_the_job_for_their_subscribers_and_vanish_with_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let db = open(&dir, Arc::default());
        db.write(|tx| {
            crate::store::orgs::save(tx, &org("org_a", "default"))?;
            let both = vec![EventKind::OrderCreated, EventKind::OrderUpdated];
            webhooks::save(tx, &webhook("whk_1", both.clone(), true))?;
            webhooks::save(tx, &webhook("whk_2", vec![EventKind::OrderUpdated], true))?;
            webhooks::save(tx, &webhook("whk_3", both, false))?;
            Ok(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        db.write(|tx| {
            emit(tx, EventKind::OrderCreated)?;
            emit(tx, EventKind::OrderUpdated)?;
            emit(tx, EventKind::ShipmentCreated)?;
            Ok(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        let failed: Result<()> = db
            .write(|tx| {
                emit(tx, EventKind::OrderUpdated)?;
                Err(Error::Conflict("no".into()))
            })
            .await;
        assert!(failed.is_err());
        assert_eq!(
            event_kinds(&db).await,
            ["order.created", "order.updated"],
            "nobody subscribes to shipment.created; the failed job left nothing"
        );
        assert_eq!(
            count(&db, "webhook_deliveries").await,
            3,
            "1 + 2 active subscribers"
        );
    }

    #[tokio::test]
    async fn pruning_removes_old_finished_deliveries_and_events_but_keeps_pending_ones() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let db = open(&dir, Arc::default());
        db.write(|tx| {
            crate::store::orgs::save(tx, &org("org_a", "default"))?;
            webhooks::save(tx, &webhook("whk_1", vec![EventKind::OrderCreated], true))?;
            emit(tx, EventKind::OrderCreated)?;
            emit(tx, EventKind::OrderCreated)?;
            Ok(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        // The first delivery was delivered long ago; the second is still pending.
        db.write(|tx| {
            let (now, lease) = ("2026-11-23T10:00:00.000Z", "2026-11-23T10:01:00.000Z");
            assert_eq!(deliveries::due_webhooks(tx, now)?, ["whk_1"]);
            let due = deliveries::next_due(tx, "whk_1", now)?.ok_or(Error::NotFound)?;
            assert!(deliveries::claim(tx, &due, now, lease)?);
            assert!(
                !deliveries::claim(tx, &due, now, lease)?,
                "claimed once only"
            );
            deliveries::settle(tx, &due, "delivered", None, "2026-10-01T00:00:00.000Z")?;
            Ok(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        let removed = db
            .write(|tx| {
                let later = ::time::OffsetDateTime::now_utc() + ::time::Duration::seconds(1);
                deliveries::prune(tx, later)
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(removed, 2, "one delivery and its event");
        assert_eq!(count(&db, "events").await, 1);
        assert_eq!(count(&db, "webhook_deliveries").await, 1);
    }

    #[tokio::test]
    async fn touched_orders_reach_the_hook_once_and_its_error_rolls_the_job_back() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let db = open(&dir, seen.clone());
        db.write(|tx| {
            crate::store::orgs::save(tx, &org("org_a", "default"))?;
            tx.touch_order("org_a", "ord_1", "2026-11-23T10:00:01.000Z");
            tx.touch_order("org_a", "ord_1", "2026-11-23T10:00:03.000Z");
            tx.touch_order("org_a", "ord_1", "2026-11-23T10:00:02.000Z");
            Ok(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        let touched = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert_eq!(
            touched,
            [TouchedOrder {
                org_id: "org_a".into(),
                order_id: "ord_1".into(),
                at: "2026-11-23T10:00:03.000Z".into(),
            }]
        );
        let failed: Result<()> = db
            .write(|tx| {
                webhooks::save(tx, &webhook("whk_1", vec![EventKind::OrderUpdated], true))?;
                emit(tx, EventKind::OrderUpdated)?;
                tx.touch_order("org_a", "ord_fail", "2026-11-23T10:00:04.000Z");
                Ok(())
            })
            .await;
        assert!(matches!(failed, Err(Error::InvalidState(_))));
        assert!(event_kinds(&db).await.is_empty());
        assert_eq!(count(&db, "webhooks").await, 0);
    }

    #[tokio::test]
    async fn a_tx_knows_the_plan_and_counts_usage() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let db = open(&dir, Arc::default());
        let (tiny, gone, counted) = db
            .write(|tx| {
                crate::store::orgs::save(tx, &org("org_a", "tiny"))?;
                crate::store::orgs::save(tx, &org("org_b", "retired"))?;
                tx.add_usage("org_a", Counter::Shipments, "2026-11", 2)?;
                tx.add_usage("org_a", Counter::Shipments, "2026-11", 1)?;
                let counted = usage::get(tx, "org_a", Counter::Shipments, "2026-11")?;
                Ok((tx.plan("org_a")?, tx.plan("org_b")?, counted))
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tiny.plan.carriers, 1);
        assert_eq!(
            gone.plan.carriers, 5,
            "an unconfigured plan falls back to default"
        );
        assert_eq!(counted, 3);
    }

    #[tokio::test]
    async fn a_new_database_has_pages_of_8_kib_whoever_makes_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let db = open(&dir, Arc::default());
        let size = db
            .read(|r| {
                Ok(r.conn
                    .query_row("PRAGMA page_size", (), |row| row.get::<_, u32>(0))?)
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(size, crate::store::PAGE_SIZE);
        let (conn, _) = crate::store::open_migrated(&dir.path().join("cli.db"))
            .unwrap_or_else(|e| panic!("{e}"));
        let size: u32 = conn
            .query_row("PRAGMA page_size", (), |row| row.get(0))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(size, 8192);
    }

    #[tokio::test]
    async fn readers_cannot_write() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let db = open(&dir, Arc::default());
        let written = db
            .read(|r| {
                r.conn.execute(
                    "INSERT INTO usage_counters (org_id, counter, period, value) VALUES ('o', 'c', 'p', 1)",
                    (),
                )?;
                Ok(())
            })
            .await;
        assert!(
            matches!(&written, Err(Error::Internal(m)) if m.contains("readonly")),
            "{written:?}"
        );
    }
}
