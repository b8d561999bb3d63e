//! The MCP endpoint `/mcp` (SPEC §5, DESIGN §12): Streamable HTTP in both protocol eras, the
//! stateless 2026-07-28 revision and the legacy 2025-11-25, 2025-06-18 and 2025-03-26 ones,
//! told apart per request. Checks run in DESIGN's order: Origin (DNS rebinding) → bearer token
//! (live on every request) → era framing → method → tool. Each tool is a REST operation called
//! in-process with the connection's actor (`dispatch`), so MCP and REST share every check.

use poem::{
    IntoResponse, Request, Response, handler,
    http::{StatusCode, header},
    web::Data,
};
use serde_json::json;

use crate::{
    api::security,
    error::Error,
    model::scope::Resource,
    service::{Actor, Ctx, access::actor::Principal, oauth},
};

pub mod catalog;
mod confirm;
pub mod dispatch;
pub mod era;
pub mod jsonrpc;
mod methods;
pub mod output;
pub mod resources;
pub mod schema;
mod step_up;
pub mod tasks;

use crate::service::access::mcp_sessions::{self as sessions, Session};
use era::Era;
use jsonrpc::{Failure, Framing, Incoming, Message, answer};
use methods::Revision;

const SESSION_HEADER: &str = "mcp-session-id";

/// POST: one JSON-RPC message. The body is read only after the token is checked, so an
/// unauthenticated caller cannot make the server take in a body at all.
#[handler]
pub async fn post(req: &Request, Data(ctx): Data<&Ctx>, body: poem::Body) -> Response {
    let actor = match gate(req, ctx).await {
        Ok(actor) => actor,
        Err(response) => return response,
    };
    let limit = usize::try_from(ctx.config.limits.max_body_bytes).unwrap_or(usize::MAX);
    let body = match body.into_bytes_limit(limit).await {
        Ok(body) => body,
        Err(_) => {
            return crate::api::problem::ApiError::payload_too_large(
                ctx.config.limits.max_body_bytes,
            )
            .into_response();
        }
    };
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok());
    let Some(framing) = Framing::of(accept) else {
        return failure(
            Framing::Json,
            Failure::new(
                StatusCode::NOT_ACCEPTABLE,
                None,
                jsonrpc::INVALID_REQUEST,
                "Not Acceptable: accept application/json or text/event-stream",
            ),
        );
    };
    let message = match jsonrpc::parse(&body) {
        Ok(Incoming::Message(message)) => message,
        Ok(Incoming::Response) => return jsonrpc::accepted(),
        Err(err) => return failure(framing, err),
    };
    let outcome = match era::of(&message, req.headers()) {
        Era::Modern => modern(ctx, &actor, &message, req).await,
        Era::Legacy => legacy(ctx, &actor, &message, req).await,
    };
    match outcome {
        Ok(Reply::Accepted) => jsonrpc::accepted(),
        Ok(Reply::Result { result, session }) => {
            let id = message.id.clone().unwrap_or_default();
            let mut response = answer(framing, StatusCode::OK, &jsonrpc::result(&id, result));
            if let Some(session) = session
                && let Ok(value) = session.parse()
            {
                response.headers_mut().insert(SESSION_HEADER, value);
            }
            response
        }
        Err(err) => failure(framing, err),
    }
}

/// What a message gets.
enum Reply {
    /// A notification: 202.
    Accepted,
    /// A result, with the session it opened (legacy `initialize`).
    Result {
        result: serde_json::Value,
        session: Option<String>,
    },
}

fn result(result: serde_json::Value) -> Result<Reply, Failure> {
    Ok(Reply::Result {
        result,
        session: None,
    })
}

/// The stateless revision: `_meta` and headers checked on every request; no session.
async fn modern(
    ctx: &Ctx,
    actor: &Actor,
    message: &Message,
    req: &Request,
) -> Result<Reply, Failure> {
    if message.id.is_none() {
        return Ok(Reply::Accepted);
    }
    era::check_modern(message, req.headers())?;
    match message.method.as_str() {
        "server/discover" => result(methods::discover(actor)),
        "tools/list" => result(methods::list_tools(
            message,
            actor,
            Revision::Modern,
            toolsets(req, message)?.as_deref(),
        )?),
        "tools/call" => result(methods::call_tool(ctx, message, actor, Revision::Modern).await?),
        "resources/list" => result(methods::empty_list(message, "resources", Revision::Modern)?),
        "resources/templates/list" => result(methods::resource_templates(
            message,
            actor,
            Revision::Modern,
        )?),
        "resources/read" => {
            result(methods::read_resource(ctx, message, actor, Revision::Modern).await?)
        }
        _ => Err(methods::removed(message)),
    }
}

