//! The HTTP application: the REST API with its OpenAPI document and Swagger UI, static files,
//! and the middleware every request passes (request id, the client's address, the streamed body
//! limit, problem+json, access log), served by `server`.

use std::{
    cell::Cell,
    sync::{Arc, OnceLock},
    time::Instant,
};

use poem::{
    Endpoint, EndpointExt, IntoResponse, Request, Response, Route,
    endpoint::make_sync,
    http::{HeaderValue, StatusCode, header},
};

use crate::{
    api::{
        self,
        problem::{ApiError, REQUEST_ID, quota_headers},
        security::QUOTA,
    },
    server::{self, body::Verdict, client::Proxies},
    service::{Ctx, access::request},
};

/// Swagger UI's page, made on its first request: 2.4 MB (its script and the document it embeds,
/// the one /openapi.json serves) held only once someone opens it, like the document itself.
fn docs() -> &'static str {
    static DOCS: OnceLock<String> = OnceLock::new();
    DOCS.get_or_init(|| {
        let api = api::openapi::service();
        api.swagger_ui_html()
            .replacen(&api.spec(), api::openapi::json(), 1)
    })
}

/// The whole application as one endpoint.
pub fn build(ctx: Ctx) -> impl Endpoint<Output = Response> {
    let api = api::openapi::service();
    let edge = Arc::new(Edge {
        ctx: ctx.clone(),
        proxies: server::Limits::of(&ctx.config).proxies,
    });
    let site = crate::web::routes(Route::new())
        .at(
            "/mcp",
            poem::get(crate::mcp::get)
                .post(crate::mcp::post)
                .delete(crate::mcp::delete),
        )
        .at(
            "/openapi.json",
            make_sync(|_| {
                Response::builder()
                    .content_type("application/json; charset=utf-8")
                    .body(api::openapi::json())
            }),
        )
        .at(
            "/docs",
            make_sync(|_| {
                Response::builder()
                    .content_type("text/html; charset=utf-8")
                    .body(docs())
            }),
        )
        .nest("/", api);
    // The API is nested at `/`, which would take `/` itself: the front door goes first.
    let front = Arc::new(
        poem::get(crate::web::app::front_door).with(poem::middleware::CookieJarManager::new()),
    );
    let site = Arc::new(site);
    poem::endpoint::make(move |req: Request| {
        let (front, site) = (front.clone(), site.clone());
        async move {
            if req.uri().path() == "/" {
                front.call(req).await.map(IntoResponse::into_response)
            } else {
                site.call(req).await.map(IntoResponse::into_response)
            }
        }
    })
    .data(ctx)
    .around(move |ep, req| handle(ep, req, edge.clone()))
    .map_to_response()
}

/// Serves `ctx` on `listener`, with the webhook delivery worker beside it, until `shutdown`
/// resolves; then in-flight requests and deliveries get `server.shutdown_grace_seconds`.
pub async fn serve(
    ctx: Ctx,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let grace = std::time::Duration::from_secs(ctx.config.server.shutdown_grace_seconds);
    crate::service::order_channels::seal_plain_secrets(&ctx)
        .await
        .map_err(|e| std::io::Error::other(format!("cannot seal stored secrets: {e}")))?;
    let jobs = crate::service::jobs::start(&ctx, grace);
    let limits = server::Limits::of(&ctx.config);
    let app = build(ctx);
    let served = server::run(listener, app, limits, shutdown, grace).await;
    jobs.stop().await;
    served
}

/// What the request middleware needs besides the endpoint.
struct Edge {
    ctx: Ctx,
    proxies: Proxies,
}

async fn handle<E: Endpoint>(
    ep: Arc<E>,
    mut req: Request,
    edge: Arc<Edge>,
) -> poem::Result<Response> {
    let started = Instant::now();
    let request_id = ulid::Ulid::new().to_string();
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let limits = &edge.ctx.config.limits;
    let max_body = limits.max_body_bytes;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let client = req
        .remote_addr()
        .as_socket_addr()
        .map(|peer| edge.proxies.client(peer.ip(), req.headers()));
    let body = server::body::limit(
        &mut req,
        max_body,
        std::time::Duration::from_secs(limits.idle_timeout_seconds),
    );
    let ctx = edge.ctx.clone();
    let (mut response, quota) = REQUEST_ID
        .scope(
            request_id.clone(),
            QUOTA.scope(
                Cell::new(None),
                request::scope(client, async move {
                    let response = if declared.is_some_and(|len| len > max_body) {
                        ApiError::payload_too_large(max_body).into_response()
                    } else {
                        api::idempotent::call(&*ep, req, &ctx, max_body).await
                    };
                    (response, QUOTA.with(Cell::get))
                }),
            ),
        )
        .await;
    match body.and_then(|guard| guard.verdict()) {
        Some(Verdict::TooLarge) => {
            response = REQUEST_ID
                .scope(request_id.clone(), async {
                    ApiError::payload_too_large(max_body).into_response()
                })
                .await;
        }
        Some(Verdict::TooSlow) => {
            response = REQUEST_ID
                .scope(request_id.clone(), async {
                    ApiError::request_timeout().into_response()
                })
                .await;
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        None => {}
    }
    let headers = response.headers_mut();
    if let Some(quota) = quota {
        for (name, value) in quota_headers(quota) {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(name, value);
            }
        }
    }
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        headers.insert("x-request-id", value);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let status: StatusCode = response.status();
    tracing::info!(
        %method,
        path,
        status = status.as_u16(),
        // Hundredths of a millisecond: what a reader can use, not float noise.
        latency_ms = (started.elapsed().as_secs_f64() * 100_000.0).round() / 100.0,
        request_id,
        "request"
    );
    Ok(response)
}
