//! `/settings/apps`, Apps & integrations (SPEC §5, DESIGN §14): the card "MCP (AI agents)" lists
//! the signed-in user's agent connections, each with a Disconnect form.

use minijinja::{Value, context};
use poem::{
    Request, Response, handler,
    http::StatusCode,
    web::{Data, Path},
};
use serde::Serialize;

use crate::{
    error::Error,
    model::time,
    service::{
        Ctx,
        oauth::{self, connections},
    },
    web::{
        login::expired_form,
        page::{Visit, field, form_fields, see_other, to_value},
    },
};

const PAGE: &str = "/settings/apps";

#[derive(Serialize)]
struct Row {
    id: String,
    client_name: String,
    org_name: String,
    permissions: usize,
    last_used: String,
}

#[handler]
pub async fn settings() -> Response {
    see_other(PAGE)
}

#[handler]
pub async fn show(req: &Request, Data(ctx): Data<&Ctx>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    let Some((actor, _)) = visit.signed_in.clone() else {
        return see_other("/login?next=%2Fsettings%2Fapps");
    };
    let list = match connections::list(ctx, &actor).await {
        Ok(list) => list,
        Err(err) => return visit.failed(req, err),
    };
    let now = ctx.clock.now();
    let rows: Vec<Value> = list
        .into_iter()
        .map(|c| {
            to_value(Row {
                last_used: c
                    .last_used_at
                    .as_deref()
                    .and_then(time::parse)
                    .map_or_else(|| "never".into(), |at| ago(now, at)),
                id: c.id,
                client_name: c.client_name,
                org_name: c.org_name,
                permissions: c.permissions,
            })
        })
        .collect();
    let notice = visit.take_notice(req);
    visit.render(
        req,
        StatusCode::OK,
        "apps.html",
        context! {
            connections => rows,
            connector => format!("{}{}", oauth::issuer(ctx), oauth::MCP_PATH),
            notice,
        },
    )
}

#[handler]
pub async fn disconnect(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(id): Path<String>,
    body: Vec<u8>,
) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    if !visit.csrf_ok(field(&form_fields(&body), "csrf_token")) {
        return expired_form(&mut visit, req);
    }
    let Some((actor, _)) = visit.signed_in.clone() else {
        return see_other("/login?next=%2Fsettings%2Fapps");
    };
    match connections::disconnect(ctx, &actor, &id).await {
        Ok(name) => {
            visit.leave_notice(req, &format!("{name} is disconnected: its access ended."));
            see_other(PAGE)
        }
        Err(Error::NotFound) => visit.error(
            req,
            StatusCode::NOT_FOUND,
            "No such connection",
            "This agent is not connected to your account (any more).",
        ),
        Err(err) => visit.failed(req, err),
    }
}

/// "3 minutes ago", "2 days ago": when something happened, in words.
fn ago(now: time::Timestamp, then: time::Timestamp) -> String {
    let seconds = (now - then).whole_seconds().max(0);
    let (amount, unit) = match seconds {
        0..60 => return "just now".into(),
        60..3_600 => (seconds / 60, "minute"),
        3_600..86_400 => (seconds / 3_600, "hour"),
        _ => (seconds / 86_400, "day"),
    };
    format!("{amount} {unit}{} ago", if amount == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_words() {
        let now = ::time::OffsetDateTime::UNIX_EPOCH + ::time::Duration::days(10);
        let at = |s: i64| now - ::time::Duration::seconds(s);
        assert_eq!(ago(now, at(5)), "just now");
        assert_eq!(ago(now, at(60)), "1 minute ago");
        assert_eq!(ago(now, at(7_200)), "2 hours ago");
        assert_eq!(ago(now, at(3 * 86_400)), "3 days ago");
    }
}
