//! The methods Shipbase serves and their results in each era: `server/discover` (modern),
//! `initialize` and `ping` (legacy), `tools/list` and `tools/call` (both). Modern results carry
//! `resultType` and the server's identity in `_meta`; list results carry cache hints.

use serde_json::{Map, Value, json};

use crate::{
    VERSION,
    mcp::{
        catalog::{self, Tool},
        dispatch::{self, Outcome},
        era::{LEGACY, META_SERVER_INFO, MODERN, SUPPORTED},
        jsonrpc::{Failure, INVALID_PARAMS, Message},
        output,
    },
    service::{Actor, Ctx, access::actor::Principal},
};

/// How long a client may reuse the server description and tool list: they change only with
/// the connection's permissions (fixed) or a new Shipbase version.
const TTL_MS: u64 = 5 * 60 * 1000;

const INSTRUCTIONS: &str = "Shipbase manages shipping for one organization: sender addresses, carriers, shipping rules, orders, and shipments with labels and tracking. Every tool works in the organization this connection was approved for, within the permissions granted; to ship, create a shipment (create_shipment, or create_order_shipment for an order) and book it with book_shipment to get its label. A failed call is an isError result whose structured content is the problem: type, title, status, code (validation_failed, not_found, invalid_state, conflict, …), detail, and for invalid arguments errors[] naming each field.";

/// The protocol revision a request is served under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    Modern,
    /// 2025-11-25 or 2025-06-18: structured content is an object.
    Structured,
    /// 2025-03-26: text content only.
    Plain,
}

impl Revision {
    pub fn of_legacy(version: &str) -> Revision {
        if version == LEGACY[2] {
            Revision::Plain
        } else {
            Revision::Structured
        }
    }
}

fn server_info(revision: Revision) -> Value {
    match revision {
        Revision::Plain => json!({"name": "shipbase", "version": VERSION}),
        _ => json!({"name": "shipbase", "title": "Shipbase", "version": VERSION}),
    }
}

/// A modern result: `resultType` and the server's identity added.
pub fn modern(mut result: Map<String, Value>) -> Value {
    result.insert("resultType".into(), "complete".into());
    let meta = result.entry("_meta").or_insert_with(|| json!({}));
    meta[META_SERVER_INFO] = server_info(Revision::Modern);
    Value::Object(result)
}

fn cacheable(mut result: Map<String, Value>) -> Map<String, Value> {
    result.insert("ttlMs".into(), TTL_MS.into());
    // The tool list depends on the connection's permissions.
    result.insert("cacheScope".into(), "private".into());
    result
}

/// The tools `actor` may call, in the table's order.
pub fn visible(actor: &Actor) -> impl Iterator<Item = &'static Tool> + '_ {
    catalog::tools()
        .iter()
        .filter(|tool| actor.scopes.grants(tool.operation.scope))
}

/// What the server offers: tools (when the connection may call any), and resources (the
/// shipments' documents, read by the URIs tool results link to). No prompts.
fn capabilities(actor: &Actor, revision: Revision) -> Value {
    let mut capabilities = match revision {
        Revision::Modern => json!({"resources": {}}),
        _ => json!({"resources": {"subscribe": false, "listChanged": false}}),
    };
    if visible(actor).next().is_some() {
        capabilities["tools"] = match revision {
            Revision::Modern => json!({}),
            _ => json!({"listChanged": false}),
        };
    }
    capabilities
}

pub fn discover(actor: &Actor) -> Value {
    let capabilities = capabilities(actor, Revision::Modern);
    let result = json!({
        "supportedVersions": SUPPORTED,
        "capabilities": capabilities,
        "instructions": INSTRUCTIONS,
    });
    modern(cacheable(result.as_object().cloned().unwrap_or_default()))
}

/// The result of a legacy `initialize`: the client's version when served, else the newest.
pub fn initialize(actor: &Actor, requested: Option<&str>) -> (String, Value) {
    let version = requested
        .filter(|v| LEGACY.contains(v))
        .unwrap_or(LEGACY[0])
        .to_string();
    let revision = Revision::of_legacy(&version);
    let result = json!({
        "protocolVersion": version,
        "capabilities": capabilities(actor, revision),
        "serverInfo": server_info(revision),
        "instructions": INSTRUCTIONS,
    });
    (version, result)
}

