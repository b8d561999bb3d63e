//! Documents as resources: a tool result names each document by a `resource_link` to
//! `shipbase://orgs/{orgId}/documents/{id}` instead of carrying its bytes (a label is tens of
//! kilobytes of base64 a model cannot use), and `resources/read` hands the file over when the
//! client asks for it, with the same checks as the REST download.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Value, json};

use crate::{
    error::Error,
    mcp::jsonrpc::{Failure, INVALID_PARAMS, Message},
    service::{Actor, Ctx, shipments},
};

const PREFIX: &str = "shipbase://orgs/";

/// The resource URI of document `id` of organization `org_id`.
pub fn uri(org_id: &str, id: &str) -> String {
    format!("{PREFIX}{org_id}/documents/{id}")
}

/// The organization and document a resource URI names.
fn parse(uri: &str) -> Option<(&str, &str)> {
    let (org_id, id) = uri.strip_prefix(PREFIX)?.split_once("/documents/")?;
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (plain(org_id) && plain(id)).then_some((org_id, id))
}

/// The media type of a document's format.
pub fn media_type(format: &str) -> &'static str {
    match format {
        "zpl" => "application/zpl",
        _ => "application/pdf",
    }
}

/// A `resource_link` content block for a document.
pub fn link(org_id: &str, id: &str, name: &str, format: &str) -> Value {
    json!({
        "type": "resource_link",
        "uri": uri(org_id, id),
        "name": name,
        "mimeType": media_type(format),
        "description": "The document's file; read it with resources/read when it is needed.",
    })
}

/// Takes the content of every document in `value` out, putting its resource URI in its place,
/// and returns a link to each.
pub fn detach(value: &mut Value, org_id: &str) -> Vec<Value> {
    let mut links = Vec::new();
    walk(value, org_id, &mut links);
    links
}

fn walk(value: &mut Value, org_id: &str, links: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            let id = map
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| id.starts_with("doc_"))
                .map(str::to_string);
            if let Some(id) = id
                && map.remove("content").is_some()
            {
                let text = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or_default();
                let (kind, format) = (text("documentType"), text("format"));
                let name = format!("{kind}-{id}.{format}");
                links.push(link(org_id, &id, &name, format));
                map.insert("resourceUri".into(), uri(org_id, &id).into());
            }
            map.values_mut().for_each(|v| walk(v, org_id, links));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| walk(v, org_id, links)),
        _ => {}
    }
}

/// `resources/read`: a document of the connection's organization, as a base64 blob.
pub async fn read(
    ctx: &Ctx,
    message: &Message,
    actor: &Actor,
    org_id: &str,
) -> Result<Value, Failure> {
    let requested = message.params.get("uri").cloned().unwrap_or(Value::Null);
    let not_found = || {
        Failure::new(
            poem::http::StatusCode::OK,
            message.id.clone(),
            INVALID_PARAMS,
            format!(
                "Resource not found: {}",
                requested.as_str().unwrap_or_default()
            ),
        )
        .with_data(json!({ "uri": requested.clone() }))
    };
    let Some((owner, id)) = requested.as_str().and_then(parse) else {
        return Err(not_found());
    };
    if owner != org_id {
        return Err(not_found());
    }
    match shipments::document_by_id(ctx, actor, org_id, id).await {
        Ok(found) => Ok(json!({"contents": [{
            "uri": uri(org_id, id),
            "mimeType": media_type(&found.document.format),
            "blob": STANDARD.encode(&found.document.content.0),
        }]})),
        Err(Error::InsufficientScope(_)) => Err(crate::mcp::step_up::challenge(
            ctx,
            message,
            &crate::service::operations::GET_SHIPMENT_DOCUMENT,
        )),
        Err(_) => Err(not_found()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_the_organization_and_the_document() {
        let at = uri("org_1", "doc_2");
        assert_eq!(at, "shipbase://orgs/org_1/documents/doc_2");
        assert_eq!(parse(&at), Some(("org_1", "doc_2")));
        assert_eq!(parse("shipbase://orgs/org_1/documents/"), None);
        assert_eq!(parse("shipbase://orgs/../documents/doc_2"), None);
        assert_eq!(parse("https://example.com/documents/doc_2"), None);
    }

    #[test]
    fn documents_lose_their_bytes_and_gain_a_link() {
        let mut shipment = json!({"id": "shp_1", "documents": [
            {"id": "doc_1", "documentType": "label", "format": "pdf", "content": "JVBERi0..."}]});
        let links = detach(&mut shipment, "org_1");
        assert_eq!(shipment["documents"][0].get("content"), None);
        assert_eq!(
            shipment["documents"][0]["resourceUri"],
            "shipbase://orgs/org_1/documents/doc_1"
        );
        assert_eq!(links.len(), 1);
        assert_eq!(links[0]["type"], "resource_link");
        assert_eq!(links[0]["mimeType"], "application/pdf");
        assert_eq!(links[0]["name"], "label-doc_1.pdf");
    }
}
