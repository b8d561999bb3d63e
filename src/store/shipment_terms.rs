//! `shipment_terms`: what each shipment can be found by (DESIGN §20: search by receiver and
//! tracking number, scanning a tracking number), kept as shipments are written, and the
//! look-up of a search's words.

use std::collections::BTreeSet;

use crate::{
    error::Result,
    model::shipment::ShipmentRecord,
    store::{
        Reader, Tx,
        sql::{OptionalExtension, params},
    },
};

/// The most shipments one search word is looked up for before the search is made in the list
/// query itself instead (a word so common is rare; the query is then slower, never wrong).
#[cfg(not(test))]
const WORD_MATCHES: u32 = 20_000;
/// So that the unit tests meet broad words with a few shipments.
#[cfg(test)]
const WORD_MATCHES: u32 = 2;

/// The shipments a search names, when few enough to list by id: those whose reference is the
/// whole search, and those each word of which begins one of their terms. None when a word
/// begins too many terms to collect.
pub(super) fn searched(
    db: &Reader,
    org_id: &str,
    search: &str,
    words: &[String],
) -> Result<Option<Vec<String>>> {
    let mut found: Option<std::collections::BTreeSet<String>> = None;
    for word in words {
        let (from, to) = prefix_range(word);
        let ids: std::collections::BTreeSet<String> = db
            .conn
            .prepare_cached(
                "SELECT shipment_id FROM shipment_terms WHERE org_id = ?1 AND term >= ?2 AND term < ?3 LIMIT ?4",
            )?
            .query_map(params![org_id, from, to, WORD_MATCHES + 1], |r| r.get(0))?
            .collect::<crate::store::sql::Result<_>>()?;
        if ids.len() > WORD_MATCHES as usize {
            return Ok(None);
        }
        found = Some(match found {
            None => ids,
            Some(before) => before.intersection(&ids).cloned().collect(),
        });
    }
    let mut ids: Vec<String> = found.unwrap_or_default().into_iter().collect();
    let reference: Vec<String> = db
        .conn
        .prepare_cached("SELECT id FROM shipments WHERE org_id = ?1 AND reference = ?2")?
        .query_map(params![org_id, search], |r| r.get(0))?
        .collect::<crate::store::sql::Result<_>>()?;
    ids.extend(reference);
    Ok(Some(ids))
}

/// A search's arguments: the ids it names, or (too many to collect) its words' term ranges and
/// the whole search as a reference.
pub(super) enum SearchArgs {
    Ids(String),
    Words(Vec<(String, String)>, String),
}

/// The range of terms that begin with `word`: [word, word + the last character).
pub(super) fn prefix_range(word: &str) -> (String, String) {
    (word.to_string(), format!("{word}{}", char::MAX))
}

/// Brings the search terms of `s` up to date with its body, given `before`, the shipment as the
/// same unit of work read it (its terms are the stored ones: every write of a shipment writes
/// them from its body). Only the terms that changed are written: most updates, a status change
/// say, change none. Terms are written and deleted by their key alone (V30).
pub fn index(tx: &Tx, before: &ShipmentRecord, s: &ShipmentRecord) -> Result<()> {
    write(tx, s, &before.body.search_terms())
}

/// The search terms of a shipment that has none yet: just inserted, or stored before V20.
pub fn index_new(tx: &Tx, s: &ShipmentRecord) -> Result<()> {
    write(tx, s, &BTreeSet::new())
}

/// Deletes the search terms of `s` (the shipment as stored), before `s` is deleted.
pub fn remove(tx: &Tx, s: &ShipmentRecord) -> Result<()> {
    for gone in s.body.search_terms() {
        delete(tx, s, &gone)?;
    }
    Ok(())
}

/// Writes the terms of `s` that `stored` lacks and removes those it no longer has.
fn write(tx: &Tx, s: &ShipmentRecord, stored: &BTreeSet<String>) -> Result<()> {
    let terms = s.body.search_terms();
    for gone in stored.difference(&terms) {
        delete(tx, s, gone)?;
    }
    for new in terms.difference(stored) {
        tx.conn
            .prepare_cached(
                "INSERT INTO shipment_terms (org_id, term, shipment_id) VALUES (?1, ?2, ?3)
                 ON CONFLICT DO NOTHING",
            )?
            .execute(params![s.org_id, new, s.id])?;
    }
    Ok(())
}

