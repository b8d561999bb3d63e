//! The one domain error. It knows nothing of HTTP or SQL: the REST edge maps it to problem+json
//! (api::problem), the MCP edge to an `isError` tool result; the store turns database errors
//! into `Internal`.

/// One invalid field of a request, named as the client wrote it (`parcels[0].weight`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request body or a parameter violates a constraint.
    #[error("request is invalid")]
    Validation(Vec<FieldError>),
    /// The body is not JSON at all.
    #[error("body is not valid JSON: {0}")]
    InvalidJson(String),
    /// No, bad, expired or revoked credential.
    #[error("authentication required")]
    Unauthenticated,
    /// The credential lacks a scope; carries the scope that is needed.
    #[error("this request needs the scope {0}")]
    InsufficientScope(String),
    /// The person's role does not allow the change (an admin removing an owner).
    #[error("{0}")]
    Forbidden(String),
    /// Missing, or belongs to another organization.
    #[error("not found")]
    NotFound,
    /// A uniqueness rule would be broken (duplicate slug, e-mail, …).
    #[error("{0}")]
    Conflict(String),
    /// An e-mail names a user who exists already (POST /orgs without "existingUser").
    #[error("{0}")]
    UserExists(String),
    /// The resource is not in a state that allows the operation.
    #[error("{0}")]
    InvalidState(String),
    /// A plan limit would be exceeded.
    #[error("{0}")]
    PlanLimitReached(String),
    /// An idempotency key came again with another request.
    #[error("the idempotency key was used with another request")]
    IdempotencyKeyReused,
    /// The request that holds an idempotency key is still running.
    #[error("a request with this idempotency key is still running")]
    IdempotencyKeyInUse,
    /// Too many requests for one credential; retry after the given seconds (`limit` and
    /// `reset_secs` describe the bucket, for the `RateLimit-*` headers).
    #[error("rate limit exceeded")]
    RateLimited {
        retry_after_secs: u64,
        limit: u32,
        reset_secs: u64,
    },
    /// The carrier refused the request; the message says what it refused.
    #[error("{0}")]
    CarrierRejected(String),
    /// The carrier answered with a server error: it booked nothing.
    #[error("{0}")]
    CarrierUnavailable(String),
    /// The carrier could not be reached at all: the request never left.
    #[error("{0}")]
    CarrierUnreachable(String),
    /// The carrier did not answer in time, or the connection broke after the request was sent:
    /// whether it booked is unknown.
    #[error("{0}")]
    CarrierTimeout(String),
    /// The carrier answered success in a form that cannot be used (no labels, too few numbers):
    /// it probably booked, and what it booked is unknown.
    #[error("{0}")]
    CarrierUncertain(String),
    /// The shipment is being booked by another request.
    #[error("{0}")]
    BookingInProgress(String),
    /// An earlier booking of the shipment ended without knowing whether the carrier booked.
    #[error("{0}")]
    BookingOutcomeUnknown(String),
    /// Anything unexpected. The message is logged, never shown to clients.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// A validation error on one field.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Validation(vec![FieldError {
            field: field.into(),
            message: message.into(),
        }])
    }

    pub fn internal(err: impl std::fmt::Display) -> Error {
        Error::Internal(err.to_string())
    }

    /// Whether the error came after a carrier received the request (so that its answer is kept
    /// for a retry with the same idempotency key, and no second request is sent).
    pub fn reached_the_carrier(&self) -> bool {
        matches!(
            self,
            Error::CarrierRejected(_)
                | Error::CarrierUnavailable(_)
                | Error::CarrierTimeout(_)
                | Error::CarrierUncertain(_)
        )
    }

    /// Whether a carrier may have booked although this error came back.
    pub fn leaves_the_outcome_unknown(&self) -> bool {
        matches!(self, Error::CarrierTimeout(_) | Error::CarrierUncertain(_))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
