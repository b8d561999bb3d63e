//! The public tracking page `/t/{token}` (DESIGN §21), with its logo and its brand colours as
//! files of their own (the pages allow no inline style). Anyone with the link may read it; it
//! is cached for a minute. An unknown token gets a 404 page of the same look.

use minijinja::context;
use poem::{
    Request, Response, handler,
    http::{StatusCode, header},
    web::{Data, Path},
};

use crate::{
    model::locale,
    service::{
        Ctx,
        tracking_page::{self, Page},
    },
    web::page::{templates, to_minute},
};

/// How long a browser or a proxy may keep a page or its files.
const CACHE: &str = "public, max-age=60";

/// What the page and its files may do: its own styles and images, nothing else.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `GET /t/{token}`: the page.
#[handler]
pub async fn show(req: &Request, Data(ctx): Data<&Ctx>, Path(token): Path<String>) -> Response {
    let accept = req
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    match tracking_page::find(ctx, &token).await {
        Ok(Some(page)) => {
            let language = locale::choose(page.language.as_deref(), accept, Some(&page.country));
            respond(StatusCode::OK, render(&token, Some(&page), language))
        }
        Ok(None) => {
            let language = locale::choose(None, accept, None);
            respond(StatusCode::NOT_FOUND, render(&token, None, language))
        }
        Err(err) => {
            tracing::error!(error = %err, "cannot show a tracking page");
            let language = locale::choose(None, accept, None);
            respond(
                StatusCode::INTERNAL_SERVER_ERROR,
                render(&token, None, language),
            )
        }
    }
}

/// `GET /t/{token}/brand.css`: the organization's colour for the page's header.
#[handler]
pub async fn brand_css(Data(ctx): Data<&Ctx>, Path(token): Path<String>) -> Response {
    let color = tracking_page::color(ctx, &token)
        .await
        .unwrap_or_else(|_| crate::model::branding::DEFAULT_COLOR.to_string());
    brand_stylesheet(&color)
}

/// The stylesheet that gives a customer page's header the brand colour and a text colour that
/// reads on it (the pages allow no inline style).
pub(crate) fn brand_stylesheet(color: &str) -> Response {
    let css = format!(
        ":root {{ --brand: {color}; --brand-text: {}; }}\n",
        crate::model::branding::text_on(color)
    );
    Response::builder()
        .content_type("text/css; charset=utf-8")
        .header(header::CACHE_CONTROL, CACHE)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .body(css)
}

/// `GET /t/{token}/logo`: the organization's logo; 404 when it has none.
#[handler]
pub async fn logo(Data(ctx): Data<&Ctx>, Path(token): Path<String>) -> Response {
    match tracking_page::logo(ctx, &token).await {
        Ok(Some((media_type, bytes))) => Response::builder()
            .content_type(media_type)
            // An SVG opened by itself may draw, with its own styles, and nothing else.
            .header(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'",
            )
            .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
            .header(header::CACHE_CONTROL, CACHE)
            .body(bytes),
        _ => Response::builder()
            .status(StatusCode::NOT_FOUND)
            .header(header::CACHE_CONTROL, CACHE)
            .finish(),
    }
}

fn render(token: &str, found: Option<&Page>, language: &'static str) -> String {
    let words = locale::catalogue(language);
    let t = |key: &str| words.get(key).to_string();
    let values = match found {
        Some(page) => {
            let shop = page.shop.clone();
            let carrier = page.carrier.clone();
            let events: Vec<_> = page
                .events
                .iter()
                .map(|e| {
                    context! {
                        status => t(&format!("status_{}", e.status.as_str())),
                        description => e.description.clone(),
                        location => e.location.clone(),
                        at => to_minute(&e.occurred_at),
                        datetime => e.occurred_at.clone(),
                    }
                })
                .collect();
            context! {
                found => true,
                token,
                shop => shop.clone(),
                title => t("page_title"),
                heading => t("from_shop").replace("{shop}", &shop),
                status => t(&page.status),
                delivered => page.status == "status_delivered",
                carrier,
                follow => page.carrier.as_ref().map(|c| t("follow").replace("{carrier}", c)),
                carrier_url => page.carrier_url.clone(),
                tracking_number => page.tracking_number.clone(),
                city => page.city.clone(),
                country => match words.get(&format!("country_{}", page.country)) {
                    "" => page.country.clone(),
                    name => name.to_string(),
                },
                logo => page.logo_version.clone(),
                events,
                words => context! {
                    tracking_number => t("tracking_number"),
                    carrier => t("carrier"),
                    destination => t("destination"),
                    history => t("history"),
                    no_events => t("no_events"),
                },
            }
        }
        None => context! {
            found => false,
            token,
            title => t("not_found_title"),
            heading => t("not_found_title"),
            text => t("not_found_text"),
        },
    };
    let values = context! { lang => language, ..values };
    templates()
        .get_template("tracking.html")
        .and_then(|template| template.render(values))
        .unwrap_or_else(|err| {
            tracing::error!(error = %err, "cannot render the tracking page");
            "<!doctype html><title>Error</title><p>This page cannot be shown.</p>".into()
        })
}

fn respond(status: StatusCode, html: String) -> Response {
    Response::builder()
        .status(status)
        .content_type("text/html; charset=utf-8")
        .header(header::CACHE_CONTROL, CACHE)
        // The language follows the reader's browser: a cache keeps one copy per language.
        .header(header::VARY, "Accept-Language")
        .header("Content-Security-Policy", CSP)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::REFERRER_POLICY, "no-referrer")
        .body(html)
}
