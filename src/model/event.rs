//! Events (SPEC §6, DESIGN §9): what happened to which resource, with the full resource after the
//! change as `data`. Written to the outbox in the transaction of the change.

use crate::model::ids;

crate::string_enum! {
    /// The event kinds a webhook can subscribe to.
    EventKind {
        ShipmentCreated = "shipment.created",
        ShipmentUpdated = "shipment.updated",
        ShipmentDispatched = "shipment.dispatched",
        ShipmentCancelled = "shipment.cancelled",
        ShipmentError = "shipment.error",
        OrderCreated = "order.created",
        OrderUpdated = "order.updated",
        OrderCancelled = "order.cancelled",
        TrackingUpdated = "tracking.updated",
        PickupCreated = "pickup.created",
        PickupCancelled = "pickup.cancelled",
        ManifestCreated = "manifest.created",
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: String,
    pub kind: EventKind,
    pub org_id: String,
    /// The resource after the change, in its public representation.
    pub data: serde_json::Value,
    pub created_at: String,
}

impl Event {
    pub fn new(kind: EventKind, org_id: &str, at: &str, data: serde_json::Value) -> Event {
        Event {
            id: ids::new(ids::EVENT),
            kind,
            org_id: org_id.to_string(),
            data,
            created_at: at.to_string(),
        }
    }
}
