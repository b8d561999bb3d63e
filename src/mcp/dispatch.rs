//! Calling a tool: its arguments become the REST operation's path, query and body, and the
//! request runs in-process through the same REST handler and service function, with the
//! connection's actor (already authenticated, so no second look-up or rate charge). Validation,
//! scopes, isolation, plan limits, events and idempotency are the REST API's own; the answer is
//! the REST answer.

use std::sync::OnceLock;

use base64::{Engine, engine::general_purpose::STANDARD};
use poem::{
    EndpointExt, IntoEndpoint, IntoResponse, Request,
    endpoint::BoxEndpoint,
    http::{HeaderValue, StatusCode, header},
};
use serde_json::{Map, Value, json};

use crate::{
    api::{idempotent, problem::ApiError, security},
    error::{Error, FieldError},
    mcp::{
        catalog::{IDEMPOTENCY_KEY, Tool},
        output, resources,
    },
    service::{Actor, Ctx, input::strict},
};

/// What a tool call answered.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub is_error: bool,
    /// The REST answer's JSON (a problem on error).
    pub structured: Value,
    /// A file the operation answered that is no stored document (merged labels).
    pub file: Option<File>,
    /// `resource_link`s to the documents the answer names, their bytes left out of it.
    pub links: Vec<Value>,
}

#[derive(Debug, PartialEq)]
pub struct File {
    /// Where the REST API serves it.
    pub uri: String,
    pub mime_type: String,
    /// The bytes, base64.
    pub blob: String,
}

/// The REST API as one endpoint, built once.
fn rest() -> &'static BoxEndpoint<'static> {
    static REST: OnceLock<BoxEndpoint<'static>> = OnceLock::new();
    REST.get_or_init(|| {
        crate::api::openapi::service()
            .into_endpoint()
            .map_to_response()
            .boxed()
    })
}

pub async fn call(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    tool: &Tool,
    args: Map<String, Value>,
) -> Outcome {
    let document = args
        .get("documentId")
        .and_then(Value::as_str)
        .map(str::to_string);
    let merged = merged_request(&args);
    let request = match request(ctx, actor, org_id, tool, args) {
        Ok(request) => request,
        Err(err) => return failed(ApiError::from(err).into_response()).await,
    };
    let uri = format!("{}{}", crate::service::oauth::issuer(ctx), request.uri());
    let response = idempotent::call(rest(), request, ctx, ctx.config.limits.max_body_bytes).await;
    if response.status().is_success() {
        let mut outcome = succeeded(response, uri).await;
        redact(&mut outcome.structured);
        outcome.links = resources::detach(&mut outcome.structured, org_id);
        // A stored document's file is a link too, not bytes in the answer.
        if let (Some(file), Some(id)) = (&outcome.file, document) {
            let format = if file.mime_type.ends_with("zpl") {
                "zpl"
            } else {
                "pdf"
            };
            outcome.structured = json!({
                "documentId": id,
                "resourceUri": resources::uri(org_id, &id),
                "contentType": file.mime_type,
                "size": outcome.structured["size"],
            });
            outcome.links = vec![resources::link(
                org_id,
                &id,
                &format!("{id}.{format}"),
                format,
            )];
            outcome.file = None;
        } else if let (Some(file), Some((document_type, shipment_ids))) = (&outcome.file, merged) {
            // A merged PDF is no stored document: its link makes it again when read.
            let uri = resources::merged_uri(org_id, &document_type, &shipment_ids);
            outcome.structured = json!({
                "resourceUri": uri,
                "contentType": file.mime_type,
                "size": outcome.structured["size"],
                "documentType": document_type,
                "shipmentIds": shipment_ids,
            });
            outcome.links = vec![json!({
                "type": "resource_link",
                "uri": uri,
                "name": format!("{document_type}-merged.pdf"),
                "mimeType": file.mime_type,
                "description": "The merged PDF; read it with resources/read when it is needed.",
            })];
            outcome.file = None;
        }
        outcome
    } else {
        failed(response).await
    }
}

/// The document type and shipments of a `merge_documents` call.
fn merged_request(args: &Map<String, Value>) -> Option<(String, Vec<String>)> {
    let document_type = args.get("documentType")?.as_str()?.to_string();
    let ids = args.get("shipmentIds")?.as_array()?;
    let ids: Option<Vec<String>> = ids.iter().map(|v| v.as_str().map(str::to_string)).collect();
    Some((document_type, ids?))
}