/// `tools/list`: every tool the connection may call, in one page, narrowed to `toolsets` when
/// given.
pub fn list_tools(
    message: &Message,
    actor: &Actor,
    revision: Revision,
    toolsets: Option<&[crate::model::scope::Resource]>,
) -> Result<Value, Failure> {
    if message.params.get("cursor").is_some_and(|c| !c.is_null()) {
        return Err(Failure::new(
            poem::http::StatusCode::OK,
            message.id.clone(),
            INVALID_PARAMS,
            "Invalid params: unknown cursor (the list has one page)",
        ));
    }
    let tools: Vec<Value> = visible(actor)
        .filter(|tool| {
            toolsets.is_none_or(|sets| {
                tool.operation
                    .scope
                    .resource
                    .is_some_and(|r| sets.contains(&r))
            })
        })
        .map(|tool| definition(tool.operation.id, revision))
        .chain(
            crate::mcp::tasks::tasks()
                .iter()
                .filter(|task| crate::mcp::tasks::allowed(task, actor))
                .filter(|task| {
                    toolsets.is_none_or(|sets| crate::mcp::tasks::in_toolsets(task, sets))
                })
                .map(|task| definition(task.name, revision)),
        )
        .collect();
    let result = json!({"tools": tools})
        .as_object()
        .cloned()
        .unwrap_or_default();
    Ok(match revision {
        Revision::Modern => modern(cacheable(result)),
        _ => Value::Object(result),
    })
}

/// `resources/templates/list`: the documents of the connection's organization.
pub fn resource_templates(
    message: &Message,
    actor: &Actor,
    revision: Revision,
) -> Result<Value, Failure> {
    let mut result = empty_list(message, "resourceTemplates", revision)?;
    if let Some(org_id) = organization(actor) {
        result["resourceTemplates"] = json!([crate::mcp::resources::template(&org_id)]);
    }
    Ok(result)
}

/// `resources/list` (the documents are many and found through tool results, so none is listed),
/// and the frame of the other lists.
pub fn empty_list(message: &Message, key: &str, revision: Revision) -> Result<Value, Failure> {
    if message.params.get("cursor").is_some_and(|c| !c.is_null()) {
        return Err(Failure::new(
            poem::http::StatusCode::OK,
            message.id.clone(),
            INVALID_PARAMS,
            "Invalid params: unknown cursor (the list has one page)",
        ));
    }
    let result = json!({ key: [] }).as_object().cloned().unwrap_or_default();
    Ok(match revision {
        Revision::Modern => modern(cacheable(result)),
        _ => Value::Object(result),
    })
}

/// `resources/read`: a document of the connection's organization.
pub async fn read_resource(
    ctx: &Ctx,
    message: &Message,
    actor: &Actor,
    revision: Revision,
) -> Result<Value, Failure> {
    let org_id = organization(actor).ok_or_else(|| not_found(message))?;
    let result = crate::mcp::resources::read(ctx, message, actor, &org_id).await?;
    Ok(match (revision, result) {
        (Revision::Modern, Value::Object(map)) => modern(map),
        (_, result) => result,
    })
}

/// `resources/read` of something that is not there.
fn not_found(message: &Message) -> Failure {
    let uri = message.params.get("uri").cloned().unwrap_or(Value::Null);
    Failure::new(
        poem::http::StatusCode::OK,
        message.id.clone(),
        INVALID_PARAMS,
        format!("Resource not found: {}", uri.as_str().unwrap_or_default()),
    )
    .with_data(json!({ "uri": uri }))
}