fn delete(tx: &Tx, s: &ShipmentRecord, term: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "DELETE FROM shipment_terms WHERE org_id = ?1 AND term = ?2 AND shipment_id = ?3",
        )?
        .execute(params![s.org_id, term, s.id])?;
    Ok(())
}

/// Indexes shipments `shipments::unsearchable` found (still as they were: one changed meanwhile was
/// indexed by its own write) and marks them searchable.
pub fn make_searchable(tx: &Tx, shipments: &[ShipmentRecord]) -> Result<()> {
    for s in shipments {
        // Every write of a shipment marks it searchable: one still unmarked is as it was read.
        let unchanged = tx
            .conn
            .prepare_cached(
                "UPDATE shipments SET searchable = 1, carrier_id = ?2 WHERE id = ?1 AND searchable = 0",
            )?
            .execute(params![s.id, s.body.carrier_settings.carrier_id])?;
        if unchanged == 1 {
            // Stored before V20: it has no terms yet.
            index_new(tx, s)?;
        }
    }
    Ok(())
}

/// How many shipments a search of one `word` (the terms in `range`) names, or whose reference
/// is `whole`: counted from the terms' index, however many there are.
pub(super) fn broad_total(
    db: &Reader,
    org_id: &str,
    whole: &str,
    range: &(String, String),
) -> Result<i64> {
    let (from, to) = range;
    let mut total: i64 = db
        .conn
        .prepare_cached(
            "SELECT COUNT(DISTINCT shipment_id) FROM shipment_terms
             WHERE org_id = ?1 AND term >= ?2 AND term < ?3",
        )?
        .query_row(params![org_id, from, to], |r| r.get(0))?;
    let by_reference: Vec<String> = db
        .conn
        .prepare_cached("SELECT id FROM shipments WHERE org_id = ?1 AND reference = ?2")?
        .query_map(params![org_id, whole], |r| r.get(0))?
        .collect::<crate::store::sql::Result<_>>()?;
    for id in by_reference {
        let counted: Option<i64> = db
            .conn
            .prepare_cached(
                "SELECT 1 FROM shipment_terms WHERE shipment_id = ?1 AND term >= ?2 AND term < ?3",
            )?
            .query_row(params![id, from, to], |r| r.get(0))
            .optional()?;
        if counted.is_none() {
            total += 1;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use crate::{
        config::Config,
        model::{org::OrgIn, status::ShipmentStatus},
        service::{
            Actor, Ctx, Input, PageParams,
            seed::{self, Seed},
            shipments::{self, ListQuery},
        },
    };

    /// Ids and total of a search (and a status) of the organization's shipments.
    async fn found(ctx: &Ctx, org: &str, search: &str, status: Option<&str>) -> (usize, u64) {
        let query = ListQuery {
            page: PageParams::first(100),
            search: Some(search.into()),
            status: status.map(str::to_string),
            ..ListQuery::default()
        };
        let page = shipments::list(ctx, &Actor::admin(), org, query)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        (page.data.len(), page.total)
    }

    #[tokio::test]
    async fn a_word_too_broad_to_collect_is_searched_in_the_list_and_counted_exactly() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut config = Config::default();
        config.storage.data_dir = dir.path().to_path_buf();
        let ctx = Ctx::open(config).unwrap_or_else(|e| panic!("{e}"));
        let org = crate::service::orgs::create(
            &ctx,
            &Actor::admin(),
            Input::ok(OrgIn {
                name: "Shop".into(),
                slug: "shop".into(),
                description: None,
                creator_email: "owner@shop.test".into(),
                creator_name: "Owner".into(),
                existing_user: None,
                plan: None,
            }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .org
        .id;
        // Twelve shipments, to four receivers in turn: three of each (more than WORD_MATCHES).
        let seed = Seed {
            org_id: org.clone(),
            shipments: 12,
        };
        seed::shipments(&ctx, &Actor::admin(), seed)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found(&ctx, &org, "jane", None).await, (3, 3));
        assert_eq!(found(&ctx, &org, "JANE doe", None).await, (3, 3));
        assert_eq!(found(&ctx, &org, "jane nordmann", None).await, (0, 0));
        // A reference is found whole, beside a broad word's matches.
        assert_eq!(found(&ctx, &org, "SEED-1", None).await, (1, 1));
        let dispatched = ShipmentStatus::Dispatched.as_str();
        let (n, total) = found(&ctx, &org, "jane", Some(dispatched)).await;
        assert_eq!(n as u64, total);
        assert!(total <= 3);
    }
}
