//! Task-shaped look-ups for agents: `track` (a shipment by tracking number or reference, with
//! where it is) and `find` (shipments and orders matching some text), answered compactly, built
//! on the list and get operations and their checks.

use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use crate::{
    error::Result,
    model::{
        scope::{Resource, Scope},
        shipment::ShipmentListItem,
    },
    service::{Actor, Ctx, PageParams, orders, shipments},
};

/// How many of each kind a look-up answers.
const MOST: u32 = 5;

/// Shipments whose reference is `query`, or whose tracking numbers (or receiver) match it, with
/// their tracking: `{"shipments": [...]}`, newest first.
pub async fn track(ctx: &Ctx, actor: &Actor, org_id: &str, query: &str) -> Result<Value> {
    let found = matching(ctx, actor, org_id, query.trim()).await?;
    let mut tracked = Vec::new();
    for item in found {
        let shipment = shipments::get(ctx, actor, org_id, &item.id).await?;
        tracked.push(brief(&shipment.to_json().unwrap_or_default()));
    }
    Ok(json!({ "shipments": tracked }))
}

/// Shipments (by reference, receiver, e-mail, postal code or tracking number) and orders (by
/// order number) matching `query`, as far as the grant reaches: `{"shipments": [...],
/// "orders": [...]}`; a kind the credential may not read is left out.
pub async fn find(ctx: &Ctx, actor: &Actor, org_id: &str, query: &str) -> Result<Value> {
    let query = query.trim();
    let mut answer = serde_json::Map::new();
    if actor.scopes.grants(Scope::read(Resource::Shipments)) {
        let found = matching(ctx, actor, org_id, query).await?;
        let items: Vec<Value> = found
            .iter()
            .map(|s| {
                json!({"id": s.id, "reference": s.reference, "status": s.status.to_json(),
                       "type": s.kind, "carrierId": s.carrier_settings.carrier_id,
                       "createdAt": s.created_at})
            })
            .collect();
        answer.insert("shipments".into(), Value::Array(items));
    }
    if actor.scopes.grants(Scope::read(Resource::Orders)) {
        let found = orders::list(
            ctx,
            actor,
            org_id,
            orders::ListQuery {
                page: PageParams::first(MOST),
                status: None,
                order_channel_id: None,
                order_number: Some(query.to_string()),
            },
        )
        .await?;
        let items: Vec<Value> = found
            .data
            .iter()
            .map(|o| {
                let o = o.to_json().unwrap_or_default();
                json!({"id": o["id"], "orderNumber": o["orderNumber"], "status": o["status"],
                       "customerName": o["customerName"], "createdAt": o["createdAt"],
                       "shipmentIds": o["shipments"].as_array().map(|s| s.iter().map(|s| s["id"].clone()).collect::<Vec<_>>())})
            })
            .collect();
        answer.insert("orders".into(), Value::Array(items));
    }
    Ok(Value::Object(answer))
}

/// Up to `MOST` shipments whose reference is `query`, else whose search terms match it (a
/// tracking number, the receiver), newest first.
async fn matching(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    query: &str,
) -> Result<Vec<ShipmentListItem>> {
    let by = |reference: Option<&str>, search: Option<&str>| shipments::ListQuery {
        page: PageParams::first(MOST),
        reference: reference.map(str::to_string),
        search: search.map(str::to_string),
        ..shipments::ListQuery::default()
    };
    let found = shipments::list(ctx, actor, org_id, by(Some(query), None)).await?;
    if !found.data.is_empty() {
        return Ok(found.data);
    }
    Ok(shipments::list(ctx, actor, org_id, by(None, Some(query)))
        .await?
        .data)
}

/// A shipment in a few fields: who it goes to, with which carrier, and where it is.
fn brief(shipment: &Value) -> Value {
    let receiver = shipment["parties"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["type"] == "receiver"))
        .cloned()
        .unwrap_or_default();
    let tracking = &shipment["tracking"];
    let events: Vec<Value> = tracking["events"]
        .as_array()
        .map(|e| e.iter().take(3).cloned().collect())
        .unwrap_or_default();
    json!({
        "id": shipment["id"],
        "reference": shipment["reference"],
        "status": shipment["status"],
        "type": shipment["type"],
        "carrierId": shipment["carrierSettings"]["carrierId"],
        "productId": shipment["carrierSettings"]["productId"],
        "receiver": {"name": receiver["name"], "city": receiver["city"],
                     "countryCode": receiver["countryCode"]},
        "tracking": {"number": tracking["number"], "url": tracking["url"],
                     "status": tracking["status"], "latestEvents": events},
        "parcels": shipment["parcels"].as_array().map(|parcels| parcels.iter()
            .map(|p| json!({"id": p["id"], "trackingNumber": p["trackingNumber"]}))
            .collect::<Vec<_>>()),
        "createdAt": shipment["createdAt"],
        "updatedAt": shipment["updatedAt"],
    })
}
