//! A confirmation before an agent spends money: in the 2026-07-28 revision, a call
//! of a tool that buys a label from a carrier first answers `input_required` with a form asking
//! the person using the agent, when the client declared it can show forms (`elicitation`) and the
//! organization's `agents.confirm_costly` is on. The client calls again with the person's answer
//! and the `requestState` it was given; nothing is kept on the server in between. The state is
//! signed and names the tool, its arguments, the organization, the credential and an expiry, so
//! an answer to one question never lets another call through.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde_json::{Map, Value, json};

use crate::{
    error::Error,
    mcp::{
        catalog::Tool,
        dispatch::Outcome,
        era::META_CAPABILITIES,
        jsonrpc::{Failure, INTERNAL_ERROR, INVALID_PARAMS, Message},
    },
    service::{Actor, Ctx, access::actor::Principal, operations, shipments},
};

/// The key of the one input request.
pub const REQUEST_KEY: &str = "confirm";
/// The form's one field.
const FIELD: &str = "confirm";
/// How long a question stays answerable.
const TTL_SECONDS: i64 = 15 * 60;
const PURPOSE: &str = "mcp confirmation";

/// What to do with a call.
#[derive(Debug)]
pub enum Gate {
    /// Run it.
    Proceed,
    /// Answer with this `input_required` result (the server's identity still to be added).
    Ask(Value),
    /// The person said no: answer with this error result, book nothing.
    Declined(Outcome),
}

/// Whether `tool` may run now, must ask first, or was turned down.
pub async fn gate(
    ctx: &Ctx,
    message: &Message,
    actor: &Actor,
    org_id: &str,
    tool: &Tool,
    arguments: &Map<String, Value>,
) -> Result<Gate, Failure> {
    if !operations::SPENDS_MONEY.contains(&tool.operation) || !can_ask(message) {
        return Ok(Gate::Proceed);
    }
    let Some(shipment_id) = arguments.get("shipmentId").and_then(Value::as_str) else {
        return Ok(Gate::Proceed);
    };
    let question =
        match shipments::confirmation(ctx, actor, org_id, tool.operation, shipment_id).await {
            Ok(Some(question)) => question,
            Ok(None) => return Ok(Gate::Proceed),
            // The call itself reports what is wrong, as the REST API would.
            Err(
                Error::NotFound
                | Error::Forbidden(_)
                | Error::InsufficientScope(_)
                | Error::Unauthenticated,
            ) => return Ok(Gate::Proceed),
            Err(err) => {
                return Err(Failure::new(
                    poem::http::StatusCode::OK,
                    message.id.clone(),
                    INTERNAL_ERROR,
                    format!("Internal error: {err}"),
                ));
            }
        };
    let call = Call {
        tool: tool.operation.id,
        org_id,
        credential: credential(actor),
        arguments,
    };
    let now = ctx.clock.now().unix_timestamp();
    let ask = || Gate::Ask(input_required(ctx, &call, &question, now));
    let Some(state) = message.params.get("requestState") else {
        return Ok(ask());
    };
    match check_state(ctx, &call, state, now) {
        State::Forged => Err(Failure::new(
            poem::http::StatusCode::OK,
            message.id.clone(),
            INVALID_PARAMS,
            "Invalid params: requestState was not issued for this call; call the tool again without it",
        )),
        State::Expired => Ok(ask()),
        State::Valid => match answer(message) {
            Answer::Missing => Ok(ask()),
            Answer::Yes => Ok(Gate::Proceed),
            Answer::No => Ok(Gate::Declined(declined(tool.operation.id))),
        },
    }
}

/// Whether the client declared it can show a form: `elicitation` with `form`, or with neither
/// mode named (which means form).
fn can_ask(message: &Message) -> bool {
    let capabilities = message
        .params
        .get("_meta")
        .and_then(|m| m.get(META_CAPABILITIES));
    match capabilities
        .and_then(|c| c.get("elicitation"))
        .and_then(Value::as_object)
    {
        Some(modes) => modes.contains_key("form") || !modes.contains_key("url"),
        None => false,
    }
}

/// Who is calling: the connection or token the answer is bound to.
fn credential(actor: &Actor) -> String {
    match &actor.principal {
        Principal::Connection { connection_id, .. } => connection_id.clone(),
        Principal::ApiToken { token_id, .. } => token_id.clone(),
        other => format!("{other:?}"),
    }
}

/// The call a question is about.
struct Call<'a> {
    tool: &'a str,
    org_id: &'a str,
    credential: String,
    arguments: &'a Map<String, Value>,
}

impl Call<'_> {
    /// What the signature covers: the call and the expiry.
    fn signed(&self, expires: i64) -> Vec<u8> {
        json!([
            self.tool,
            self.org_id,
            self.credential,
            canonical(&Value::Object(self.arguments.clone())),
            expires
        ])
        .to_string()
        .into_bytes()
    }
}

