//! What a Settings page shows under its list (DESIGN §20): each printer's recent print jobs,
//! each webhook's delivery log with a test send, each member's role and removal.

use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use super::Desk;
use crate::{
    error::Result,
    service::{self, Ctx, PageParams, operations as ops},
};

/// What a page shows under its list: each printer's recent jobs, each webhook's recent
/// deliveries (with a test send), each member's role and removal.
pub(super) async fn extras(ctx: &Ctx, desk: &Desk, page: &str, data: &Value) -> Result<Vec<Value>> {
    let items = data["data"].as_array().cloned().unwrap_or_default();
    let mut extras = Vec::new();
    for item in items {
        let id = item["id"].as_str().unwrap_or_default().to_string();
        match page {
            "printers" => {
                let jobs = service::printers::jobs(
                    ctx,
                    &desk.actor,
                    &desk.org_id,
                    &id,
                    PageParams::first(10),
                )
                .await?
                .to_json()
                .unwrap_or_default();
                let rows: Vec<Vec<String>> = jobs["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|j| {
                        [
                            "/updatedAt",
                            "/status",
                            "/attempts",
                            "/shipmentId",
                            "/error",
                        ]
                        .iter()
                        .map(|at| cell(j.pointer(at)))
                        .collect()
                    })
                    .collect();
                extras.push(json!({
                    "title": format!("Print jobs of {}", cell(item.get("name"))),
                    "headings": ["When", "Status", "Attempts", "Shipment", "Error"],
                    "rows": rows,
                }));
            }
            "webhooks" => {
                let log = service::webhooks::deliveries(
                    ctx,
                    &desk.actor,
                    &desk.org_id,
                    &id,
                    PageParams::first(10),
                )
                .await?
                .to_json()
                .unwrap_or_default();
                let rows: Vec<Vec<String>> = log["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| {
                        [
                            "/createdAt",
                            "/eventType",
                            "/attempt",
                            "/responseStatus",
                            "/success",
                            "/error",
                        ]
                        .iter()
                        .map(|at| cell(d.pointer(at)))
                        .collect()
                    })
                    .collect();
                let test = desk.may(&ops::TEST_WEBHOOK).then(
                    || json!({"action": "test_webhook", "id": id, "label": "Send a test event"}),
                );
                extras.push(json!({
                    "title": format!("Deliveries to {}", cell(item.get("url"))),
                    "headings": ["When", "Event", "Attempt", "Answer", "Delivered", "Error"],
                    "rows": rows,
                    "buttons": test.into_iter().collect::<Vec<_>>(),
                }));
            }
            "members" => {
                extras.push(json!({
                    "title": format!("{} ({})", cell(item.get("name")), cell(item.get("email"))),
                    "headings": [],
                    "rows": [],
                    "role": {"id": id, "current": item["role"]},
                    "buttons": [{"action": "member_remove", "id": id, "label": "Remove from the organization"}],
                }));
            }
            _ => {}
        }
    }
    Ok(extras)
}

/// A cell's text: strings as they are, lists joined, absent as a dash.
pub(super) fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "—".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => if *b { "yes" } else { "no" }.into(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| cell(Some(i)))
            .collect::<Vec<_>>()
            .join(", "),
        Some(other) => other.to_string(),
    }
}
