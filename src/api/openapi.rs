//! The OpenAPI document as served: poem-openapi's document, with each organization operation's
//! summary and scope taken from the operations table (so the table is the one place they are
//! written), without the schemas of stored records that only serve as flattened parts, with
//! every field that can be null marked `nullable`, and request objects closed
//! (`additionalProperties: false`, as the server refuses unknown fields).

use std::sync::OnceLock;

use poem_openapi::OpenApiService;
use serde_json::{Map, Value};

use crate::service::operations;

/// The OpenAPI service describing every REST operation.
pub fn service() -> OpenApiService<impl poem_openapi::OpenApi, ()> {
    OpenApiService::new(super::all(), "Shipbase", crate::VERSION).description(
        "Self-hosted shipping management: organizations, carriers, shipments, orders and webhooks.",
    )
}

/// The document, made anew: what is kept is what is made from it (the text /openapi.json
/// serves, the MCP tools), each on its first use; its value tree (several MB) is not.
pub fn document() -> Value {
    let spec = service().spec();
    let mut document: Value = serde_json::from_str(&spec).unwrap_or_default();
    describe_operations(&mut document);
    prune_schemas(&mut document);
    mark_nullable(&mut document);
    super::text_enums::apply(&mut document);
    super::text_formats::apply(&mut document);
    close_request_objects(&mut document);
    document
}

/// The document as JSON text, made on its first use.
pub fn json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| serde_json::to_string_pretty(&document()).unwrap_or_default())
}

/// Summary from the table; description: what the handler's doc comment adds, then the scope.
fn describe_operations(document: &mut Value) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for op in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(Value::as_object_mut)
    {
        let Some(entry) = op
            .get("operationId")
            .and_then(Value::as_str)
            .and_then(operations::find)
        else {
            continue;
        };
        let extra: Vec<String> = ["summary", "description"]
            .iter()
            .filter_map(|key| op.get(*key).and_then(Value::as_str))
            .map(str::to_string)
            .collect();
        let mut description = extra.join("\n\n");
        if !description.is_empty() {
            description.push_str("\n\n");
        }
        description.push_str(&format!("Scope: `{}`.", entry.scope));
        op.insert("summary".into(), entry.summary.into());
        op.insert("description".into(), description.into());
    }
}

/// Removes component schemas nothing refers to (a flattened record registers one).
fn prune_schemas(document: &mut Value) {
    loop {
        let text = {
            let mut without = document.clone();
            if let Some(components) = without.get_mut("components").and_then(Value::as_object_mut) {
                components.remove("schemas");
            }
            let schemas = document["components"]["schemas"].to_string();
            format!("{without}{schemas}")
        };
        let Some(schemas) = document
            .get_mut("components")
            .and_then(|c| c.get_mut("schemas"))
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        let unused: Vec<String> = schemas
            .keys()
            .filter(|name| !referenced(&text, name, schemas))
            .cloned()
            .collect();
        if unused.is_empty() {
            return;
        }
        for name in unused {
            schemas.remove(&name);
        }
    }
}

/// Whether anything but the schema itself refers to `#/components/schemas/<name>`.
fn referenced(text: &str, name: &str, schemas: &Map<String, Value>) -> bool {
    let reference = format!("\"#/components/schemas/{name}\"");
    let total = text.matches(&reference).count();
    let own = schemas[name].to_string().matches(&reference).count();
    total > own
}

/// An optional field without a default is `null` when absent from the resource (the server
/// writes `null`, never leaves it out, except for the few it marks `skip`), and may be sent as
/// `null`: mark it nullable. A `$ref` is wrapped in `allOf` to carry the flag.
fn mark_nullable(document: &mut Value) {
    let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for schema in schemas.values_mut() {
        let required: Vec<String> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect();
        let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
            continue;
        };
        for (name, property) in properties.iter_mut() {
            if required.contains(name) || property.get("default").is_some() {
                continue;
            }
            let Some(object) = property.as_object_mut() else {
                continue;
            };
            if let Some(reference) = object.remove("$ref") {
                object.insert(
                    "allOf".into(),
                    Value::Array(vec![serde_json::json!({ "$ref": reference })]),
                );
            }
            object.insert("nullable".into(), Value::Bool(true));
        }
    }
}

/// Request objects refuse unknown fields: say so in the schemas request bodies use (and the
/// schemas those refer to), leaving free-form maps as they are.
fn close_request_objects(document: &mut Value) {
    let mut pending: Vec<String> = Vec::new();
    for op in document["paths"]
        .as_object()
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|item| item.values())
    {
        if let Some(content) = op
            .pointer("/requestBody/content")
            .and_then(Value::as_object)
        {
            for media in content.values() {
                references(&media["schema"], &mut pending);
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(schema) = document.pointer_mut(&format!("/components/schemas/{name}")) else {
            continue;
        };
        references(schema, &mut pending);
        let Some(object) = schema.as_object_mut() else {
            continue;
        };
        if object.contains_key("properties") && !object.contains_key("additionalProperties") {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
    }
}

/// Every schema name `value` refers to.
fn references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref")
                && let Some(name) = r.strip_prefix("#/components/schemas/")
            {
                out.push(name.to_string());
            }
            for v in map.values() {
                references(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, out)),
        _ => {}
    }
}
