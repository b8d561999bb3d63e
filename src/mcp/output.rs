//! The `outputSchema` of each tool: the schema of the REST operation's success answer, as the
//! tool hands it over (documents carry a `resourceUri` instead of their `content`, signing
//! secrets are left out), in JSON Schema terms (`schema::convert`).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::mcp::schema;

/// Signing secrets, left out of every tool result (`dispatch`) and so of every output schema.
pub const SECRETS: [&str; 3] = ["secret", "previousSecret", "webhookSecret"];

/// What `get_shipment_document` answers: a link to the document, not its bytes.
fn document_link() -> Value {
    json!({
        "type": "object",
        "properties": {
            "documentId": {"type": "string"},
            "resourceUri": {"type": "string", "description": "Read the file with resources/read."},
            "contentType": {"type": "string", "enum": ["application/pdf", "application/zpl"]},
            "size": {"type": "integer", "description": "The file's size in bytes."},
        },
        "required": ["documentId", "resourceUri", "contentType", "size"],
    })
}

/// What `merge_documents` answers: a link to the merged PDF, made again when read.
fn merged_link() -> Value {
    json!({
        "type": "object",
        "properties": {
            "resourceUri": {"type": "string", "description": "Read the merged PDF with resources/read."},
            "contentType": {"type": "string", "enum": ["application/pdf"]},
            "size": {"type": "integer", "description": "The merged PDF's size in bytes."},
            "documentType": {"type": "string"},
            "shipmentIds": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["resourceUri", "contentType", "size", "documentType", "shipmentIds"],
    })
}

/// The output schema of the operation `op` (an OpenAPI operation object).
pub fn schema_of(id: &str, op: &Value, components: &Map<String, Value>) -> Value {
    match id {
        "get_shipment_document" => return document_link(),
        "merge_documents" => return merged_link(),
        _ => {}
    }
    let responses = op["responses"].as_object().cloned().unwrap_or_default();
    let Some(success) = responses
        .iter()
        .find(|(code, _)| code.starts_with('2'))
        .map(|(_, answer)| answer)
    else {
        return json!({"type": "object"});
    };
    let Some((media, content)) = success["content"].as_object().and_then(|c| c.iter().next())
    else {
        return json!({"type": "object"});
    };
    if !media.starts_with("application/json") {
        return json!({"type": "object"});
    }
    let mut defs = BTreeMap::new();
    let root = schema::convert(&content["schema"], components, &mut defs);
    for def in defs.values_mut() {
        as_a_tool_answers(def);
    }
    // Terse and shallow: every client reads every tool's schema, so the answer's own fields are
    // described with their types and enums, and the objects inside them only as objects (their
    // fields are in the tool's description and the input schemas). Without this the list grew
    // from 74 KB to 254 KB.
    let mut root = shallow(root, &defs, 0);
    as_a_tool_answers(&mut root);
    terse(&mut root);
    root
}

/// `schema` with each reference resolved: an enum is written out, an object named below the
/// answer's own fields is only `{"type": "object"}` (a list of them, a list of objects).
fn shallow(schema: Value, defs: &BTreeMap<String, Value>, depth: usize) -> Value {
    match schema {
        Value::Object(mut map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                let target = defs.get(name).cloned().unwrap_or_else(|| json!({}));
                return if target.get("enum").is_some() || depth == 0 {
                    shallow(target, defs, depth)
                } else {
                    json!({"type": "object"})
                };
            }
            let nested = depth + usize::from(map.contains_key("properties"));
            for (key, value) in map.iter_mut() {
                let inner = std::mem::take(value);
                *value = if key == "properties" {
                    match inner {
                        Value::Object(properties) => Value::Object(
                            properties
                                .into_iter()
                                .map(|(k, v)| (k, shallow(v, defs, nested)))
                                .collect(),
                        ),
                        other => other,
                    }
                } else {
                    shallow(inner, defs, depth)
                };
            }
            Value::Object(map)
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| shallow(v, defs, depth)).collect())
        }
        other => other,
    }
}

