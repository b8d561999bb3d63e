//! Booking attempts: each booking of a shipment with its carrier, claimed before
//! the carrier is called, and what came of it.

crate::string_enum! {
    /// Where an attempt stands.
    AttemptStatus {
        /// Claimed; the carrier is being called.
        InProgress = "in_progress",
        /// The carrier booked it and the shipment holds the booking.
        Booked = "booked",
        /// The carrier booked nothing (it refused, failed, or was never reached).
        Failed = "failed",
        /// The carrier may have booked: it did not answer in time, the connection broke, or its
        /// answer could not be used.
        Unknown = "unknown",
        /// Was unknown; the caller chose to book again.
        Superseded = "superseded",
    }
}

crate::string_enum! {
    /// What a booking does when an earlier attempt's outcome is unknown.
    AfterUnknownOutcome {
        /// Book again: the earlier attempt is given up (`superseded`), and the carrier is asked
        /// anew. Whoever asks has checked that the carrier did not book it, or accepts a second
        /// parcel.
        BookAgain = "book_again",
    }
}

/// One attempt to book a shipment; its `id` is what the carrier is told identifies the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookingAttempt {
    pub id: String,
    pub org_id: String,
    pub shipment_id: String,
    pub status: AttemptStatus,
    pub started_at: String,
    /// An attempt still in progress at this time is taken to have stopped (its process died)
    /// and counts as unknown.
    pub stale_at: String,
    pub finished_at: Option<String>,
    /// What went wrong, in words.
    pub error: Option<String>,
}

impl AttemptStatus {
    /// Whether the attempt still holds the shipment.
    pub fn is_open(self) -> bool {
        matches!(self, AttemptStatus::InProgress | AttemptStatus::Unknown)
    }
}
