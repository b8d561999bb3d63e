//! The returns portal `/r/{slug}` (DESIGN §21): a form for the order number and the order's
//! e-mail or postcode; a match shows the order's lines to pick with a reason; the next POST
//! creates and books the return and shows its label (`/r/{slug}/labels/{token}`), also e-mailed
//! when mail is configured. A wrong or unknown order gets the same page and words; more than
//! ten tries a minute from one address get 429. The pages keep no state: each POST carries the
//! order number and its proof, and is checked again.

use minijinja::{Value, context};
use poem::{
    Request, Response, handler,
    http::{StatusCode, header},
    web::{Data, Path},
};

use crate::{
    model::{ids, locale},
    service::{
        Ctx,
        access::{login_throttle, request},
        shipments::portal::{self, Found, Pick, Portal},
        tracking_page,
    },
    web::{
        page::{field, form_fields, templates},
        unsubscribe::CSP,
    },
};

/// Tries one address may make in a minute.
const TRIES_PER_MINUTE: u32 = 10;

/// `GET /r/{slug}`.
#[handler]
pub async fn show(req: &Request, Data(ctx): Data<&Ctx>, Path(slug): Path<String>) -> Response {
    let language = language_of(req);
    match portal::open(ctx, &slug).await {
        Ok(Some(portal)) => render(
            StatusCode::OK,
            language,
            Some(&portal),
            context! { step => "find" },
        ),
        Ok(None) => closed(language),
        Err(err) => failed(language, None, &err),
    }
}

/// `POST /r/{slug}`: finds the order, or creates the return.
#[handler]
pub async fn submit(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(slug): Path<String>,
    body: Vec<u8>,
) -> Response {
    let language = language_of(req);
    let portal = match portal::open(ctx, &slug).await {
        Ok(Some(portal)) => portal,
        Ok(None) => return closed(language),
        Err(err) => return failed(language, None, &err),
    };
    let key = format!(
        "portal:{}",
        request::address().map_or_else(|| "unknown".to_string(), |ip| ip.to_string())
    );
    match login_throttle::count_try(ctx, key, TRIES_PER_MINUTE).await {
        Ok(Ok(())) => {}
        Ok(Err(wait)) => return too_many(language, &portal, wait),
        Err(err) => return failed(language, Some(&portal), &err),
    }
    let fields = form_fields(&body);
    let text = |name: &str| field(&fields, name).unwrap_or_default().trim().to_string();
    let (number, proof) = (text("orderNumber"), text("verification"));
    let order = match portal::find(ctx, &portal, &number, &proof).await {
        Ok(Some(order)) => order,
        Ok(None) => {
            let words = locale::catalogue(language);
            return render(
                StatusCode::OK,
                language,
                Some(&portal),
                context! {
                    step => "find",
                    message => words.get("portal_not_found"),
                    problem => true,
                    order_number => number,
                    verification => proof,
                },
            );
        }
        Err(err) => return failed(language, Some(&portal), &err),
    };
    if text("step") != "return" {
        return pick(language, &portal, &order, &proof, &[], None);
    }
    let picks = match picks(&fields, &portal, &order) {
        Ok(picks) => picks,
        Err((picks, problem)) => {
            return pick(language, &portal, &order, &proof, &picks, Some(problem));
        }
    };
    let return_id = text("returnId");
    match portal::create(ctx, &portal, &order, &picks, language, &return_id).await {
        Ok(booked) => {
            let words = locale::catalogue(language);
            let tracking_url = booked.shipment.shipment.body.tracking_url.clone();
            let token = tracking_url
                .as_deref()
                .and_then(|url| url.rsplit('/').next())
                .unwrap_or_default()
                .to_string();
            render(
                StatusCode::OK,
                language,
                Some(&portal),
                context! {
                    step => "done",
                    label_url => format!("/r/{}/labels/{token}", portal.slug),
                    tracking_url,
                    emailed => booked.emailed_to.map(|to| words.get("portal_emailed").replace("{email}", &to)),
                },
            )
        }
        Err(err) => failed(language, Some(&portal), &err),
    }
}

/// The picks of the form: at least one line with a quantity, each with a reason when the portal
/// offers reasons; else what was picked and the problem.
fn picks(
    fields: &[(String, String)],
    portal: &Portal,
    order: &Found,
) -> Result<Vec<Pick>, (Vec<Pick>, &'static str)> {
    let mut picks = Vec::new();
    let mut problem = None;
    for (at, line) in order.lines.iter().enumerate() {
        let quantity = field(fields, &format!("quantity-{at}"))
            .and_then(|q| q.trim().parse::<i64>().ok())
            .unwrap_or(0)
            .clamp(0, line.quantity);
        let reason = field(fields, &format!("reason-{at}"))
            .map(str::trim)
            .filter(|r| portal.reasons.iter().any(|offered| offered == r))
            .unwrap_or_default()
            .to_string();
        if quantity == 0 {
            continue;
        }
        if reason.is_empty() && !portal.reasons.is_empty() {
            problem = Some("portal_no_reason");
        }
        picks.push(Pick {
            line: at,
            quantity,
            reason,
        });
    }
    match (picks.is_empty(), problem) {
        (true, _) => Err((picks, "portal_none_picked")),
        (false, Some(problem)) => Err((picks, problem)),
        (false, None) => Ok(picks),
    }
}

