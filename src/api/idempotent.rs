//! `Idempotency-Key` on POST requests (DESIGN §15): the HTTP side of `service::idempotency`.
//! A POST with a key is authenticated first (keys belong to a credential), fingerprinted (method, path, body), reserved or
//! answered from the stored answer (`Idempotent-Replayed: true`), and run with the reservation
//! in scope; a failed request gives its key up, unless it reached a carrier: then its answer,
//! the error too, is stored and replayed (with the retry's own `requestId`).

use poem::{
    Body, Endpoint, IntoResponse, Request, Response,
    http::{Method, StatusCode, header},
};

use crate::{
    api::{problem::ApiError, security},
    error::Error,
    service::{
        Ctx,
        input::idempotency::{self, Answer, Begin},
    },
};

/// Answers `req` through `ep`, idempotently when it carries an `Idempotency-Key`.
pub async fn call<E: Endpoint>(ep: &E, mut req: Request, ctx: &Ctx, max_body: u64) -> Response {
    let key = req
        .headers()
        .get("idempotency-key")
        .map(|v| v.to_str().map(str::to_string));
    // Other methods are idempotent by themselves.
    let (Some(key), &Method::POST) = (key, req.method()) else {
        return respond(ep, req).await;
    };
    // Keys belong to a credential: without one that authenticates, the handler answers (401,
    // 429, or an anonymous sign-up) and no key is looked at or stored.
    let actor = match security::authenticate_ahead(&mut req, ctx).await {
        Some(actor) if actor.credential_id().is_some() => actor,
        _ => return respond(ep, req).await,
    };
    let Ok(key) = key else {
        return ApiError::from(Error::invalid("Idempotency-Key", "must be visible ASCII"))
            .into_response();
    };
    if let Err(err) = idempotency::check_key(&key) {
        return ApiError::from(err).into_response();
    }
    let (parts, body) = req.into_parts();
    let bytes = match body
        .into_bytes_limit(usize::try_from(max_body).unwrap_or(usize::MAX))
        .await
    {
        Ok(bytes) => bytes,
        Err(_) => return ApiError::payload_too_large(max_body).into_response(),
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or("", |p| p.as_str())
        .to_string();
    let fingerprint =
        idempotency::fingerprint(&[parts.method.as_str().as_bytes(), path.as_bytes(), &bytes]);
    let req = Request::from_parts(parts, Body::from(bytes));
    let slot = match idempotency::begin(ctx, &actor, &key, fingerprint).await {
        Ok(Begin::Run(slot)) => slot,
        Ok(Begin::Replay(answer)) => return replay(answer),
        Err(err) => return ApiError::from(err).into_response(),
    };
    let response = idempotency::scope(slot.clone(), respond(ep, req)).await;
    if !response.status().is_success() && !slot.must_keep() {
        if let Err(err) = idempotency::release(ctx, &slot).await {
            tracing::error!(error = %err, "could not release an idempotency key");
        }
        return response;
    }
    if slot.is_done() {
        return response;
    }
    // The operation wrote nothing of its own (a quote, a test delivery), or failed after a
    // carrier had the request: store what it answered.
    let (parts, body) = response.into_parts();
    let bytes = body.into_vec().await.unwrap_or_default();
    let answer = Answer {
        status: parts.status.as_u16(),
        content_type: parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/json")
            .to_string(),
        body: bytes.clone(),
    };
    if let Err(err) = idempotency::finish(ctx, &slot, answer).await {
        tracing::error!(error = %err, "could not store an idempotent answer");
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// The endpoint's answer, its errors in problem+json.
pub async fn respond<E: Endpoint>(ep: &E, req: Request) -> Response {
    match ep.call(req).await {
        Ok(output) => output.into_response(),
        // Not an error to the client (a 304 from a conditional request).
        Err(err) if err.status().as_u16() < 400 => err.into_response(),
        Err(err) => ApiError::from_poem(err).into_response(),
    }
}

fn replay(answer: Answer) -> Response {
    let body = if answer.content_type.starts_with("application/problem+json") {
        with_request_id(answer.body)
    } else {
        answer.body
    };
    Response::builder()
        .status(StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK))
        .content_type(answer.content_type)
        .header("Idempotent-Replayed", "true")
        .body(body)
}

/// A stored problem with the `requestId` of the request that replays it (the one in the logs).
fn with_request_id(body: Vec<u8>) -> Vec<u8> {
    let Ok(mut problem) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return body;
    };
    match (
        problem.get_mut("requestId"),
        crate::api::problem::REQUEST_ID.try_with(Clone::clone),
    ) {
        (Some(slot), Ok(id)) => *slot = serde_json::Value::String(id),
        _ => return body,
    }
    serde_json::to_vec(&problem).unwrap_or(body)
}
