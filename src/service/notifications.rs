//! Receivers' e-mail settings and their words (DESIGN §21): which events are written about,
//! the templates that replace the built-in subject and text, and a preview that renders one.
//! The templates are minijinja, given `shipment` (its public form), `organization` (`name`, as
//! the branding shows it), `trackingUrl` and `language`.

use minijinja::{Environment, Value, context};

use crate::{
    error::{Error, Result},
    model::{
        locale,
        notification::{EVENTS, NotificationPreview, NotificationPreviewIn, NotificationSettings},
        validate::Violations,
    },
    service::{Actor, Ctx, Input, operations as ops, shipments},
    store,
};

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str) -> Result<NotificationSettings> {
    actor.authorize(org_id, &ops::GET_NOTIFICATION_SETTINGS)?;
    let org_id = org_id.to_string();
    ctx.db.point(move |db| {
        store::orgs::get(db, &org_id)?.ok_or(Error::NotFound)?;
        store::notification_settings::get(db, &org_id)
    })
}

/// Replaces the settings; an event left out is off with the built-in words. Every template
/// must compile.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<NotificationSettings>,
) -> Result<NotificationSettings> {
    let grant = actor.authorize(org_id, &ops::UPDATE_NOTIFICATION_SETTINGS)?;
    let settings = input.get()?;
    let mut errors = Violations::new();
    settings.check(&mut errors);
    for (event, setting) in settings.each() {
        for (field, source) in [("subject", &setting.subject), ("text", &setting.text)] {
            if let Some(source) = source
                && let Err(problem) = compile(source)
            {
                errors.add(format!("{event}.{field}"), problem);
            }
        }
    }
    errors.finish()?;
    let (org_id, now) = (org_id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        store::orgs::get(tx, &org_id)?.ok_or(Error::NotFound)?;
        store::notification_settings::save(tx, &org_id, &settings, &now)?;
        Ok(settings)
    })
    .await
}

/// One event's e-mail as it would be sent.
pub async fn preview(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<NotificationPreviewIn>,
) -> Result<NotificationPreview> {
    actor.authorize(org_id, &ops::PREVIEW_NOTIFICATION)?;
    let request = input.get()?;
    let mut errors = Violations::new();
    errors.one_of("event", &request.event, &EVENTS);
    if let Some(language) = &request.language {
        errors.one_of("language", language, &locale::LANGUAGES);
    }
    errors.finish()?;
    let shipment = match &request.shipment_id {
        Some(id) => Some(shipments::get(ctx, actor, org_id, id).await.map_err(
            |err| match err {
                Error::NotFound => {
                    Error::invalid("shipmentId", "no such shipment in this organization")
                }
                other => other,
            },
        )?),
        None => None,
    };
    let org = org_id.to_string();
    let (settings, name) = ctx.db.point(move |db| {
        let (org_name, stored) = store::branding::get(db, &org)?.ok_or(Error::NotFound)?;
        let settings = store::notification_settings::get(db, &org)?;
        Ok((settings, stored.shown(&org_name).display_name))
    })?;
    let shipment_json = match &shipment {
        Some(s) => poem_openapi::types::ToJSON::to_json(s).unwrap_or_default(),
        None => example_shipment(ctx),
    };
    let language = locale::choose(
        request
            .language
            .as_deref()
            .or_else(|| shipment_json["language"].as_str()),
        None,
        None,
    );
    let values = values(&shipment_json, &name, language);
    let stored = settings.of(&request.event).cloned().unwrap_or_default();
    let (subject, text) = words(
        &request.event,
        language,
        request.subject.or(stored.subject),
        request.text.or(stored.text),
        &values,
    );
    let mut errors = Violations::new();
    let subject = subject.unwrap_or_else(|problem| {
        errors.add("subject", problem);
        String::new()
    });
    let text = text.unwrap_or_else(|problem| {
        errors.add("text", problem);
        String::new()
    });
    errors.finish()?;
    Ok(NotificationPreview {
        event: request.event,
        language: language.to_string(),
        subject,
        text,
    })
}