/// A tool's definition (an operation's or a task tool's, named `name`) in `revision`'s terms,
/// made once for every tool and revision: `tools/list` only copies it.
fn definition(name: &str, revision: Revision) -> Value {
    type Made = std::collections::HashMap<(&'static str, u8), Value>;
    static MADE: std::sync::OnceLock<Made> = std::sync::OnceLock::new();
    let made = MADE.get_or_init(|| {
        let every = catalog::tools()
            .iter()
            .map(|tool| (tool.operation.id, &tool.definition))
            .chain(
                crate::mcp::tasks::tasks()
                    .iter()
                    .map(|task| (task.name, &task.definition)),
            );
        every
            .flat_map(|(name, definition)| {
                [Revision::Modern, Revision::Structured, Revision::Plain]
                    .map(|r| ((name, r as u8), for_revision(definition, r)))
            })
            .collect()
    });
    made.get(&(name, revision as u8))
        .cloned()
        .unwrap_or_default()
}

/// `definition` with only the fields `revision` knows: 2025-03-26 neither titles nor output
/// schemas; the 2025 revisions an object schema (a list's wrapped as its result is); every
/// output schema also admitting the problem of a failed call.
fn for_revision(definition: &Value, revision: Revision) -> Value {
    let mut definition = definition.clone();
    if let Some(map) = definition.as_object_mut() {
        if revision == Revision::Plain {
            map.remove("title");
            map.remove("outputSchema");
        } else if let Some(schema) = map.get("outputSchema") {
            let schema = match revision {
                Revision::Structured => output::for_legacy(schema),
                _ => schema.clone(),
            };
            map.insert("outputSchema".into(), output::or_failure(&schema));
        }
    }
    definition
}

/// The organization a connection or token works in.
fn organization(actor: &Actor) -> Option<String> {
    match &actor.principal {
        Principal::Connection { org_id, .. } | Principal::ApiToken { org_id, .. } => {
            Some(org_id.clone())
        }
        _ => None,
    }
}

/// What a `tools/call` names.
#[derive(Clone, Copy)]
enum Callee {
    Task(&'static crate::mcp::tasks::Task),
    Tool(&'static Tool),
}

/// `tools/call`: the REST operation (or task) with the connection's actor, in its organization.
pub async fn call_tool(
    ctx: &Ctx,
    message: &Message,
    actor: &Actor,
    revision: Revision,
) -> Result<Value, Failure> {
    let bad = |text: String| {
        Failure::new(
            poem::http::StatusCode::OK,
            message.id.clone(),
            INVALID_PARAMS,
            text,
        )
    };
    let name = message
        .params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("Invalid params: name must be the tool's name".into()))?;
    // A task tool, or one of the operations; outside the grant, a step-up (HTTP 403).
    let callee = match crate::mcp::tasks::find(name) {
        Some(task) => Callee::Task(task),
        None => {
            Callee::Tool(catalog::find(name).ok_or_else(|| bad(format!("Unknown tool: {name}")))?)
        }
    };
    let needed = match callee {
        Callee::Task(task) => (!crate::mcp::tasks::allowed(task, actor)).then_some(task.needs[0]),
        Callee::Tool(tool) => {
            (!actor.scopes.grants(tool.operation.scope)).then_some(tool.operation)
        }
    };
    if let Some(operation) = needed {
        return Err(crate::mcp::step_up::challenge(ctx, message, operation));
    }
    let arguments = match message.params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(arguments)) => arguments.clone(),
        Some(_) => return Err(bad("Invalid params: arguments must be an object".into())),
    };
    let org_id = organization(actor)
        .ok_or_else(|| bad("Invalid params: this credential belongs to no organization".into()))?;
    // A call that spends money may first ask the person using the agent (2026-07-28 only).
    if let (Revision::Modern, Callee::Tool(tool)) = (revision, callee) {
        match crate::mcp::confirm::gate(ctx, message, actor, &org_id, tool, &arguments).await? {
            crate::mcp::confirm::Gate::Proceed => {}
            crate::mcp::confirm::Gate::Ask(mut result) => {
                result["_meta"] = json!({META_SERVER_INFO: server_info(Revision::Modern)});
                return Ok(result);
            }
            crate::mcp::confirm::Gate::Declined(outcome) => {
                return Ok(tool_result(outcome, revision));
            }
        }
    }
    let outcome = match callee {
        Callee::Task(task) => crate::mcp::tasks::call(ctx, actor, &org_id, task, arguments).await,
        Callee::Tool(tool) => dispatch::call(ctx, actor, &org_id, tool, arguments).await,
    };
    Ok(tool_result(outcome, revision))
}

fn tool_result(outcome: Outcome, revision: Revision) -> Value {
    let mut content = vec![json!({"type": "text", "text": outcome.structured.to_string()})];
    if let Some(file) = &outcome.file {
        content.push(json!({"type": "resource", "resource": {
            "uri": file.uri, "mimeType": file.mime_type, "blob": file.blob}}));
    }
    // Links came with 2025-06-18; the oldest revision finds the URIs in the text.
    if revision != Revision::Plain {
        content.extend(outcome.links);
    }
    let mut result = Map::new();
    result.insert("content".into(), Value::Array(content));
    match (revision, outcome.structured) {
        (Revision::Plain, _) => {}
        // These revisions want an object: a list is given as {"data": […]}.
        (Revision::Structured, list @ Value::Array(_)) => {
            result.insert("structuredContent".into(), json!({ "data": list }));
        }
        (_, structured) => {
            result.insert("structuredContent".into(), structured);
        }
    }
    if outcome.is_error {
        result.insert("isError".into(), true.into());
    }
    match revision {
        Revision::Modern => modern(result),
        _ => Value::Object(result),
    }
}

/// The error of a modern `initialize` (a method this revision removed): 404, naming the
/// versions that do have it.
pub fn removed(message: &Message) -> Failure {
    let mut failure = Failure::new(
        poem::http::StatusCode::NOT_FOUND,
        message.id.clone(),
        crate::mcp::jsonrpc::METHOD_NOT_FOUND,
        format!("Method not found: {} (protocol {MODERN})", message.method),
    );
    if message.method == "initialize" {
        failure.message = format!(
            "Method not found: initialize is not part of protocol {MODERN}; send it without _meta to use {}",
            LEGACY.join(", ")
        );
        failure = failure.with_data(json!({"supported": SUPPORTED}));
    }
    failure
}
