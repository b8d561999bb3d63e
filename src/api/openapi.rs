//! The OpenAPI document as served: poem-openapi's document, with each organization operation's
//! summary and scope taken from the operations table (so the table is the one place they are
//! written), and without the schemas of stored records that only serve as flattened parts.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::service::operations;

/// The document, made once.
pub fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let spec = crate::app::openapi().spec();
        let mut document: Value = serde_json::from_str(&spec).unwrap_or_default();
        describe_operations(&mut document);
        prune_schemas(&mut document);
        document
    })
}

/// The document as JSON text.
pub fn json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| serde_json::to_string_pretty(document()).unwrap_or_default())
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