/// The lines to pick from, with what was picked before and the problem with it.
fn pick(
    language: &'static str,
    portal: &Portal,
    order: &Found,
    proof: &str,
    picked: &[Pick],
    problem: Option<&str>,
) -> Response {
    let words = locale::catalogue(language);
    let lines: Vec<Value> = order
        .lines
        .iter()
        .enumerate()
        .map(|(at, line)| {
            let before = picked.iter().find(|p| p.line == at);
            context! {
                name => line.name.clone(),
                sku => line.sku.clone(),
                quantity => line.quantity,
                picked => before.map_or(0, |p| p.quantity),
                reason => before.map(|p| p.reason.clone()),
            }
        })
        .collect();
    render(
        if problem.is_some() {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        },
        language,
        Some(portal),
        context! {
            step => "pick",
            message => problem.map(|key| words.get(key)),
            problem => problem.is_some(),
            order_number => order.order_number.clone(),
            verification => proof,
            return_id => ids::new(ids::SHIPMENT),
            lines,
            reasons => portal.reasons.clone(),
        },
    )
}

/// `GET /r/{slug}/labels/{token}`: the label of a return booked in the portal, by its tracking
/// token (only the customer who booked it was shown the link).
#[handler]
pub async fn label(Data(ctx): Data<&Ctx>, Path((slug, token)): Path<(String, String)>) -> Response {
    let found = match portal::open(ctx, &slug).await {
        Ok(Some(portal)) => tracking_page::return_label(ctx, &portal.org_id, &token).await,
        _ => Ok(None),
    };
    match found {
        Ok(Some((name, pdf))) => Response::builder()
            .content_type("application/pdf")
            .header(
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{name}\""),
            )
            .header(header::CACHE_CONTROL, "private, no-store")
            .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
            .body(pdf),
        Ok(None) => Response::builder().status(StatusCode::NOT_FOUND).finish(),
        Err(err) => {
            tracing::error!(error = %err, "cannot serve a return label");
            Response::builder()
                .status(StatusCode::INTERNAL_SERVER_ERROR)
                .finish()
        }
    }
}

/// `GET /r/{slug}/brand.css`: the organization's colour for the header.
#[handler]
pub async fn brand_css(Data(ctx): Data<&Ctx>, Path(slug): Path<String>) -> Response {
    let color = match portal::open(ctx, &slug).await {
        Ok(Some(portal)) => portal.color,
        _ => crate::model::branding::DEFAULT_COLOR.to_string(),
    };
    crate::web::tracking::brand_stylesheet(&color)
}

fn language_of(req: &Request) -> &'static str {
    let accept = req
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    locale::choose(None, accept, None)
}

fn closed(language: &'static str) -> Response {
    render(
        StatusCode::NOT_FOUND,
        language,
        None,
        context! { step => "closed" },
    )
}

fn too_many(language: &'static str, portal: &Portal, wait: i64) -> Response {
    let words = locale::catalogue(language);
    let mut response = render(
        StatusCode::TOO_MANY_REQUESTS,
        language,
        Some(portal),
        context! { step => "message", message => words.get("portal_too_many"), problem => true },
    );
    if let Ok(value) = wait.to_string().parse() {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

fn failed(language: &'static str, portal: Option<&Portal>, err: &crate::error::Error) -> Response {
    tracing::warn!(error = %err, "the returns portal could not do what was asked");
    let words = locale::catalogue(language);
    let status = match err {
        crate::error::Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::CONFLICT,
    };
    render(
        status,
        language,
        portal,
        context! { step => "message", message => words.get("portal_failed"), problem => true },
    )
}

fn render(
    status: StatusCode,
    language: &'static str,
    portal: Option<&Portal>,
    values: Value,
) -> Response {
    let words = locale::catalogue(language);
    let shop = portal.map(|p| p.shop.clone());
    let title = match &shop {
        Some(shop) => words.get("portal_title").replace("{shop}", shop),
        None => words.get("portal_closed_title").to_string(),
    };
    let values = context! {
        lang => language,
        title,
        shop,
        slug => portal.map(|p| p.slug.clone()),
        brand_css => portal.map(|p| format!("/r/{}/brand.css", p.slug)),
        words => Value::from(minijinja::value::Serde(&words.words)),
        ..values
    };
    let html = templates()
        .get_template("customer/portal.html")
        .and_then(|template| template.render(values))
        .unwrap_or_else(|err| {
            tracing::error!(error = %err, "cannot render the returns portal");
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
