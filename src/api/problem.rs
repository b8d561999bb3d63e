//! Errors as RFC 9457 problem+json (DESIGN §5). Domain errors, poem's own errors (unknown path,
//! wrong method, bad parameter, wrong content type, missing credential) and edge errors all end
//! here, so every error body has the same shape and carries the request id.

use std::fmt;

use poem::{Error as PoemError, IntoResponse, Response, error::ResponseError, http::StatusCode};
use poem_openapi::{
    ApiResponse, Object,
    error::{AuthorizationError, ContentTypeError, ParseParamError, ParseRequestPayloadError},
    registry::{MetaMediaType, MetaResponse, MetaResponses, Registry},
    types::{ToJSON, Type},
};

use crate::{
    error::{Error, FieldError},
    service::access::rate_limit::Quota,
};

/// The `RateLimit-*` headers of a quota (IETF draft RateLimit header fields).
pub fn quota_headers(quota: Quota) -> [(&'static str, String); 3] {
    [
        ("RateLimit-Limit", quota.limit.to_string()),
        ("RateLimit-Remaining", quota.remaining.to_string()),
        ("RateLimit-Reset", quota.reset_secs.to_string()),
    ]
}

tokio::task_local! {
    /// The id of the request being served (set by the request middleware).
    pub static REQUEST_ID: String;
}

pub const PROBLEM_JSON: &str = "application/problem+json";

/// The body of every error response.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct Problem {
    /// A URI reference naming the kind of problem: `/errors/<code>`.
    #[oai(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// Machine-readable error code, e.g. `validation_failed`.
    pub code: String,
    #[oai(skip_serializing_if_is_none)]
    pub detail: Option<String>,
    /// The fields at fault (validation errors only).
    #[oai(default, skip_serializing_if_is_empty)]
    pub errors: Vec<ProblemField>,
    /// Equals the response's `X-Request-Id` header.
    pub request_id: String,
}

#[derive(Debug, Clone, Object)]
pub struct ProblemField {
    pub field: String,
    pub message: String,
}

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    detail: Option<String>,
    errors: Vec<FieldError>,
    www_authenticate: Option<String>,
    retry_after: Option<u64>,
    quota: Option<Quota>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, detail: Option<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail,
            errors: Vec::new(),
            www_authenticate: None,
            retry_after: None,
            quota: None,
        }
    }

    pub fn not_found() -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            Some("no such resource".into()),
        )
    }

    pub fn payload_too_large(limit: u64) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            Some(format!(
                "the request body is larger than {limit} bytes (the server's \
                 limits.max_body_bytes)"
            )),
        )
    }

    /// The body stopped arriving for `limits.idle_timeout_seconds`.
    pub fn request_timeout() -> ApiError {
        ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            Some(
                "the request body stopped arriving within the server's \
                 limits.idle_timeout_seconds; send it again"
                    .into(),
            ),
        )
    }

    pub fn unsupported_media_type(detail: String) -> ApiError {
        ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            Some(detail),
        )
    }

    pub fn unauthenticated() -> ApiError {
        let mut err = ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
            Some("a valid bearer credential is required".into()),
        );
        err.www_authenticate = Some(r#"Bearer realm="shipbase""#.into());
        err
    }

    /// 401 for a delivery whose signature does not match (a webhook receiver): no bearer
    /// credential is involved, so no Bearer challenge either.
    pub fn bad_signature(detail: &str) -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
            Some(detail.to_string()),
        )
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    fn title(&self) -> &'static str {
        match self.code {
            "validation_failed" | "invalid_json" => "Request is invalid",
            "unauthenticated" => "Authentication required",
            "plan_limit_reached" => "Plan limit reached",
            "insufficient_scope" => "Insufficient scope",
            "forbidden" => "Forbidden",
            "request_timeout" => "Request timeout",
            "not_found" => "Not found",
            "method_not_allowed" => "Method not allowed",
            "conflict" | "idempotency_key_reused" | "idempotency_key_in_use" | "user_exists" => {
                "Conflict"
            }
            "invalid_state" => "Invalid state",
            "payload_too_large" => "Payload too large",
            "unsupported_media_type" => "Unsupported media type",
            "rate_limited" => "Too many requests",
            "carrier_rejected" => "Carrier rejected the request",
            "carrier_unavailable" => "Carrier unavailable",
            "carrier_timeout" => "Carrier did not answer in time",
            "carrier_outcome_unknown" => "Carrier outcome unknown",
            "booking_in_progress" | "booking_outcome_unknown" => "Conflict",
            _ => "Internal error",
        }
    }

    /// The problem body as it is sent, for the request `request_id`.
    pub fn problem(&self, request_id: String) -> Problem {
        Problem {
            kind: format!("/errors/{}", self.code),
            title: self.title().into(),
            status: self.status.as_u16(),
            code: self.code.into(),
            detail: self.detail.clone(),
            errors: self
                .errors
                .iter()
                .map(|e| ProblemField {
                    field: e.field.clone(),
                    message: e.message.clone(),
                })
                .collect(),
            request_id,
        }
    }

    /// Converts any error poem or poem-openapi produced into our form.
    pub fn from_poem(err: PoemError) -> ApiError {
        if err.is::<ApiError>() {
            return err
                .downcast::<ApiError>()
                .unwrap_or_else(|_| ApiError::from(Error::internal("downcast")));
        }
        if let Some(e) = err.downcast_ref::<ParseParamError>() {
            return ApiError::from(Error::invalid(e.name, e.reason.clone()));
        }
        if let Some(e) = err.downcast_ref::<ParseRequestPayloadError>() {
            return ApiError::from(Error::invalid("body", e.reason.clone()));
        }
        if let Some(e) = err.downcast_ref::<ContentTypeError>() {
            return ApiError::unsupported_media_type(match e {
                ContentTypeError::ExpectContentType => "send the body as application/json".into(),
                ContentTypeError::NotSupported { content_type } => {
                    format!("{content_type} is not supported; send application/json")
                }
            });
        }
        if err.is::<AuthorizationError>() {
            return ApiError::unauthenticated();
        }
        match err.status() {
            StatusCode::NOT_FOUND => ApiError::not_found(),
            StatusCode::METHOD_NOT_ALLOWED => ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                Some("this path does not support the method".into()),
            ),
            StatusCode::PAYLOAD_TOO_LARGE => {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", None)
            }
            StatusCode::UNAUTHORIZED => ApiError::unauthenticated(),
            status if status.is_client_error() => {
                ApiError::from(Error::invalid("request", err.to_string()))
            }
            _ => ApiError::from(Error::Internal(err.to_string())),
        }
    }
}