/// `value` with every object's keys sorted, so that the same arguments sign the same whatever
/// order a client sends them in.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let sorted: Map<String, Value> = keys
                .into_iter()
                .map(|k| (k.clone(), canonical(&map[k])))
                .collect();
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// `<expiry>.<signature>`, both URL-safe.
fn state(ctx: &Ctx, call: &Call, expires: i64) -> String {
    let tag = ctx.vault.tag(PURPOSE, &call.signed(expires));
    format!("{expires}.{}", URL_SAFE_NO_PAD.encode(tag))
}

enum State {
    Valid,
    Expired,
    Forged,
}

fn check_state(ctx: &Ctx, call: &Call, state: &Value, now: i64) -> State {
    let parsed = state
        .as_str()
        .and_then(|s| s.split_once('.'))
        .and_then(|(expires, tag)| {
            Some((
                expires.parse::<i64>().ok()?,
                URL_SAFE_NO_PAD.decode(tag).ok()?,
            ))
        });
    let Some((expires, tag)) = parsed else {
        return State::Forged;
    };
    if !ctx.vault.check_tag(PURPOSE, &call.signed(expires), &tag) {
        State::Forged
    } else if expires < now {
        State::Expired
    } else {
        State::Valid
    }
}

enum Answer {
    Missing,
    Yes,
    No,
}

/// The person's answer in `inputResponses`: yes only when they accepted with the box ticked.
fn answer(message: &Message) -> Answer {
    let Some(response) = message
        .params
        .get("inputResponses")
        .and_then(|r| r.get(REQUEST_KEY))
    else {
        return Answer::Missing;
    };
    let accepted = response.get("action").and_then(Value::as_str) == Some("accept");
    let ticked = response
        .get("content")
        .and_then(|c| c.get(FIELD))
        .and_then(Value::as_bool)
        == Some(true);
    if accepted && ticked {
        Answer::Yes
    } else {
        Answer::No
    }
}

/// The `input_required` result asking `question`.
fn input_required(ctx: &Ctx, call: &Call, question: &str, now: i64) -> Value {
    let form = json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": question,
            "requestedSchema": {
                "type": "object",
                "properties": {FIELD: {
                    "type": "boolean",
                    "title": "Book it",
                    "description": "Tick to let the agent book; the carrier charges the organization.",
                    "default": false,
                }},
                "required": [FIELD],
            },
        },
    });
    json!({
        "resultType": "input_required",
        "inputRequests": {REQUEST_KEY: form},
        "requestState": state(ctx, call, now + TTL_SECONDS),
    })
}

/// The error result of a call the person turned down.
fn declined(tool: &str) -> Outcome {
    Outcome {
        is_error: true,
        structured: json!({
            "status": 409,
            "code": "not_confirmed",
            "title": "Not confirmed",
            "detail": format!("The person using this agent did not confirm {tool}; nothing was booked or charged."),
        }),
        file: None,
        links: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::jsonrpc::{Incoming, parse};

    fn message(params: Value) -> Message {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        match parse(body.to_string().as_bytes()) {
            Ok(Incoming::Message(m)) => m,
            _ => panic!("not a message"),
        }
    }

    fn with_capabilities(capabilities: Value) -> Message {
        message(json!({"name": "book_shipment", "_meta": {META_CAPABILITIES: capabilities}}))
    }

    #[test]
    fn only_a_client_that_shows_forms_is_asked() {
        assert!(can_ask(&with_capabilities(json!({"elicitation": {}}))));
        assert!(can_ask(&with_capabilities(
            json!({"elicitation": {"form": {}, "url": {}}})
        )));
        assert!(!can_ask(&with_capabilities(
            json!({"elicitation": {"url": {}}})
        )));
        assert!(!can_ask(&with_capabilities(json!({"sampling": {}}))));
        assert!(!can_ask(&message(json!({"name": "book_shipment"}))));
    }

    #[test]
    fn only_an_accepted_ticked_form_is_a_yes() {
        let with = |response: Value| {
            answer(&message(
                json!({"name": "book_shipment", "inputResponses": {REQUEST_KEY: response}}),
            ))
        };
        assert!(matches!(
            with(json!({"action": "accept", "content": {"confirm": true}})),
            Answer::Yes
        ));
        assert!(matches!(
            with(json!({"action": "accept", "content": {"confirm": false}})),
            Answer::No
        ));
        assert!(matches!(with(json!({"action": "accept"})), Answer::No));
        assert!(matches!(with(json!({"action": "decline"})), Answer::No));
        assert!(matches!(with(json!({"action": "cancel"})), Answer::No));
        assert!(matches!(
            answer(&message(json!({"name": "book_shipment"}))),
            Answer::Missing
        ));
    }

    #[test]
    fn arguments_sign_the_same_in_any_order() {
        let a = json!({"shipmentId": "shp_1", "body": {"b": 1, "a": [ {"y": 2, "x": 1} ]}});
        let b = json!({"body": {"a": [ {"x": 1, "y": 2} ], "b": 1}, "shipmentId": "shp_1"});
        assert_eq!(canonical(&a).to_string(), canonical(&b).to_string());
    }
}
