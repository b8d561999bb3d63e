//! Gets and lists of orders answered from the representation each write stores (`order::wire`,
//! and `shipment::wire` for the order's shipments): the authorization, filters and reads of `get`
//! and `list`, and the answer's bytes without the model or a value tree. The REST API (and
//! through it MCP) answers with these.

use crate::{
    error::{Error, Result},
    model::{order::wire, shipment::wire as shipment_wire, wire as json},
    service::{Actor, Ctx, access::auth::Pending, operations as ops},
    store::{self, Reader, orders::Stored},
};

use super::ListQuery;

/// `get`'s answer, as JSON: the caller's credential confirmed and the order read in one read
/// transaction.
pub async fn get_json(ctx: &Ctx, caller: &Pending, org_id: &str, id: &str) -> Result<Vec<u8>> {
    ctx.db.point_snapshot(|db| {
        caller
            .confirm(ctx, db)?
            .authorize(org_id, &ops::GET_ORDER)?;
        let stored = store::orders::stored(db, org_id, id)?.ok_or(Error::NotFound)?;
        let mut out = Vec::with_capacity(stored.repr.len() + 256);
        write(db, org_id, &stored, &mut out)?;
        Ok(out)
    })
}

/// `list`'s answer, as JSON.
pub async fn list_json(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    query: ListQuery,
) -> Result<Vec<u8>> {
    actor.authorize(org_id, &ops::LIST_ORDERS)?;
    let (page, filter) = query.parse()?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| {
            let paged = store::orders::list_stored(db, &org_id, &filter, page)?;
            let items = paged
                .items
                .iter()
                .map(|stored| {
                    let mut out = Vec::with_capacity(stored.repr.len() + 256);
                    write(db, &org_id, stored, &mut out)?;
                    Ok(out)
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(json::page(
                items.iter().map(Vec::as_slice),
                paged.total,
                paged.query,
            ))
        })
        .await
}

/// The full form of a stored order: its shipments (with their documents) and its rule read.
fn write(db: &Reader, org_id: &str, stored: &Stored, out: &mut Vec<u8>) -> Result<()> {
    let mut summaries = Vec::new();
    for (id, shipment) in store::shipments::stored_of_order(db, org_id, &stored.id)? {
        let documents = store::documents::of_shipment(db, org_id, &id)?;
        let mut summary = Vec::with_capacity(shipment.repr.len() / 2);
        shipment_wire::summary(
            &shipment.repr,
            shipment.shipping_rule_id.as_deref(),
            &documents,
            &mut summary,
        )
        .map_err(|e| json::broken("shipment", e))?;
        summaries.push(summary);
    }
    let mut shipments = Vec::with_capacity(2 + summaries.iter().map(Vec::len).sum::<usize>());
    json::array(summaries.iter().map(Vec::as_slice), &mut shipments);
    let rule_id = stored.shipping_rule_id.as_deref();
    let rule = store::shipping_rules::summary(db, org_id, rule_id)?;
    wire::full(
        &stored.repr,
        rule_id,
        &stored.channel,
        &shipments,
        rule.as_ref(),
        out,
    )
    .map_err(|e| json::broken("order", e))
}