impl From<Error> for ApiError {
    fn from(err: Error) -> ApiError {
        match err {
            Error::Validation(errors) => {
                let detail = errors
                    .iter()
                    .map(|e| format!("{}: {}", e.field, e.message))
                    .collect::<Vec<_>>()
                    .join("; ");
                let mut api =
                    ApiError::new(StatusCode::BAD_REQUEST, "validation_failed", Some(detail));
                api.errors = errors;
                api
            }
            Error::InvalidJson(detail) => {
                ApiError::new(StatusCode::BAD_REQUEST, "invalid_json", Some(detail))
            }
            Error::Unauthenticated => ApiError::unauthenticated(),
            Error::InsufficientScope(scope) => {
                let mut api = ApiError::new(
                    StatusCode::FORBIDDEN,
                    "insufficient_scope",
                    Some(format!("this request needs the scope {scope}")),
                );
                api.www_authenticate = Some(format!(
                    r#"Bearer error="insufficient_scope", scope="{scope}""#
                ));
                api
            }
            Error::Forbidden(detail) => {
                ApiError::new(StatusCode::FORBIDDEN, "forbidden", Some(detail))
            }
            Error::NotFound => ApiError::not_found(),
            Error::UserExists(detail) => {
                ApiError::new(StatusCode::CONFLICT, "user_exists", Some(detail))
            }
            Error::Conflict(detail) => {
                ApiError::new(StatusCode::CONFLICT, "conflict", Some(detail))
            }
            Error::InvalidState(detail) => {
                ApiError::new(StatusCode::CONFLICT, "invalid_state", Some(detail))
            }
            Error::IdempotencyKeyReused => ApiError::new(
                StatusCode::CONFLICT,
                "idempotency_key_reused",
                Some("this Idempotency-Key was used with another request; use a new key".into()),
            ),
            Error::IdempotencyKeyInUse => ApiError::new(
                StatusCode::CONFLICT,
                "idempotency_key_in_use",
                Some("a request with this Idempotency-Key is still running; retry later".into()),
            ),
            Error::PlanLimitReached(detail) => ApiError::new(
                StatusCode::PAYMENT_REQUIRED,
                "plan_limit_reached",
                Some(detail),
            ),
            Error::RateLimited {
                retry_after_secs,
                limit,
                reset_secs,
            } => {
                let mut api = ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "rate_limited",
                    Some(format!(
                        "too many requests for this credential (the server's \
                         limits.rate_per_second and limits.burst); retry after {retry_after_secs} s"
                    )),
                );
                api.retry_after = Some(retry_after_secs);
                api.quota = Some(Quota {
                    limit,
                    remaining: 0,
                    reset_secs,
                });
                api
            }
            Error::CarrierRejected(detail) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "carrier_rejected",
                Some(detail),
            ),
            Error::CarrierUnavailable(detail) | Error::CarrierUnreachable(detail) => {
                ApiError::new(StatusCode::BAD_GATEWAY, "carrier_unavailable", Some(detail))
            }
            Error::CarrierUncertain(detail) => ApiError::new(
                StatusCode::BAD_GATEWAY,
                "carrier_outcome_unknown",
                Some(detail),
            ),
            Error::CarrierTimeout(detail) => {
                ApiError::new(StatusCode::GATEWAY_TIMEOUT, "carrier_timeout", Some(detail))
            }
            Error::BookingInProgress(detail) => {
                ApiError::new(StatusCode::CONFLICT, "booking_in_progress", Some(detail))
            }
            Error::BookingOutcomeUnknown(detail) => ApiError::new(
                StatusCode::CONFLICT,
                "booking_outcome_unknown",
                Some(detail),
            ),
            Error::Internal(message) => {
                tracing::error!(error = %message, "internal error");
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", None)
            }
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.code)
    }
}

