//! What a Settings page shows under its list (DESIGN §20): each printer's recent print jobs
//! with a test print, each webhook's delivery log with a test send and a replay of each
//! delivery, each member's role and removal.

use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use super::Desk;
use crate::{
    error::Result,
    model::printer,
    service::{self, Ctx, PageParams, operations as ops},
};

/// What a page shows under its list: each printer's recent jobs (with a test print), each
/// webhook's recent deliveries (with a test send, and a replay of each), each member's role and
/// removal. Each button is there only for a role that may use it.
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
                let rows: Vec<Value> = jobs["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|j| {
                        let what = if j["kind"] == printer::JOB_TEST_PAGE {
                            "Test page"
                        } else if j["kind"] == printer::JOB_MANIFEST {
                            "Manifest"
                        } else {
                            "Document"
                        };
                        let mut cells = vec![cell(j.get("updatedAt")), what.to_string()];
                        cells.extend(
                            ["/status", "/attempts", "/shipmentId", "/error"]
                                .iter()
                                .map(|at| cell(j.pointer(at))),
                        );
                        json!({"cells": cells})
                    })
                    .collect();
                let name = cell(item.get("name"));
                let test = desk.may(&ops::PRINT_TEST_PAGE).then(|| {
                    json!({"action": "print_test_page", "id": id, "label": "Print a test page",
                           "aria": format!("Print a test page on {name}")})
                });
                extras.push(json!({
                    "title": format!("Print jobs of {name}"),
                    "headings": ["When", "What", "Status", "Attempts", "Shipment", "Error"],
                    "rows": rows,
                    "buttons": test.into_iter().collect::<Vec<_>>(),
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
                // A test delivery has no event to send again, and an inactive webhook gets
                // nothing: no replay there.
                let replays = desk.may(&ops::REPLAY_WEBHOOK_DELIVERY) && item["isActive"] == true;
                let rows: Vec<Value> = log["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| {
                        let cells: Vec<String> = [
                            "/createdAt",
                            "/eventType",
                            "/attempt",
                            "/responseStatus",
                            "/success",
                            "/error",
                        ]
                        .iter()
                        .map(|at| cell(d.pointer(at)))
                        .collect();
                        let replay = (replays && d["eventType"] != service::webhooks::TEST_EVENT).then(|| {
                            json!({"action": "replay_webhook_delivery", "id": d["id"],
                                   "webhook": id, "label": "Replay",
                                   "aria": format!("Replay {} (attempt {} at {})", cells[1], cells[2], cells[0])})
                        });
                        json!({"cells": cells, "button": replay})
                    })
                    .collect();
                let test = desk.may(&ops::TEST_WEBHOOK).then(|| {
                    json!({"action": "test_webhook", "id": id, "label": "Send a test event",
                           "aria": format!("Send a test event to {}", cell(item.get("url")))})
                });
                let mut headings = vec!["When", "Event", "Attempt", "Answer", "Delivered", "Error"];
                if replays {
                    headings.push("Action");
                }
                extras.push(json!({
                    "title": format!("Deliveries to {}", cell(item.get("url"))),
                    "headings": headings,
                    "rows": rows,
                    "row_actions": replays,
                    "buttons": test.into_iter().collect::<Vec<_>>(),
                }));
            }
            "members" => {
                // Only an owner changes or removes an owner, or makes one (§19): the others are
                // not offered what they would be refused.
                let owner = desk.membership.role == "owner";
                if item["role"] == "owner" && !owner {
                    continue;
                }
                let roles: &[&str] = if owner {
                    &["member", "admin", "owner"]
                } else {
                    &["member", "admin"]
                };
                extras.push(json!({
                    "title": format!("{} ({})", cell(item.get("name")), cell(item.get("email"))),
                    "headings": [],
                    "rows": [],
                    "role": {"id": id, "current": item["role"], "choices": roles},
                    "buttons": [{"action": "member_remove", "id": id, "label": "Remove from the organization"}],
                }));
            }
            _ => {}
        }
    }
    Ok(extras)
}

/// A cell's text: strings as they are (a time as "2026-11-26 16:01 UTC"), lists joined,
/// absent as a dash.
pub(super) fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "—".into(),
        Some(Value::String(s)) => match crate::model::time::parse(s) {
            Some(at) => format!(
                "{:04}-{:02}-{:02} {:02}:{:02} UTC",
                at.year(),
                u8::from(at.month()),
                at.day(),
                at.hour(),
                at.minute()
            ),
            None => s.clone(),
        },
        Some(Value::Bool(b)) => if *b { "yes" } else { "no" }.into(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| cell(Some(i)))
            .collect::<Vec<_>>()
            .join(", "),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_people_read_them() {
        assert_eq!(
            cell(Some(&json!("2026-11-26T16:01:18.197Z"))),
            "2026-11-26 16:01 UTC"
        );
        assert_eq!(cell(Some(&json!("shp_01M8C7"))), "shp_01M8C7");
        assert_eq!(
            cell(Some(&json!(["read:all", "write:shipments"]))),
            "read:all, write:shipments"
        );
        assert_eq!(cell(Some(&json!(true))), "yes");
        assert_eq!(cell(None), "—");
    }
}
