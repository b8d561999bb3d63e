//! Step-up: a call outside the connection's grant is HTTP 403 with a Bearer `insufficient_scope`
//! challenge naming the permission it needs and the resource metadata, so that the client can
//! ask the person to approve it and call again.

use serde_json::json;

use crate::{
    mcp::jsonrpc::{Failure, Message},
    service::Ctx,
};

/// The refusal of `operation` (a tool, or what reading a resource stands for).
pub fn challenge(
    ctx: &Ctx,
    message: &Message,
    operation: &crate::service::operations::Operation,
) -> Failure {
    let scope = operation.scope.to_string();
    let metadata = crate::mcp::metadata_url(ctx);
    Failure::new(
        poem::http::StatusCode::FORBIDDEN,
        message.id.clone(),
        crate::mcp::jsonrpc::INVALID_REQUEST,
        format!(
            "Forbidden: {} needs the permission {scope}, which this connection was not granted",
            operation.id
        ),
    )
    .with_data(json!({"code": "insufficient_scope", "scope": scope}))
    .with_challenge(format!(
        "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{metadata}\", \
         error_description=\"{} needs {scope}\"",
        operation.id
    ))
}