impl std::error::Error for ApiError {}

impl ResponseError for ApiError {
    fn status(&self) -> StatusCode {
        self.status
    }

    fn as_response(&self) -> Response {
        let request_id = REQUEST_ID.try_with(Clone::clone).unwrap_or_default();
        let body = self.problem(request_id).to_json_string();
        let mut builder = Response::builder()
            .status(self.status)
            .content_type(PROBLEM_JSON);
        if let Some(value) = &self.www_authenticate {
            builder = builder.header("WWW-Authenticate", value.as_str());
        }
        if let Some(secs) = self.retry_after {
            builder = builder.header("Retry-After", secs.to_string());
        }
        if let Some(quota) = self.quota {
            for (name, value) in quota_headers(quota) {
                builder = builder.header(name, value);
            }
        }
        builder.body(body)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.as_response()
    }
}

/// The errors every operation documents.
const DOCUMENTED: [(u16, &str); 14] = [
    (
        400,
        "The request is invalid (`validation_failed`, `invalid_json`)",
    ),
    (
        401,
        "No, bad, expired or revoked credential (`unauthenticated`)",
    ),
    (402, "A plan limit would be exceeded (`plan_limit_reached`)"),
    (
        403,
        "The credential lacks the scope (`insufficient_scope`), or the person's role does not allow the change (`forbidden`)",
    ),
    (
        404,
        "Missing, or owned by another organization (`not_found`)",
    ),
    (
        408,
        "The body stopped arriving for `limits.idle_timeout_seconds` (`request_timeout`)",
    ),
    (
        409,
        "Duplicate, not allowed in the current state, being booked or booked with an unknown outcome, or an Idempotency-Key reused or still running (`conflict`, `invalid_state`, `user_exists`, `booking_in_progress`, `booking_outcome_unknown`, `idempotency_key_reused`, `idempotency_key_in_use`)",
    ),
    (
        413,
        "The body is larger than `limits.max_body_bytes` (`payload_too_large`)",
    ),
    (415, "The body is not JSON (`unsupported_media_type`)"),
    (
        422,
        "The carrier refused the booking; the detail says what it refused (`carrier_rejected`)",
    ),
    (
        429,
        "Too many requests for this credential (`rate_limited`)",
    ),
    (500, "Unexpected error (`internal`)"),
    (
        502,
        "The carrier could not be reached or failed, and booked nothing (`carrier_unavailable`); or it answered success in a form that cannot be used, so whether it booked is unknown (`carrier_outcome_unknown`)",
    ),
    (
        504,
        "The carrier did not answer in time: whether it booked is unknown (`carrier_timeout`)",
    ),
];

impl ApiResponse for ApiError {
    fn meta() -> MetaResponses {
        MetaResponses {
            responses: DOCUMENTED
                .iter()
                .map(|(status, description)| MetaResponse {
                    description,
                    status: Some(*status),
                    status_range: None,
                    content: vec![MetaMediaType {
                        content_type: PROBLEM_JSON,
                        schema: Problem::schema_ref(),
                    }],
                    headers: vec![],
                })
                .collect(),
        }
    }

    fn register(registry: &mut Registry) {
        Problem::register(registry);
    }
}

/// What every operation returns.
pub type ApiResult<T> = Result<T, ApiError>;