/// `schema` without titles, descriptions, formats and defaults, at every depth.
fn terse(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for key in ["title", "description", "format", "default"] {
                map.remove(key);
            }
            for (key, value) in map.iter_mut() {
                // A property may be named "description": only keywords go.
                if key == "properties" {
                    if let Value::Object(properties) = value {
                        properties.values_mut().for_each(terse);
                    }
                } else {
                    terse(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(terse),
        _ => {}
    }
}

/// An object schema changed the way `dispatch` changes the answer: no signing secrets, and a
/// document's `content` replaced by its `resourceUri`.
fn as_a_tool_answers(schema: &mut Value) {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    let mut gone = SECRETS.to_vec();
    for key in &gone {
        properties.remove(*key);
    }
    let document = properties.contains_key("documentType") && properties.contains_key("content");
    if document {
        properties.remove("content");
        properties.insert(
            "resourceUri".into(),
            json!({"type": "string", "description": "The file: read it with resources/read."}),
        );
        gone.push("content");
    }
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|r| !gone.iter().any(|g| r == g));
        if document {
            required.push("resourceUri".into());
        }
    }
}

/// The schema as a revision wants it: the 2025 revisions want an object, and get a list's
/// schema as `{"data": […]}` (as its results are given); 2025-03-26 has no output schemas.
pub fn for_legacy(schema: &Value) -> Value {
    if schema["type"] == "object" {
        return schema.clone();
    }
    let mut wrapped = json!({
        "type": "object",
        "properties": {"data": schema},
        "required": ["data"],
    });
    if let Some(defs) = schema.get("$defs") {
        wrapped["$defs"] = defs.clone();
        wrapped["properties"]["data"]
            .as_object_mut()
            .map(|m| m.remove("$defs"));
    }
    wrapped
}

/// The schema a client checks a result against, failures included: a failed call's
/// `structuredContent` is the REST problem, and clients such as the TypeScript SDK
/// 1.x check it against the `outputSchema` even when `isError` is set. The success shape is
/// the first branch; `$defs` stay at the root, where references find them.
pub fn or_failure(schema: &Value) -> Value {
    let mut success = schema.clone();
    let defs = success.as_object_mut().and_then(|m| m.remove("$defs"));
    // Only its keys: the problem's fields are the same for every tool (and in the instructions),
    // and this branch is repeated in every tool's schema.
    let failure = json!({"type": "object", "required": ["type", "title", "status", "code"]});
    let mut either = json!({"anyOf": [success, failure]});
    if schema["type"] == "object" {
        either["type"] = "object".into();
    }
    if let Some(defs) = defs {
        either["$defs"] = defs;
    }
    either
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_lose_their_content_and_webhooks_their_secret() {
        let mut document = json!({"type": "object", "properties": {
            "id": {"type": "string"}, "documentType": {"type": "string"}, "content": {"type": "string"}},
            "required": ["id", "documentType", "content"]});
        as_a_tool_answers(&mut document);
        assert!(document["properties"].get("content").is_none());
        assert_eq!(
            document["required"],
            json!(["id", "documentType", "resourceUri"])
        );
        let mut webhook = json!({"type": "object", "properties": {
            "id": {"type": "string"}, "secret": {"type": "string"}}, "required": ["id", "secret"]});
        as_a_tool_answers(&mut webhook);
        assert_eq!(webhook["required"], json!(["id"]));
    }

    #[test]
    fn a_list_is_wrapped_for_the_legacy_revisions() {
        let list = json!({"type": "array", "items": {"$ref": "#/$defs/A"}, "$defs": {"A": {"type": "object"}}});
        let wrapped = for_legacy(&list);
        assert_eq!(wrapped["type"], "object");
        assert_eq!(wrapped["properties"]["data"]["type"], "array");
        assert!(wrapped["properties"]["data"].get("$defs").is_none());
        assert_eq!(wrapped["$defs"]["A"]["type"], "object");
    }
}
