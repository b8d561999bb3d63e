//! The tools: one per operation of the operations table (DESIGN §12, §16), named as the
//! operation, described for a model, with an input schema made from the REST operation's path
//! parameters (but `orgId`, which the connection fixes), query parameters and body fields at top
//! level — the same types the REST API reads — and how to call the REST operation in-process.

use std::{collections::BTreeMap, sync::OnceLock};

use serde_json::{Map, Value, json};

use crate::{
    api,
    mcp::schema,
    service::operations::{self, Kind, Operation},
};

/// One tool and the REST operation it calls.
#[derive(Debug)]
pub struct Tool {
    pub operation: &'static Operation,
    /// The definition `tools/list` shows.
    pub definition: Value,
    pub method: poem::http::Method,
    /// The REST path with `{name}` placeholders.
    pub path: String,
    pub path_params: Vec<String>,
    pub query_params: Vec<String>,
    /// Whether the operation reads a JSON body (its fields are the other arguments).
    pub body: bool,
}

/// The argument every POST tool takes, as the `Idempotency-Key` header (DESIGN §15).
pub const IDEMPOTENCY_KEY: &str = "idempotencyKey";

/// Every tool, in the order of the operations table.
pub fn tools() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| build(&api::openapi::document()))
}

pub fn find(name: &str) -> Option<&'static Tool> {
    tools().iter().find(|t| t.operation.id == name)
}

fn build(document: &Value) -> Vec<Tool> {
    let components = document["components"]["schemas"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut by_id: BTreeMap<&str, (&str, &str, &Value)> = BTreeMap::new();
    for (path, item) in document["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            if let Some(id) = op["operationId"].as_str() {
                by_id.insert(id, (path, method, op));
            }
        }
    }
    operations::ALL
        .iter()
        .filter_map(|operation| {
            let (path, method, op) = by_id.get(operation.id)?;
            tool(operation, path, method, op, &components)
        })
        .collect()
}

fn tool(
    operation: &'static Operation,
    path: &str,
    method: &str,
    op: &Value,
    components: &Map<String, Value>,
) -> Option<Tool> {
    let method: poem::http::Method = method.to_uppercase().parse().ok()?;
    let mut defs = BTreeMap::new();
    let mut properties = Map::new();
    let mut required = Vec::new();
    let (mut path_params, mut query_params) = (Vec::new(), Vec::new());
    for param in op["parameters"].as_array().into_iter().flatten() {
        let name = param["name"].as_str().unwrap_or_default().to_string();
        match param["in"].as_str() {
            Some("path") if name == "orgId" => continue,
            Some("path") => path_params.push(name.clone()),
            Some("query") => query_params.push(name.clone()),
            _ => continue,
        }
        let mut schema = schema::convert(&param["schema"], components, &mut defs);
        if let (Some(description), Value::Object(map)) =
            (param["description"].as_str(), &mut schema)
        {
            map.insert("description".into(), description.into());
        }
        if param["required"] == true {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name, schema);
    }
    let body_schema = &op["requestBody"]["content"]["application/json"]["schema"];
    let body = !body_schema.is_null();
    if body {
        let reference = body_schema["$ref"].as_str().unwrap_or_default();
        let name = reference.rsplit('/').next().unwrap_or_default();
        let target = components
            .get(name)
            .cloned()
            .unwrap_or_else(|| body_schema.clone());
        let converted = schema::convert(&target, components, &mut defs);
        for (field, schema) in converted["properties"].as_object().into_iter().flatten() {
            properties.insert(field.clone(), schema.clone());
        }
        required.extend(
            converted["required"]
                .as_array()
                .into_iter()
                .flatten()
                .cloned(),
        );
    }
    if method == poem::http::Method::POST {
        properties.insert(
            IDEMPOTENCY_KEY.into(),
            json!({"type": "string", "minLength": 1, "maxLength": 255,
                   "description": "Makes a retry safe: the same key with the same arguments returns the first result and changes nothing again (kept 24 hours)."}),
        );
    }
    let mut input = json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    });
    if !required.is_empty() {
        input["required"] = Value::Array(required);
    }
    if !defs.is_empty() {
        input["$defs"] = serde_json::to_value(defs).unwrap_or_default();
    }
    let definition = json!({
        "name": operation.id,
        "title": title(operation.id),
        "description": description(operation, op),
        "inputSchema": input,
        "outputSchema": crate::mcp::output::schema_of(operation.id, op, components),
        "annotations": {
            "title": title(operation.id),
            "readOnlyHint": operation.kind == Kind::Read,
            "destructiveHint": destructive(operation),
            "idempotentHint": matches!(operation.kind, Kind::Read | Kind::Change | Kind::Delete),
            "openWorldHint": open_world(operation),
        },
    });
    Some(Tool {
        operation,
        definition,
        method,
        path: path.to_string(),
        path_params,
        query_params,
        body,
    })
}

