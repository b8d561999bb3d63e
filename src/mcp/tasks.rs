//! Task tools beside the one-per-operation ones: `track` and `find` answer the questions agents
//! are asked most ("where is parcel X", "what do we have for Y") in one call and a few hundred
//! bytes, instead of a list, a get and the model's own filtering.

use poem::IntoResponse;
use serde_json::{Map, Value, json};

use crate::{
    api::problem::ApiError,
    error::{Error, FieldError},
    mcp::dispatch::{self, Outcome},
    model::scope::Resource,
    service::{Actor, Ctx, lookup, operations as ops, operations::Operation},
};

/// A task tool: its definition, and the operations whose permission lets a connection see it
/// (any one of them).
pub struct Task {
    pub name: &'static str,
    pub needs: &'static [&'static Operation],
    pub definition: Value,
}

fn query_schema(what: &str) -> Value {
    json!({
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1, "maxLength": 200,
                                 "description": what}},
        "required": ["query"],
        "additionalProperties": false,
    })
}

fn shipment_brief() -> Value {
    json!({"type": "object", "properties": {
        "id": {"type": "string"}, "reference": {"type": "string"},
        "status": {"type": "string"}, "type": {"type": "string"},
        "carrierId": {"type": "string"}, "createdAt": {"type": "string"},
    }, "required": ["id", "reference", "status"]})
}

/// Every task tool, in a fixed order.
pub fn tasks() -> &'static [Task] {
    static TASKS: std::sync::OnceLock<Vec<Task>> = std::sync::OnceLock::new();
    TASKS.get_or_init(|| {
        vec![
            Task {
                name: "track",
                needs: &[&ops::LIST_SHIPMENTS],
                definition: json!({
                    "name": "track",
                    "title": "Track a shipment",
                    "description": "Finds a shipment by a parcel's tracking number or by the shipment's reference and says where it is: status, tracking number and link, the latest tracking events, the receiver, and each parcel's tracking number. Use it when someone asks where a parcel or an order's shipment is. Needs the permission read:shipments.",
                    "inputSchema": query_schema("A tracking number (a parcel's) or a shipment reference, e.g. \"ORDER-1001\"."),
                    "outputSchema": {"type": "object", "properties": {
                        "shipments": {"type": "array", "items": {"type": "object", "properties": {
                            "id": {"type": "string"}, "reference": {"type": "string"},
                            "status": {"type": "string"},
                            "tracking": {"type": "object"}, "parcels": {"type": ["array", "null"]},
                            "receiver": {"type": "object"},
                        }, "required": ["id", "reference", "status", "tracking"]}},
                    }, "required": ["shipments"]},
                    "annotations": {"title": "Track a shipment", "readOnlyHint": true,
                        "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
                }),
            },
            Task {
                name: "find",
                needs: &[&ops::LIST_SHIPMENTS, &ops::LIST_ORDERS],
                definition: json!({
                    "name": "find",
                    "title": "Find shipments and orders",
                    "description": "Searches the organization's shipments (by reference, receiver name, e-mail, postal code or tracking number) and orders (by order number) at once and answers up to five of each, newest first, with their ids for the other tools. Kinds the connection may not read are left out. Needs the permission read:shipments or read:orders.",
                    "inputSchema": query_schema("Text to look for: a reference, an order number, a name, an e-mail address, a postal code or a tracking number."),
                    "outputSchema": {"type": "object", "properties": {
                        "shipments": {"type": "array", "items": shipment_brief()},
                        "orders": {"type": "array", "items": {"type": "object", "properties": {
                            "id": {"type": "string"}, "orderNumber": {"type": "string"},
                            "status": {"type": "string"},
                        }, "required": ["id", "orderNumber", "status"]}},
                    }},
                    "annotations": {"title": "Find shipments and orders", "readOnlyHint": true,
                        "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
                }),
            },
        ]
    })
}

pub fn find(name: &str) -> Option<&'static Task> {
    tasks().iter().find(|t| t.name == name)
}

/// Whether `actor` may see and call `task`.
pub fn allowed(task: &Task, actor: &Actor) -> bool {
    task.needs.iter().any(|op| actor.scopes.grants(op.scope))
}

/// Whether `task` belongs to one of the resources a client narrowed the list to.
pub fn in_toolsets(task: &Task, toolsets: &[Resource]) -> bool {
    task.needs
        .iter()
        .any(|op| op.scope.resource.is_some_and(|r| toolsets.contains(&r)))
}

/// Runs `task` with `args` for `actor` in `org_id`.
pub async fn call(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    task: &Task,
    mut args: Map<String, Value>,
) -> Outcome {
    let query = match args.remove("query") {
        Some(Value::String(q)) if !q.trim().is_empty() && q.chars().count() <= 200 => q,
        Some(Value::String(_)) => {
            return refused(invalid("query", "must be 1 to 200 characters")).await;
        }
        None | Some(Value::Null) => return refused(invalid("query", "is required")).await,
        Some(_) => return refused(invalid("query", "must be a string")).await,
    };
    if let Some(extra) = args.keys().next() {
        return refused(invalid(
            extra,
            "unknown argument; the only one is \"query\"",
        ))
        .await;
    }
    let answer = match task.name {
        "track" => lookup::track(ctx, actor, org_id, &query).await,
        _ => lookup::find(ctx, actor, org_id, &query).await,
    };
    match answer {
        Ok(structured) => Outcome {
            is_error: false,
            structured,
            file: None,
            links: Vec::new(),
        },
        Err(err) => refused(err).await,
    }
}

fn invalid(field: &str, message: &str) -> Error {
    Error::Validation(vec![FieldError {
        field: field.to_string(),
        message: message.to_string(),
    }])
}

async fn refused(err: Error) -> Outcome {
    dispatch::failed(ApiError::from(err).into_response()).await
}
