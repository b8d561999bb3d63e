//! Settings → E-mails to receivers (DESIGN §20, §21): each event's e-mail on or off, with its
//! subject and text templates, saved through the same `update_notification_settings` operation
//! as REST, and a preview of one event's e-mail in a chosen language rendered by
//! `preview_notification` from what the form holds (saved or not).

use std::collections::BTreeMap;

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path},
};
use serde_json::{Map, Value, json};

use super::{form_values, is_refusal, problems_at};
use crate::{
    error::Error,
    model::{locale, notification::NotificationSettings},
    service::{Ctx, input_value, notifications, operations as ops},
    web::{app::Desk, page::see_other},
};

const PATH: &str = "settings/notifications";

/// The events as the page names them.
const EVENTS: [(&str, &str); 4] = [
    ("booked", "Booked: the parcel is on its way"),
    ("outForDelivery", "Out for delivery"),
    ("delivered", "Delivered"),
    ("exception", "A problem on the way"),
];

#[handler]
pub async fn show(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let current = match notifications::get(ctx, &desk.actor, &org).await {
        Ok(current) => current,
        Err(err) => return desk.refused(req, err),
    };
    let values = values_of(&current);
    page(&mut desk, req, &values, &BTreeMap::new(), None).await
}

/// `POST /app/{orgId}/settings/notifications`: `action` is `save`, or `preview-<event>` with
/// `previewLanguage` (nothing saved).
#[handler]
pub async fn submit(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(org): Path<String>,
    body: Vec<u8>,
) -> Response {
    let (mut desk, fields) = match Desk::open_form(req, ctx, &org, &body).await {
        Ok(opened) => opened,
        Err(answer) => return answer,
    };
    let values = form_values(&fields);
    let action = values
        .get("action")
        .cloned()
        .unwrap_or_else(|| "save".into());
    if let Some(event) = action.strip_prefix("preview-") {
        let setting = setting_of(&values, event);
        let request = json!({
            "event": event,
            "language": values.get("previewLanguage").cloned().unwrap_or_else(|| "en".into()),
            "subject": setting["subject"],
            "text": setting["text"],
        });
        return match notifications::preview(ctx, &desk.actor, &org, input_value(request)).await {
            Ok(shown) => {
                let preview = context! {
                    event => event, subject => shown.subject, text => shown.text,
                    language => shown.language,
                };
                page(&mut desk, req, &values, &BTreeMap::new(), Some(preview)).await
            }
            Err(Error::Validation(problems)) => {
                let errors = problems_at(problems, |f| {
                    matches!(f, "subject" | "text").then(|| format!("{event}.{f}"))
                });
                page(&mut desk, req, &values, &errors, None).await
            }
            Err(err) => desk.refused(req, err),
        };
    }
    let settings: Map<String, Value> = EVENTS
        .iter()
        .map(|(event, _)| (event.to_string(), setting_of(&values, event)))
        .collect();
    match notifications::update(ctx, &desk.actor, &org, input_value(Value::Object(settings))).await
    {
        Ok(_) => {
            desk.visit
                .leave_notice(req, "The e-mail settings are saved.");
            see_other(&desk.path(PATH))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, |f| Some(f.to_string()));
            page(&mut desk, req, &values, &errors, None).await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            page(&mut desk, req, &values, &errors, None).await
        }
    }
}

/// One event's setting from the form: a box for on, empty templates for the built-in words.
fn setting_of(values: &BTreeMap<String, String>, event: &str) -> Value {
    let text = |field: &str| {
        values
            .get(&format!("{event}.{field}"))
            .filter(|v| !v.is_empty())
            .map_or(Value::Null, |v| json!(v))
    };
    json!({
        "enabled": values.contains_key(&format!("{event}.enabled")),
        "subject": text("subject"),
        "text": text("text"),
    })
}

/// The form's values of stored settings.
fn values_of(settings: &NotificationSettings) -> BTreeMap<String, String> {
    let mut values = BTreeMap::new();
    for (event, setting) in settings.each() {
        if setting.enabled {
            values.insert(format!("{event}.enabled"), "on".into());
        }
        for (field, value) in [("subject", &setting.subject), ("text", &setting.text)] {
            if let Some(value) = value {
                values.insert(format!("{event}.{field}"), value.clone());
            }
        }
    }
    values
}

async fn page(
    desk: &mut Desk,
    req: &Request,
    values: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
    preview: Option<minijinja::Value>,
) -> Response {
    let english = locale::catalogue("en");
    let events: Vec<minijinja::Value> = EVENTS
        .iter()
        .map(|(event, title)| {
            let key = match *event {
                "outForDelivery" => "out_for_delivery",
                other => other,
            };
            context! {
                id => *event, title => *title,
                enabled => values.contains_key(&format!("{event}.enabled")),
                subject => values.get(&format!("{event}.subject")).cloned().unwrap_or_default(),
                text => values.get(&format!("{event}.text")).cloned().unwrap_or_default(),
                default_subject => english.get(&format!("mail_{key}_subject")),
                subject_error => errors.get(&format!("{event}.subject")),
                text_error => errors.get(&format!("{event}.text")),
            }
        })
        .collect();
    let languages: Vec<minijinja::Value> = locale::catalogues()
        .iter()
        .map(|c| context! { code => c.code, name => c.get("language") })
        .collect();
    let notice = desk.visit.take_notice(req);
    let may_change = desk.may(&ops::UPDATE_NOTIFICATION_SETTINGS);
    desk.render(
        req,
        "app/notifications.html",
        "settings",
        context! {
            events, languages, preview, notice, may_change,
            preview_language => values.get("previewLanguage").cloned().unwrap_or_else(|| "en".into()),
            general => errors.get(""),
        },
    )
}
