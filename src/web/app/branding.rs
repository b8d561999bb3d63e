//! Settings → Branding (DESIGN §20, §21): the name, colour and logo customers see, changed
//! with a form that uploads the logo (multipart, so the file is sent as it is) through the
//! same `update_branding` operation as REST; and the logo as a file for the pages (`<img src>`),
//! with its own media type and headers that keep an SVG from running or loading anything even
//! when opened on its own.

use std::collections::BTreeMap;

use base64::{Engine, engine::general_purpose::STANDARD};
use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Multipart, Path},
};
use serde_json::{Map, Value, json};

use super::{is_refusal, problems_at};
use crate::{
    error::Error,
    service::{Ctx, branding, input_value, operations as ops},
    web::{app::Desk, login::expired_form, page::see_other},
};

#[handler]
pub async fn show(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    page(&mut desk, req, ctx, &BTreeMap::new(), &BTreeMap::new()).await
}

/// The page, with `values` typed and `errors` at their inputs.
async fn page(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    values: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
) -> Response {
    let current = match branding::get(ctx, &desk.actor, &desk.org_id).await {
        Ok(current) => current,
        Err(err) => return desk.refused(req, err),
    };
    let value = |key: &str, stored: &str| values.get(key).cloned().unwrap_or(stored.to_string());
    let notice = desk.visit.take_notice(req);
    let may_change = desk.may(&ops::UPDATE_BRANDING);
    desk.render(
        req,
        "app/branding.html",
        "settings",
        context! {
            display_name => value("displayName", &current.display_name),
            color => value("color", &current.color),
            has_logo => current.logo.is_some(),
            logo_version => current.updated_at.unwrap_or_default(),
            errors => crate::web::page::to_value(errors), general => errors.get(""),
            notice, may_change,
        },
    )
}

/// `POST /app/{orgId}/settings/branding` (multipart): `displayName`, `color`, a `logo` file
/// (none chosen keeps the logo) and `removeLogo`.
#[handler]
pub async fn submit(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(org): Path<String>,
    mut form: Multipart,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let mut values = BTreeMap::new();
    let mut upload: Option<Vec<u8>> = None;
    loop {
        match form.next_field().await {
            Ok(Some(field)) => {
                let name = field.name().unwrap_or_default().to_string();
                let bytes = match field.bytes().await {
                    Ok(bytes) => bytes,
                    Err(_) => {
                        return desk.refused(req, Error::invalid("logo", "the upload broke off"));
                    }
                };
                if name == "logo" {
                    upload = Some(bytes).filter(|b| !b.is_empty());
                } else {
                    values.insert(name, String::from_utf8_lossy(&bytes).trim().to_string());
                }
            }
            Ok(None) => break,
            Err(_) => {
                return desk.refused(req, Error::invalid("logo", "the form could not be read"));
            }
        }
    }
    if !desk
        .visit
        .csrf_ok(values.get("csrf_token").map(String::as_str))
    {
        return expired_form(&mut desk.visit, req);
    }
    let mut change = Map::new();
    for key in ["displayName", "color"] {
        if let Some(value) = values.get(key) {
            change.insert(key.into(), json!(value));
        }
    }
    if values.contains_key("removeLogo") {
        change.insert("logo".into(), Value::Null);
    } else if let Some(bytes) = upload {
        change.insert("logo".into(), json!(STANDARD.encode(bytes)));
    }
    let input = input_value(Value::Object(change));
    match branding::update(ctx, &desk.actor, &org, input).await {
        Ok(_) => {
            desk.visit.leave_notice(req, "The branding is saved.");
            see_other(&desk.path("settings/branding"))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, |f| {
                ["displayName", "color", "logo"]
                    .contains(&f)
                    .then(|| f.to_string())
            });
            page(&mut desk, req, ctx, &values, &errors).await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            page(&mut desk, req, ctx, &values, &errors).await
        }
    }
}

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