/// What the templates are given: the shipment in its public form, the organization's name
/// as customers see it, the shipment's tracking page and the language.
pub(crate) fn values(shipment: &serde_json::Value, shop: &str, language: &str) -> Value {
    let tracking_url = shipment["trackingUrl"].as_str().unwrap_or_default();
    context! {
        shipment => Value::from(minijinja::value::Serde(shipment)),
        organization => context! { name => shop },
        trackingUrl => tracking_url,
        language => language,
    }
}

/// The subject (one line) and text of an event's e-mail (`event` as the settings name it) in
/// `language`: from the templates given, else the built-in ones; each, or why it cannot be
/// rendered.
pub(crate) fn words(
    event: &str,
    language: &str,
    subject: Option<String>,
    text: Option<String>,
    values: &Value,
) -> (
    std::result::Result<String, String>,
    std::result::Result<String, String>,
) {
    let key = catalogue_key(event);
    let built_in = locale::catalogue(language);
    let subject = subject.unwrap_or_else(|| built_in.get(&format!("mail_{key}_subject")).into());
    let text = text.unwrap_or_else(|| built_in.get(&format!("mail_{key}_text")).into());
    (
        render(&subject, values)
            .map(|subject| subject.split_whitespace().collect::<Vec<_>>().join(" ")),
        render(&text, values),
    )
}

/// The e-mail of a return booked in the returns portal, with its label (built-in words only).
pub(crate) const RETURN_LABEL: &str = "return";

/// The catalogue's name of an event (`outForDelivery` → `out_for_delivery`).
fn catalogue_key(event: &str) -> &'static str {
    match event {
        "outForDelivery" => "out_for_delivery",
        "delivered" => "delivered",
        "exception" => "exception",
        RETURN_LABEL => RETURN_LABEL,
        _ => "booked",
    }
}

/// A shipment for previews when none is named.
fn example_shipment(ctx: &Ctx) -> serde_json::Value {
    serde_json::json!({
        "id": "shp_example",
        "reference": "ORDER-1001",
        "status": "processing",
        "trackingUrl": format!("{}/t/EXAMPLExEXAMPLExEXAMP", ctx.config.base_url()),
        "parcels": [{"trackingNumber": "SBX0000000001"}],
    })
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // Plain text: nothing is escaped.
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env
}

/// Whether `source` is a template; the parser's complaint when not.
fn compile(source: &str) -> std::result::Result<(), String> {
    environment()
        .template_from_str(source)
        .map(drop)
        .map_err(|e| format!("not a valid template: {e}"))
}

pub(crate) fn render(source: &str, values: &Value) -> std::result::Result<String, String> {
    let env = environment();
    let template = env
        .template_from_str(source)
        .map_err(|e| format!("not a valid template: {e}"))?;
    template
        .render(values)
        .map_err(|e| format!("cannot be rendered: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_template_renders_in_every_language() {
        let values = context! {
            shipment => context! { reference => "R-1" },
            organization => context! { name => "Nordic Mugs" },
            trackingUrl => "https://ship.example.com/t/x",
        };
        for language in locale::LANGUAGES {
            let words = locale::catalogue(language);
            for event in EVENTS {
                let key = catalogue_key(event);
                for part in ["subject", "text"] {
                    let source = words.get(&format!("mail_{key}_{part}"));
                    let out = render(source, &values)
                        .unwrap_or_else(|e| panic!("{language} {event}: {e}"));
                    assert!(
                        out.contains("Nordic Mugs"),
                        "{language} {event} {part}: {out}"
                    );
                    if part == "text" {
                        assert!(
                            out.contains("https://ship.example.com/t/x") && out.contains("R-1")
                        );
                    }
                }
            }
        }
        assert!(compile("{{ shipment.reference ").is_err());
    }
}
