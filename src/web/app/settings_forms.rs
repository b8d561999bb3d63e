//! The forms of Settings (DESIGN §20). An add form posts its resource's create body, so the
//! create operation checks it; what it makes that is shown only once (an API token, a webhook's
//! signing secret, a Shopify channel's secret) is shown on the page that answers the form,
//! never left in a cookie or the log. A button under a list (a test print, a test send, a
//! replay, a member's role or removal) posts an `action`, answered with a notice.

use std::collections::BTreeMap;

use poem::{
    Request, Response, handler,
    web::{Data, Path},
};
use serde_json::{Value, json};

use super::{
    Desk, form_values, is_refusal, problems_at,
    settings::{page_with_secret, settings_page},
};
use crate::{
    error::Error,
    service::{self, Ctx, input_value},
    web::page::{field, see_other},
};

/// `text` split at spaces and commas, as a JSON list.
fn list(text: &str) -> Value {
    json!(
        text.split([' ', ','])
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
    )
}

#[handler]
pub async fn submit(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, page)): Path<(String, String)>,
    body: Vec<u8>,
) -> Response {
    let (mut desk, fields) = match Desk::open_form(req, ctx, &org, &body).await {
        Ok(opened) => opened,
        Err(answer) => return answer,
    };
    let values = form_values(&fields);
    let mut body: serde_json::Map<String, Value> =
        values.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    let actor = desk.actor.clone();
    if let Some(action) = field(&fields, "action") {
        let id = field(&fields, "id").unwrap_or_default().to_string();
        let done = match action {
            "test_webhook" => service::webhooks::test(ctx, &actor, &org, &id)
                .await
                .map(|d| {
                    if d.success {
                        "The test event was delivered.".to_string()
                    } else {
                        format!(
                            "The test event was not delivered: {}",
                            d.error.unwrap_or_else(|| "the endpoint refused it".into())
                        )
                    }
                }),
            "print_test_page" => service::printing::print_test_page(ctx, &actor, &org, &id)
                .await
                .map(|job| {
                    format!(
                        "A test page is queued (job {}); it shows in the printer's jobs below.",
                        job.id
                    )
                }),
            "replay_webhook_delivery" => {
                let webhook = field(&fields, "webhook").unwrap_or_default();
                service::webhooks::replay(ctx, &actor, &org, webhook, &id)
                    .await
                    .map(|queued| {
                        format!(
                            "The {} event {} is queued to be sent again; its attempts show in the log below.",
                            queued.event_type, queued.event_id
                        )
                    })
            }
            "member_role" => {
                let role = field(&fields, "role").unwrap_or_default();
                let patch = json!({ "role": role });
                service::members::update(ctx, &actor, &org, &id, input_value(patch))
                    .await
                    .map(|m| format!("{} is now {}.", m.name, m.role))
            }
            "member_remove" => service::members::remove(ctx, &actor, &org, &id)
                .await
                .map(|()| "The member is removed; their access ended at once.".to_string()),
            _ => Err(Error::invalid("action", "no such action")),
        };
        return match done {
            Ok(notice) => {
                desk.visit.leave_notice(req, &notice);
                see_other(&desk.path(&format!("settings/{page}")))
            }
            Err(err) if is_refusal(&err) => desk.refused(req, err),
            Err(err) => {
                let errors = BTreeMap::from([(String::new(), err.to_string())]);
                settings_page(&mut desk, req, ctx, &page, &BTreeMap::new(), &errors).await
            }
        };
    }
    let mut secret = None;
    let made = match page.as_str() {
        "sender-addresses" => {
            let input = input_value(Value::Object(body));
            service::sender_addresses::create(ctx, &actor, &org, input)
                .await
                .map(|_| ())
        }
        "carriers" => {
            // `config.<key>` inputs become the config object; empty ones are left out.
            let mut config = serde_json::Map::new();
            body.retain(|key, value| match key.strip_prefix("config.") {
                Some(name) => {
                    if value.as_str().is_some_and(|v| !v.is_empty()) {
                        config.insert(name.to_string(), value.clone());
                    }
                    false
                }
                None => true,
            });
            body.insert("config".into(), Value::Object(config));
            let input = input_value(Value::Object(body));
            service::carriers::create(ctx, &actor, &org, input)
                .await
                .map(|_| ())
        }
        "printers" => {
            let input = input_value(Value::Object(body));
            service::printers::create(ctx, &actor, &org, input)
                .await
                .map(|_| ())
        }
        "api-tokens" => {
            let scopes = values.get("scopes").map(|s| list(s)).unwrap_or_default();
            body.insert("scopes".into(), scopes);
            let input = input_value(Value::Object(body));
            service::api_tokens::create(ctx, &actor, &org, input)
                .await
                .map(|made| {
                    secret = Some(("The token (shown only now)".to_string(), made.token));
                })
        }
        "members" => {
            let input = input_value(Value::Object(body));
            service::members::add(ctx, &actor, &org, input)
                .await
                .map(|_| ())
        }
        "webhooks" => {
            let events = values.get("events").map(|s| list(s)).unwrap_or_default();
            body.insert("events".into(), events);
            body.insert("isActive".into(), json!(true));
            let input = input_value(Value::Object(body));
            service::webhooks::create(ctx, &actor, &org, input)
                .await
                .map(|hook| {
                    secret = Some((
                        "The signing secret (shown only now)".to_string(),
                        hook.secret,
                    ));
                })
        }
        "order-channels" => {
            if values.get("shopDomain").is_none_or(|d| d.is_empty()) {
                body.remove("shopDomain");
            }
            let input = input_value(Value::Object(body));
            service::order_channels::create(ctx, &actor, &org, input)
                .await
                .map(|channel| {
                    secret = channel
                        .webhook_secret
                        .map(|s| ("The Shopify webhook secret (shown only now)".to_string(), s));
                })
        }
        _ => Err(Error::NotFound),
    };
    match made {
        Ok(()) if secret.is_some() => {
            page_with_secret(
                &mut desk,
                req,
                ctx,
                &page,
                &BTreeMap::new(),
                &BTreeMap::new(),
                secret,
            )
            .await
        }
        Ok(()) => {
            desk.visit.leave_notice(req, "Added.");
            see_other(&desk.path(&format!("settings/{page}")))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, |f| values.contains_key(f).then(|| f.to_string()));
            settings_page(&mut desk, req, ctx, &page, &values, &errors).await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            settings_page(&mut desk, req, ctx, &page, &values, &errors).await
        }
    }
}