/// Operations that remove or end something for good.
/// Whether the tool may overwrite or end something: deletes, replacements (what the call does
/// not name is put back to its default), and the actions that cancel, overwrite or take apart
/// (a status move can cancel; a rule overwrites carrier settings; a split empties a parcel).
fn destructive(operation: &Operation) -> bool {
    matches!(operation.kind, Kind::Delete | Kind::Change)
        || matches!(
            operation.id,
            "cancel_order"
                | "rotate_webhook_secret"
                | "set_shipment_status"
                | "apply_shipping_rule"
                | "split_parcel"
                | "batch_split_parcel"
        )
}

/// Whether the tool reaches outside Shipbase: a carrier (booking, a return booked with it), a
/// printer, or a webhook receiver.
fn open_world(operation: &Operation) -> bool {
    matches!(
        operation.id,
        "book_shipment"
            | "create_return_shipment"
            | "print_shipment_documents"
            | "print_test_page"
            | "test_webhook"
            | "replay_webhook_delivery"
    )
}

/// `get_shipment` → "Get shipment".
fn title(id: &str) -> String {
    let words = id.replace('_', " ");
    let mut chars = words.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// What the tool does, when to use it and what it needs, for a model.
fn description(operation: &Operation, op: &Value) -> String {
    let mut parts = vec![summary(operation).to_string()];
    if let Some(hint) = guidance(operation.id) {
        parts.push(hint.to_string());
    }
    if operation.id == "set_shipment_status" {
        parts.push(format!(
            "The moves allowed: {}.",
            crate::model::status::ShipmentStatus::moves_text()
        ));
    }
    // The REST details, less what only concerns HTTP (content types): the tool sends for itself.
    let details = op["description"].as_str().unwrap_or_default();
    let details: Vec<&str> = details
        .split("\n\n")
        .filter(|p| !p.starts_with("Scope:") && *p != operation.summary && !p.trim().is_empty())
        .filter(|p| !p.contains("signing secret"))
        .filter(|p| !p.contains("application/"))
        .collect();
    parts.extend(details.iter().map(|d| d.to_string()));
    parts.push(format!("Needs the permission {}.", operation.scope));
    parts.join("\n\n")
}

/// The operation's summary as a tool does it: signing secrets never reach a model.
fn summary(operation: &Operation) -> &'static str {
    match operation.id {
        "get_webhook" => {
            "Get a webhook endpoint (its signing secret is shown to people only, in the workbench)."
        }
        "create_webhook" => {
            "Create a webhook endpoint for some of the organization's events (its signing secret is shown to people only, in the workbench)."
        }
        _ => operation.summary,
    }
}

