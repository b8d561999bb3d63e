//! The organization's logo as a file, for the workbench's pages (`<img src>`): its own media
//! type, and headers that keep an SVG from running or loading anything even when opened on its
//! own.

use poem::{
    Request, Response, handler,
    web::{Data, Path},
};

use crate::{service::Ctx, web::app::Desk};

/// What an opened logo may do: draw, with its own inline styles, and nothing else.
const LOGO_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'";

/// `GET /app/{orgId}/settings/branding/logo`: the stored logo; 404 when there is none.
#[handler]
pub async fn logo(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    match crate::service::branding::logo(ctx, &desk.actor, &org).await {
        Ok(Some((media_type, bytes))) => Response::builder()
            .content_type(media_type)
            .header("Content-Security-Policy", LOGO_CSP)
            .header("X-Content-Type-Options", "nosniff")
            .header("Cache-Control", "private, max-age=60")
            .body(bytes),
        Ok(None) => desk.refused(req, crate::error::Error::NotFound),
        Err(err) => desk.refused(req, err),
    }
}
