//! The unsubscribe page `/u/{token}` of every e-mail to a receiver (DESIGN §21): GET asks, POST
//! stops the organization's e-mail to that address — from the page's button or from a mail
//! client's one-click POST (RFC 8058, body `List-Unsubscribe=One-Click`). A GET never
//! unsubscribes (mail scanners open links). A token this server did not make is a 404 page.

use minijinja::context;
use poem::{
    Response, handler,
    http::{StatusCode, header},
    web::{Data, Path},
};

use crate::{
    error::Error,
    model::locale,
    service::{
        Ctx,
        mail::{self, Unsubscribe},
    },
    web::page::templates,
};

/// The page may post its one form to itself, and load its own styles.
pub(crate) const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `GET /u/{token}`.
#[handler]
pub async fn show(Data(ctx): Data<&Ctx>, Path(token): Path<String>) -> Response {
    answer(&token, mail::unsubscribe_page(ctx, &token).await)
}

/// `POST /u/{token}`.
#[handler]
pub async fn confirm(Data(ctx): Data<&Ctx>, Path(token): Path<String>) -> Response {
    answer(&token, mail::unsubscribe(ctx, &token).await)
}

/// `GET /u/{token}/brand.css`: the organization's colour for the page's header.
#[handler]
pub async fn brand_css(Data(ctx): Data<&Ctx>, Path(token): Path<String>) -> Response {
    let color = mail::unsubscribe_page(ctx, &token)
        .await
        .map(|page| page.color)
        .unwrap_or_else(|_| crate::model::branding::DEFAULT_COLOR.to_string());
    crate::web::tracking::brand_stylesheet(&color)
}

fn answer(token: &str, found: crate::error::Result<Unsubscribe>) -> Response {
    let (status, values) = match found {
        Ok(page) => {
            let words = locale::catalogue(&page.language);
            let fill = |key: &str| {
                words
                    .get(key)
                    .replace("{shop}", &page.shop)
                    .replace("{address}", &page.address)
            };
            (
                StatusCode::OK,
                context! {
                    lang => words.code,
                    title => fill("unsubscribe_title"),
                    heading => fill("unsubscribe_title"),
                    shop => page.shop.clone(),
                    brand_css => format!("/u/{token}/brand.css"),
                    done => page.done,
                    text => fill(if page.done { "unsubscribe_done" } else { "unsubscribe_question" }),
                    button => fill("unsubscribe_button"),
                    token,
                },
            )
        }
        Err(err) => {
            let status = match err {
                Error::NotFound => StatusCode::NOT_FOUND,
                other => {
                    tracing::error!(error = %other, "cannot show an unsubscribe page");
                    StatusCode::INTERNAL_SERVER_ERROR
                }
            };
            let words = locale::catalogue("en");
            (
                status,
                context! {
                    lang => "en",
                    title => words.get("unsubscribe_button"),
                    heading => words.get("unsubscribe_button"),
                    invalid => true,
                    text => words.get("unsubscribe_invalid"),
                },
            )
        }
    };
    let html = templates()
        .get_template("customer/unsubscribe.html")
        .and_then(|template| template.render(values))
        .unwrap_or_else(|err| {
            tracing::error!(error = %err, "cannot render the unsubscribe page");
            "<!doctype html><title>Error</title><p>This page cannot be shown.</p>".into()
        });
    Response::builder()
        .status(status)
        .content_type("text/html; charset=utf-8")
        .header(header::CACHE_CONTROL, "no-store")
        .header("Content-Security-Policy", CSP)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::REFERRER_POLICY, "no-referrer")
        .body(html)
}
