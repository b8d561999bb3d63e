//! Gets and lists of shipments answered from the representation each write stores
//! (`shipment::wire`): the authorization, filters and reads of `get` and `list`, and the answer's
//! bytes without the model or a value tree. The REST API (and through it MCP) answers with these.

use std::collections::HashMap;

use crate::{
    error::{Error, Result},
    model::{
        page::Paged,
        shipment::{ShipmentLine, wire},
        wire as json,
    },
    service::{Actor, Ctx, access::auth::Pending, operations as ops},
    store,
};

use super::ListQuery;

/// `get`'s answer, as JSON: the caller's credential confirmed and the shipment read in one
/// read transaction.
pub async fn get_json(ctx: &Ctx, caller: &Pending, org_id: &str, id: &str) -> Result<Vec<u8>> {
    ctx.db.point_snapshot(|db| {
        caller
            .confirm(ctx, db)?
            .authorize(org_id, &ops::GET_SHIPMENT)?;
        let stored = store::shipments::stored(db, org_id, id)?.ok_or(Error::NotFound)?;
        let documents = store::documents::of_shipment(db, org_id, id)?;
        let rule_id = stored.shipping_rule_id.as_deref();
        let rule = store::shipping_rules::summary(db, org_id, rule_id)?;
        let mut out = Vec::with_capacity(stored.repr.len() + 128);
        wire::full_at(
            &stored.repr,
            stored.gaps,
            rule_id,
            &documents,
            rule.as_ref(),
            &mut out,
        )
        .map_err(|e| json::broken("shipment", e))?;
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
    actor.authorize(org_id, &ops::LIST_SHIPMENTS)?;
    let (page, filter) = query.parse()?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| {
            let paged = store::shipments::list_stored(db, &org_id, &filter, page)?;
            // A page's shipments mostly share one or two sender addresses: each written once.
            let mut addresses: HashMap<String, Vec<u8>> = HashMap::new();
            let mut items = Vec::with_capacity(paged.items.len());
            for (repr, address_id) in &paged.items {
                if !addresses.contains_key(address_id) {
                    let address = sender_address(db, &org_id, address_id)?;
                    addresses.insert(address_id.clone(), json::to_vec(&address));
                }
                let mut item = Vec::with_capacity(repr.len() / 2);
                wire::list_item(repr, &addresses[address_id], &mut item)
                    .map_err(|e| json::broken("shipment", e))?;
                items.push(item);
            }
            Ok(json::page(
                items.iter().map(Vec::as_slice),
                paged.total,
                paged.query,
            ))
        })
        .await
}

/// `list`'s page as a table of many shows it (the workbench's list): each shipment's line and
/// the name of its sender address.
pub async fn lines(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    query: ListQuery,
) -> Result<Paged<(ShipmentLine, String)>> {
    actor.authorize(org_id, &ops::LIST_SHIPMENTS)?;
    let (page, filter) = query.parse()?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| {
            let paged = store::shipments::lines(db, &org_id, &filter, page)?;
            let mut names: HashMap<String, String> = HashMap::new();
            let mut items = Vec::with_capacity(paged.items.len());
            for line in paged.items {
                let name = match names.get(&line.sender_address_id) {
                    Some(name) => name.clone(),
                    None => {
                        let name = sender_address(db, &org_id, &line.sender_address_id)?
                            .fields
                            .name;
                        names.insert(line.sender_address_id.clone(), name.clone());
                        name
                    }
                };
                items.push((line, name));
            }
            Ok(Paged {
                items,
                total: paged.total,
                query: paged.query,
            })
        })
        .await
}

/// A listed shipment's sender address; a row without one is an internal error.
fn sender_address(
    db: &store::Reader,
    org_id: &str,
    id: &str,
) -> Result<crate::model::sender_address::SenderAddress> {
    store::sender_addresses::get(db, org_id, id)?
        .ok_or_else(|| Error::Internal(format!("no sender address {id}")))
}