/// The handshake revisions: `initialize` opens a session for this credential; every other
/// message names it.
async fn legacy(
    ctx: &Ctx,
    actor: &Actor,
    message: &Message,
    req: &Request,
) -> Result<Reply, Failure> {
    let id = message.id.clone();
    if message.method == "initialize" {
        let Some(_) = id else {
            return Err(Failure::new(
                StatusCode::BAD_REQUEST,
                None,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: initialize needs an id",
            ));
        };
        let requested = message
            .params
            .get("protocolVersion")
            .and_then(|v| v.as_str());
        if requested.is_none() {
            return Err(Failure::new(
                StatusCode::BAD_REQUEST,
                id,
                jsonrpc::INVALID_PARAMS,
                "Invalid params: protocolVersion is required",
            ));
        }
        let (version, result) = methods::initialize(actor, requested);
        let session = sessions::open(
            ctx,
            Session {
                connection_id: actor.credential_id().unwrap_or_default().to_string(),
                user_id: actor.user_id.clone().unwrap_or_default(),
                protocol_version: version,
                initialized: false,
            },
        )
        .await
        .map_err(|e| internal(id.clone(), e))?;
        return Ok(Reply::Result {
            result,
            session: Some(session),
        });
    }
    let (session_id, session) = session_of(ctx, req, actor, id.clone()).await?;
    era::check_legacy_version(req.headers(), id.clone(), Some(&session.protocol_version))?;
    let revision = Revision::of_legacy(&session.protocol_version);
    if id.is_none() {
        if message.method == "notifications/initialized" {
            sessions::mark_initialized(ctx, &session_id)
                .await
                .map_err(|e| internal(None, e))?;
        }
        return Ok(Reply::Accepted);
    }
    match message.method.as_str() {
        "ping" => result(json!({})),
        "tools/list" => result(methods::list_tools(
            message,
            actor,
            revision,
            toolsets(req, message)?.as_deref(),
        )?),
        "tools/call" => result(methods::call_tool(ctx, message, actor, revision).await?),
        "resources/list" => result(methods::empty_list(message, "resources", revision)?),
        "resources/templates/list" => {
            result(methods::resource_templates(message, actor, revision)?)
        }
        "resources/read" => result(methods::read_resource(ctx, message, actor, revision).await?),
        other => Err(Failure::new(
            StatusCode::OK,
            id,
            jsonrpc::METHOD_NOT_FOUND,
            format!("Method not found: {other}"),
        )),
    }
}

/// The session a legacy request names: 400 without one, 404 when unknown, ended, or another
/// credential's (a session belongs to the user and connection that opened it).
async fn session_of(
    ctx: &Ctx,
    req: &Request,
    actor: &Actor,
    id: Option<serde_json::Value>,
) -> Result<(String, Session), Failure> {
    let Some(session_id) = req
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
    else {
        return Err(Failure::new(
            StatusCode::BAD_REQUEST,
            id,
            jsonrpc::INVALID_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required (send initialize first)",
        ));
    };
    let mine = |s: &Session| {
        Some(s.connection_id.as_str()) == actor.credential_id()
            && Some(&s.user_id) == actor.user_id.as_ref()
    };
    let found = sessions::get(ctx, session_id)
        .await
        .map_err(|e| internal(id.clone(), e))?;
    match found {
        Some(session) if mine(&session) => Ok((session_id.to_string(), session)),
        _ => Err(Failure::new(
            StatusCode::NOT_FOUND,
            id,
            jsonrpc::INVALID_REQUEST,
            "Session not found: start a new one with initialize",
        )),
    }
}