/// The REST request a call stands for.
fn request(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    tool: &Tool,
    mut args: Map<String, Value>,
) -> Result<Request, Error> {
    let mut errors = Vec::new();
    let mut path = tool.path.replace("{orgId}", &encode(org_id));
    for name in &tool.path_params {
        match args.remove(name) {
            Some(Value::String(value)) if !value.is_empty() => {
                path = path.replace(&format!("{{{name}}}"), &encode(&value));
            }
            Some(Value::String(_)) | None | Some(Value::Null) => {
                errors.push(invalid(name, "is required"))
            }
            Some(_) => errors.push(invalid(name, "must be a string")),
        }
    }
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for name in &tool.query_params {
        match args.remove(name) {
            None | Some(Value::Null) => {}
            Some(Value::String(value)) => {
                query.append_pair(name, &value);
            }
            Some(value @ (Value::Number(_) | Value::Bool(_))) => {
                query.append_pair(name, &value.to_string());
            }
            Some(_) => errors.push(invalid(name, "must be a string or a number")),
        }
    }
    let key = match args.remove(IDEMPOTENCY_KEY) {
        Some(Value::String(key)) if tool.method == poem::http::Method::POST => Some(key),
        None | Some(Value::Null) => None,
        Some(_) if tool.method != poem::http::Method::POST => {
            errors.push(unknown(IDEMPOTENCY_KEY, tool));
            None
        }
        Some(_) => {
            errors.push(invalid(IDEMPOTENCY_KEY, "must be a string"));
            None
        }
    };
    if !tool.body {
        errors.extend(args.keys().map(|name| unknown(name, tool)));
    }
    if !errors.is_empty() {
        return Err(Error::Validation(errors));
    }
    let query = query.finish();
    let uri = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    let mut builder = Request::builder()
        .method(tool.method.clone())
        .uri_str(&uri)
        // The bearer scheme needs the header; the actor itself comes with the request.
        .header(header::AUTHORIZATION, "Bearer mcp-connection");
    if let Some(key) = key {
        builder = builder.header("Idempotency-Key", key);
    }
    let mut req = if tool.body {
        builder
            .content_type("application/json")
            .body(Value::Object(args).to_string())
    } else {
        builder.finish()
    };
    req.extensions_mut().insert(ctx.clone());
    security::act_as(&mut req, actor.clone());
    Ok(req)
}

/// Signing secrets stay out of a model's context: webhook and order channel secrets are left out
/// of every tool result (a person reads them in the workbench). Carrier credentials are masked
/// by the REST answer already; a token just made is the one secret a tool hands over.
fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in output::SECRETS {
                map.remove(key);
            }
            map.values_mut().for_each(redact);
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

async fn succeeded(response: poem::Response, uri: String) -> Outcome {
    let media = media_type(&response);
    let bytes = response.into_body().into_vec().await.unwrap_or_default();
    if media.ends_with("json") {
        let structured = serde_json::from_slice(&bytes).unwrap_or_else(|_| json!({}));
        return Outcome {
            is_error: false,
            structured,
            file: None,
            links: Vec::new(),
        };
    }
    let blob = STANDARD.encode(&bytes);
    Outcome {
        is_error: false,
        structured: json!({"uri": uri, "contentType": media, "size": bytes.len(), "contentBase64": blob}),
        file: Some(File {
            uri,
            mime_type: media,
            blob,
        }),
        links: Vec::new(),
    }
}

pub async fn failed(response: poem::Response) -> Outcome {
    let status = response.status();
    let bytes = response.into_body().into_vec().await.unwrap_or_default();
    let structured = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
        json!({"status": status.as_u16(), "code": code_of(status), "title": status.canonical_reason()})
    });
    Outcome {
        is_error: true,
        structured,
        file: None,
        links: Vec::new(),
    }
}

fn code_of(status: StatusCode) -> &'static str {
    match status {
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::UNAUTHORIZED => "unauthenticated",
        StatusCode::FORBIDDEN => "insufficient_scope",
        _ => "internal_error",
    }
}

fn media_type(response: &poem::Response) -> String {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v: &HeaderValue| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("application/octet-stream")
        .trim()
        .to_string()
}

fn encode(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

fn invalid(field: &str, message: &str) -> FieldError {
    FieldError {
        field: field.to_string(),
        message: message.to_string(),
    }
}

/// An argument the tool does not take, with the closest one it does.
fn unknown(name: &str, tool: &Tool) -> FieldError {
    let known = tool
        .path_params
        .iter()
        .chain(&tool.query_params)
        .map(String::as_str)
        .chain((tool.method == poem::http::Method::POST).then_some(IDEMPOTENCY_KEY));
    let message = match strict::suggestion(name, known) {
        Some(close) => format!("unknown argument; did you mean \"{close}\"?"),
        None => "unknown argument".to_string(),
    };
    invalid(name, &message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_encoded() {
        assert_eq!(encode("shp_01/../x y"), "shp_01%2F..%2Fx+y");
    }
}
