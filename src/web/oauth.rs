//! The authorization server's JSON endpoints (DESIGN §12, §16): discovery metadata (RFC 8414,
//! RFC 9728), the JWKS, registration (RFC 7591), token and revocation (RFC 6749, RFC 7009).
//! Errors are `{"error", "error_description"}`, not problem+json; token and registration answers
//! are never cached. Browser-based clients may call them from any origin (no cookies involved).

use std::collections::BTreeMap;

use poem::{
    Request, Response, handler,
    http::{StatusCode, header},
    web::Data,
};
use serde_json::Value;

use crate::{
    service::{
        Ctx,
        oauth::{self, OAuthError, clients, keys, tokens},
    },
    web::page::form_fields,
};

#[handler]
pub async fn server_metadata(Data(ctx): Data<&Ctx>) -> Response {
    json(
        StatusCode::OK,
        &oauth::server_metadata(ctx),
        "public, max-age=300",
    )
}

#[handler]
pub async fn resource_metadata(Data(ctx): Data<&Ctx>) -> Response {
    json(
        StatusCode::OK,
        &oauth::resource_metadata(ctx, false),
        "public, max-age=300",
    )
}

#[handler]
pub async fn mcp_resource_metadata(Data(ctx): Data<&Ctx>) -> Response {
    json(
        StatusCode::OK,
        &oauth::resource_metadata(ctx, true),
        "public, max-age=300",
    )
}

#[handler]
pub async fn jwks(Data(ctx): Data<&Ctx>) -> Response {
    match keys::keys(ctx).await {
        Ok(keys) => json(StatusCode::OK, &keys.jwks(), "public, max-age=300"),
        Err(err) => error(&OAuthError::from(err)),
    }
}

/// `POST /oauth/register`: counted per client address first (`oauth.register_per_minute`),
/// so that a flood is turned away before its bodies are read.
#[handler]
pub async fn register(req: &Request, Data(ctx): Data<&Ctx>, body: poem::Body) -> Response {
    if let Some(address) = crate::service::access::request::address()
        && let Err(retry_after) = ctx.registrations.check(address)
    {
        let mut response = error(&OAuthError::new(
            429,
            "rate_limited",
            format!("too many registrations from this address; try again in {retry_after} s"),
        ));
        if let Ok(value) = retry_after.to_string().parse() {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        return response;
    }
    let Ok(body) = body.into_vec().await else {
        return error(&OAuthError::new(
            400,
            "invalid_client_metadata",
            "the body could not be read",
        ));
    };
    if !content_type_is(req, "application/json") {
        return error(&OAuthError::new(
            400,
            "invalid_client_metadata",
            "send the client metadata as application/json",
        ));
    }
    let Ok(metadata) = serde_json::from_slice::<Value>(&body) else {
        return error(&OAuthError::new(
            400,
            "invalid_client_metadata",
            "the body is not JSON",
        ));
    };
    match clients::register(ctx, &metadata).await {
        Ok(client) => json(StatusCode::CREATED, &client, "no-store"),
        Err(err) => error(&err),
    }
}

#[handler]
pub async fn token(req: &Request, Data(ctx): Data<&Ctx>, body: Vec<u8>) -> Response {
    let form = match form(req, &body) {
        Ok(form) => form,
        Err(err) => return error(&err),
    };
    match tokens::token(ctx, &form).await {
        Ok(answer) => json(StatusCode::OK, &answer, "no-store"),
        Err(err) => error(&err),
    }
}

#[handler]
pub async fn revoke(req: &Request, Data(ctx): Data<&Ctx>, body: Vec<u8>) -> Response {
    let form = match form(req, &body) {
        Ok(form) => form,
        Err(err) => return error(&err),
    };
    match tokens::revoke(ctx, &form).await {
        Ok(()) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CACHE_CONTROL, "no-store")
            .finish(),
        Err(err) => error(&err),
    }
}

/// The fields of a form body (RFC 6749 §3.2: form-encoded, no field twice).
fn form(req: &Request, body: &[u8]) -> Result<BTreeMap<String, String>, OAuthError> {
    if !content_type_is(req, "application/x-www-form-urlencoded") {
        return Err(OAuthError::invalid_request(
            "send the parameters as application/x-www-form-urlencoded",
        ));
    }
    let mut form = BTreeMap::new();
    for (name, value) in form_fields(body) {
        if form.insert(name.clone(), value).is_some() {
            return Err(OAuthError::invalid_request(format!(
                "{name} is given more than once"
            )));
        }
    }
    Ok(form)
}

fn content_type_is(req: &Request, wanted: &str) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case(wanted))
}

fn json(status: StatusCode, value: &Value, cache: &str) -> Response {
    let mut builder = Response::builder()
        .status(status)
        .content_type("application/json")
        .header(header::CACHE_CONTROL, cache);
    if cache == "no-store" {
        builder = builder.header(header::PRAGMA, "no-cache");
    }
    builder.body(value.to_string())
}

fn error(err: &OAuthError) -> Response {
    let status = StatusCode::from_u16(err.status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut response = json(status, &err.body(), "no-store");
    if status == StatusCode::UNAUTHORIZED
        && let Ok(value) = "Bearer".parse()
    {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}