/// When to use the central tools, and what to look up first.
fn guidance(id: &str) -> Option<&'static str> {
    Some(match id {
        "create_shipment" => {
            "Use it to ship something that is not an order in Shipbase. It needs a senderAddressId (list_sender_addresses) and carrierSettings.carrierId (list_carriers; productId is one of the carrier's products from list_available_carriers). The shipment is created unbooked; book it with book_shipment to get its label and tracking number."
        }
        "create_order_shipment" => {
            "Use it to ship an order: the receiver defaults to the order's shipping address and the parcels to its lines."
        }
        "book_shipment" => {
            "Books the shipment with its carrier: the label document and tracking number appear on the shipment, each document as a resource link (read it with resources/read only when the file itself is needed). Only shipments that are not booked yet can be booked. The carrier charges for it: a client that can show forms may first be asked to let the person confirm."
        }
        "update_shipment" => {
            "Only before booking. Fields given replace the stored ones (null clears an optional field; parties and parcels are replaced whole)."
        }
        "set_shipment_status" => {
            "Moves a shipment along its status machine (e.g. to on_hold or cancelled); impossible moves are refused with invalid_state."
        }
        "apply_shipping_rule" => {
            "Sets the shipment's carrier settings from a shipping rule (list_shipping_rules)."
        }
        "quote_shipping_rates" => {
            "Prices a would-be shipment with the organization's shipping rules, as a web shop's checkout asks."
        }
        "compare_carrier_rates" => {
            "Asks the carriers what they charge (their own prices, not the checkout's rules): give shipmentId of a stored shipment, or senderAddressId, parties and parcels. Offers come cheapest first; a carrier that gave none is in errors with the reason. Book with the chosen offer's carrierId and productId."
        }
        "validate_address" => {
            "Use it before creating a shipment to an address you are unsure of: the postcode is checked against the country's format, and in the US and Puerto Rico a UPS carrier of the organization is asked for the address and its candidates."
        }
        "list_shipments" => {
            "Filter by status, reference, orderId or creation time; pages with page and limit (1 to 100)."
        }
        "list_orders" => {
            "Filter by status, orderChannelId or orderNumber; pages with page and limit (1 to 100)."
        }
        "split_parcel" => {
            "Moves order lines (or some of their units) out of a parcel into a new shipment."
        }
        "create_return_shipment" => {
            "Makes a booked return shipment for a booked outbound shipment, from the receiver back to the sender."
        }
        "get_shipment_document" => {
            "Returns a resource link to the document (read the file with resources/read); its id is in the shipment's documents."
        }
        "merge_documents" => {
            "Returns a resource link to the merged PDF (read it with resources/read to print or hand it on)."
        }
        "create_pickup" => {
            "Books a driver with the carrier (UPS, DHL Express, DHL Parcel Germany, PostNord for its booked domestic parcels, or the sandbox): give the carrierId, the date (YYYY-MM-DD), readyFrom and readyUntil (HH:MM, local), the senderAddressId, and the booked shipments to collect. Carriers charge for some pickups: a client that can show forms may first be asked to let the person confirm. A carrier without a pickup API is refused with invalid_state."
        }
        "cancel_pickup" => {
            "Cancels with the carrier when it booked the pickup; a pickup whose outcome is unknown is only marked cancelled, and the answer says to check with the carrier."
        }
        "create_manifest" => {
            "Closes the day of one carrier: every booked shipment not in a manifest yet (or only those booked on date). The answer's document is the A4 PDF for the driver to sign, as a resource link; print it with print_manifest."
        }
        "get_billing_usage" => {
            "Use it before creating many shipments to see how many the plan still includes."
        }
        "create_api_token" => "The token's value is returned only in this answer.",
        "print_test_page" => {
            "Use it to check a printer after adding or changing it; the job it queues shows in list_print_jobs as printed or failed, with the reason."
        }
        "replay_webhook_delivery" => {
            "Takes a deliveryId from list_webhook_deliveries; use it once the endpoint works again to send an event it missed. The event keeps its id, so the endpoint can tell a repeat."
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_is_a_tool_whose_arguments_do_not_collide() {
        let tools = tools();
        assert_eq!(tools.len(), operations::ALL.len());
        for tool in tools {
            let properties = tool.definition["inputSchema"]["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            assert!(!properties.contains_key("orgId"), "{}", tool.operation.id);
            let named = tool.path_params.len() + tool.query_params.len();
            let body_fields =
                properties.len() - named - usize::from(tool.method == poem::http::Method::POST);
            let mut all: Vec<&String> = tool.path_params.iter().chain(&tool.query_params).collect();
            all.sort();
            all.dedup();
            assert_eq!(
                all.len(),
                named,
                "{}: a parameter name repeats",
                tool.operation.id
            );
            assert!(tool.body || body_fields == 0, "{}", tool.operation.id);
            let description = tool.definition["description"].as_str().unwrap_or_default();
            assert!(
                description.contains(&tool.operation.scope.to_string()),
                "{description}"
            );
        }
    }

    #[test]
    fn tools_mirror_the_rest_operations() {
        let get = find("get_shipment")
            .map(|t| &t.definition)
            .cloned()
            .unwrap_or_default();
        assert_eq!(get["inputSchema"]["required"], json!(["shipmentId"]));
        assert_eq!(get["annotations"]["readOnlyHint"], true);
        let create = find("create_shipment")
            .map(|t| &t.definition)
            .cloned()
            .unwrap_or_default();
        let props = create["inputSchema"]["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for field in [
            "reference",
            "senderAddressId",
            "parties",
            "type",
            "carrierSettings",
            "parcels",
            "idempotencyKey",
        ] {
            assert!(props.contains_key(field), "{field}");
        }
        assert_eq!(create["inputSchema"]["additionalProperties"], false);
        assert!(create["inputSchema"]["$defs"]["Party"].is_object());
        let split = find("split_parcel")
            .map(|t| t.path_params.clone())
            .unwrap_or_default();
        assert_eq!(split, ["shipmentId", "parcelId"]);
        let delete = find("delete_order")
            .map(|t| &t.definition)
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            (
                delete["annotations"]["destructiveHint"].as_bool(),
                delete["annotations"]["idempotentHint"].as_bool()
            ),
            (Some(true), Some(true))
        );
        let hints = |id: &str| {
            let tool = find(id).map(|t| &t.definition).cloned().unwrap_or_default();
            (
                tool["annotations"]["destructiveHint"].as_bool(),
                tool["annotations"]["openWorldHint"].as_bool(),
            )
        };
        assert_eq!(hints("set_shipment_status"), (Some(true), Some(false)));
        assert_eq!(hints("update_carrier"), (Some(true), Some(false)));
        assert_eq!(hints("create_return_shipment"), (Some(false), Some(true)));
        assert_eq!(hints("book_shipment"), (Some(false), Some(true)));
        assert_eq!(hints("create_shipment"), (Some(false), Some(false)));
    }

    #[test]
    fn every_tool_has_an_output_schema_without_document_bytes_or_secrets() {
        for tool in tools() {
            let schema = &tool.definition["outputSchema"];
            assert!(
                schema["type"] == "object" || schema["type"] == "array",
                "{}: {schema}",
                tool.operation.id
            );
            let text = schema.to_string();
            assert!(!text.contains("\"secret\""), "{}", tool.operation.id);
            assert!(!text.contains("\"$ref\""), "{}: {text}", tool.operation.id);
        }
        let shipment = find("get_shipment")
            .map(|t| &t.definition)
            .cloned()
            .unwrap_or_default();
        let status = &shipment["outputSchema"]["properties"]["status"];
        assert_eq!(status["enum"][0], "draft", "{status}");
        let book = find("get_shipment_document")
            .map(|t| &t.definition)
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            book["outputSchema"]["required"],
            json!(["documentId", "resourceUri", "contentType", "size"])
        );
    }
}
