//! Documents as resources: a tool result names each document by a `resource_link` to
//! `shipbase://orgs/{orgId}/documents/{id}` instead of carrying its bytes (a label is tens of
//! kilobytes of base64 a model cannot use), and `resources/read` hands the file over when the
//! client asks for it, with the same checks as the REST download.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Value, json};

use crate::{
    error::Error,
    mcp::jsonrpc::{Failure, INVALID_PARAMS, Message},
    model::pdf_merge::DocumentMergeIn,
    service::{Actor, Ctx, Input, documents, shipments},
};

const PREFIX: &str = "shipbase://orgs/";

/// The resource URI of document `id` of organization `org_id`.
pub fn uri(org_id: &str, id: &str) -> String {
    format!("{PREFIX}{org_id}/documents/{id}")
}

/// The `resources/templates/list` entry of organization `org_id`'s documents.
pub fn template(org_id: &str) -> Value {
    json!({
        "uriTemplate": format!("{PREFIX}{org_id}/documents/{{documentId}}"),
        "name": "document",
        "title": "A shipment's document",
        "description": "A label, customs document or packing list of a shipment (PDF or ZPL), by its document id (doc_…) as get_shipment lists it.",
    })
}

/// The resource URI of the merged PDF of `document_type` documents of `shipment_ids` (made
/// again when read, from the documents stored).
pub fn merged_uri(org_id: &str, document_type: &str, shipment_ids: &[String]) -> String {
    format!(
        "{PREFIX}{org_id}/documents/merged?documentType={document_type}&shipmentIds={}",
        shipment_ids.join(",")
    )
}

/// What a resource URI names.
#[derive(Debug, PartialEq)]
enum Named<'a> {
    Document(&'a str),
    Merged {
        document_type: &'a str,
        shipment_ids: Vec<&'a str>,
    },
}

fn plain(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The organization and what of it a resource URI names.
fn parse(uri: &str) -> Option<(&str, Named<'_>)> {
    let (org_id, rest) = uri.strip_prefix(PREFIX)?.split_once("/documents/")?;
    if !plain(org_id) {
        return None;
    }
    if let Some(query) = rest.strip_prefix("merged?") {
        let (types, ids) = query.split_once('&')?;
        let document_type = types.strip_prefix("documentType=").filter(|t| plain(t))?;
        let shipment_ids: Vec<&str> = ids.strip_prefix("shipmentIds=")?.split(',').collect();
        return shipment_ids.iter().all(|id| plain(id)).then_some((
            org_id,
            Named::Merged {
                document_type,
                shipment_ids,
            },
        ));
    }
    plain(rest).then_some((org_id, Named::Document(rest)))
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
    let Some((owner, named)) = requested.as_str().and_then(parse) else {
        return Err(not_found());
    };
    if owner != org_id {
        return Err(not_found());
    }
    let read = match named {
        Named::Document(id) => match shipments::document_by_id(ctx, actor, org_id, id).await {
            Ok(found) => Ok((media_type(&found.document.format), found.document.content.0)),
            // A manifest's PDF is no shipment's document.
            Err(Error::NotFound) => crate::service::manifests::document(ctx, actor, org_id, id)
                .await
                .map(|document| (media_type(&document.format), document.content.0)),
            Err(err) => Err(err),
        },
        Named::Merged {
            document_type,
            shipment_ids,
        } => {
            let request = DocumentMergeIn {
                shipment_ids: shipment_ids.into_iter().map(str::to_string).collect(),
                document_type: document_type.to_string(),
            };
            documents::merge(ctx, actor, org_id, Input::ok(request))
                .await
                .map(|pdf| (media_type("pdf"), pdf))
        }
    };
    match read {
        Ok((mime_type, bytes)) => Ok(json!({"contents": [{
            "uri": requested,
            "mimeType": mime_type,
            "blob": STANDARD.encode(&bytes),
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
        assert_eq!(parse(&at), Some(("org_1", Named::Document("doc_2"))));
        let merged = merged_uri("org_1", "label", &["shp_1".into(), "shp_2".into()]);
        assert_eq!(
            merged,
            "shipbase://orgs/org_1/documents/merged?documentType=label&shipmentIds=shp_1,shp_2"
        );
        assert_eq!(
            parse(&merged),
            Some((
                "org_1",
                Named::Merged {
                    document_type: "label",
                    shipment_ids: vec!["shp_1", "shp_2"]
                }
            ))
        );
        assert_eq!(
            parse(
                "shipbase://orgs/org_1/documents/merged?documentType=label&shipmentIds=shp_1,../x"
            ),
            None
        );
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