/// The resources `?toolsets=shipments,orders` narrows the tool list to (all when not given): a
/// client that needs a few tools need not load every schema.
fn toolsets(req: &Request, message: &Message) -> Result<Option<Vec<Resource>>, Failure> {
    let Some(given) = req
        .uri()
        .query()
        .into_iter()
        .flat_map(|q| url::form_urlencoded::parse(q.as_bytes()))
        .find(|(key, _)| key == "toolsets")
        .map(|(_, value)| value.into_owned())
    else {
        return Ok(None);
    };
    let mut chosen = Vec::new();
    for name in given.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match Resource::from_name(name) {
            Some(resource) => chosen.push(resource),
            None => {
                let known: Vec<&str> = Resource::ALL.iter().map(|r| r.name()).collect();
                return Err(Failure::new(
                    StatusCode::BAD_REQUEST,
                    message.id.clone(),
                    jsonrpc::INVALID_PARAMS,
                    format!(
                        "Invalid params: unknown toolset {name:?}; toolsets: {}",
                        known.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(Some(chosen))
}

/// GET: no server-initiated stream is offered.
#[handler]
pub async fn get(req: &Request, Data(ctx): Data<&Ctx>) -> Response {
    if let Err(response) = gate(req, ctx).await {
        return response;
    }
    Response::builder()
        .status(StatusCode::METHOD_NOT_ALLOWED)
        .header(header::ALLOW, "POST, DELETE")
        .finish()
}

/// DELETE: ends a legacy session.
#[handler]
pub async fn delete(req: &Request, Data(ctx): Data<&Ctx>) -> Response {
    let actor = match gate(req, ctx).await {
        Ok(actor) => actor,
        Err(response) => return response,
    };
    match session_of(ctx, req, &actor, None).await {
        Ok((session_id, _)) => match sessions::close(ctx, &session_id).await {
            Ok(_) => Response::builder().status(StatusCode::OK).finish(),
            Err(e) => failure(Framing::Json, internal(None, e)),
        },
        Err(err) => failure(Framing::Json, err),
    }
}

/// Origin, then the bearer token: the actor of a request that may go on, or the answer.
async fn gate(req: &Request, ctx: &Ctx) -> Result<Actor, Response> {
    if let Some(origin) = req.headers().get(header::ORIGIN)
        && !origin_allowed(ctx, origin.to_str().unwrap_or_default())
    {
        return Err(failure(
            Framing::Json,
            Failure::new(
                StatusCode::FORBIDDEN,
                None,
                jsonrpc::INVALID_REQUEST,
                "Forbidden: Origin not allowed",
            ),
        ));
    }
    let credential = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, credential)| credential.trim());
    let Some(credential) = credential else {
        return Err(challenge(ctx, None));
    };
    match security::authenticate_quoted(ctx, credential).await {
        Ok(actor)
            if matches!(
                actor.principal,
                Principal::Connection { .. } | Principal::ApiToken { .. }
            ) =>
        {
            Ok(actor)
        }
        Ok(_) | Err(Error::Unauthenticated) => Err(challenge(
            ctx,
            Some("the access token is invalid, expired or revoked"),
        )),
        Err(err) => Err(poem::IntoResponse::into_response(
            crate::api::problem::ApiError::from(err),
        )),
    }
}

/// 401 pointing to the protected-resource metadata (RFC 9728 §5.1).
fn challenge(ctx: &Ctx, invalid: Option<&str>) -> Response {
    let metadata = metadata_url(ctx);
    let (value, detail) = match invalid {
        Some(why) => (
            format!(
                "Bearer error=\"invalid_token\", error_description=\"{why}\", resource_metadata=\"{metadata}\""
            ),
            why.to_string(),
        ),
        None => (
            format!("Bearer resource_metadata=\"{metadata}\""),
            format!(
                "sign in with OAuth: the resource metadata at {metadata} names the authorization server"
            ),
        ),
    };
    // The body is a problem like every other error of the server.
    let body = json!({
        "type": "/errors/unauthenticated", "title": "Authentication required", "status": 401,
        "code": "unauthenticated", "detail": detail,
    });
    Response::builder()
        .status(StatusCode::UNAUTHORIZED)
        .header(header::WWW_AUTHENTICATE, value)
        .content_type("application/problem+json")
        .body(body.to_string())
}

/// Whether a browser at `origin` may call: the base URL's own origin, or a configured one.
fn origin_allowed(ctx: &Ctx, origin: &str) -> bool {
    let own = url::Url::parse(&oauth::issuer(ctx))
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default();
    origin == own
        || ctx
            .config
            .server
            .allowed_origins
            .iter()
            .any(|o| o == origin)
}

/// An error answer: in the client's framing when it is a 200 (a JSON-RPC error of a method),
/// else always JSON.
fn failure(framing: Framing, failure: Failure) -> Response {
    let framing = if failure.status == StatusCode::OK {
        framing
    } else {
        Framing::Json
    };
    let mut response = answer(framing, failure.status, &failure.body());
    if let Some(challenge) = failure
        .challenge
        .as_deref()
        .and_then(|c| header::HeaderValue::from_str(c).ok())
    {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// Where a client learns how to get (more) authority: the protected-resource metadata.
pub(crate) fn metadata_url(ctx: &Ctx) -> String {
    format!(
        "{}/.well-known/oauth-protected-resource{}",
        oauth::issuer(ctx),
        oauth::MCP_PATH
    )
}

/// A storage failure while handling a message: logged, answered as a JSON-RPC internal error.
fn internal(id: Option<serde_json::Value>, err: crate::error::Error) -> Failure {
    tracing::error!(error = %err, "MCP session storage failed");
    Failure::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        id,
        jsonrpc::INTERNAL_ERROR,
        "Internal error",
    )
}
