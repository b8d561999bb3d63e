//! The operations table: every operation on an organization's data, once, with the scope it
//! needs, whether it reads or writes, and a one-line summary. The service authorizes with it,
//! the REST document takes each operation's summary and scope from it, the isolation test walks
//! it, and the MCP tool list and the consent page read it.

use crate::model::scope::{Resource, Scope};

/// What an operation does, which also says how it answers (DESIGN §16) and, for MCP tools,
/// whether it is read-only, destructive or idempotent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Reads only.
    Read,
    /// Makes a new resource (201).
    Create,
    /// Replaces or changes fields of a resource (PUT, PATCH): the same call twice changes
    /// nothing more.
    Change,
    /// Removes a resource.
    Delete,
    /// Anything else that changes data (book, move a status, cancel, …).
    Action,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Operation {
    /// snake_case; the REST operationId and the MCP tool name (DESIGN §16).
    pub id: &'static str,
    pub scope: Scope,
    pub kind: Kind,
    /// One sentence: what the operation does.
    pub summary: &'static str,
}

macro_rules! operations {
    ($($name:ident = $id:literal, $access:ident($resource:ident), $kind:ident, $summary:literal;)+) => {
        $(
            pub const $name: Operation = Operation {
                id: $id,
                scope: Scope::$access(Resource::$resource),
                kind: Kind::$kind,
                summary: $summary,
            };
        )+

        /// Every operation, grouped by resource.
        pub const ALL: &[&Operation] = &[$(&$name),+];
    };
}

operations! {
    GET_ORGANIZATION = "get_organization", read(Orgs), Read,
        "Get the organization.";
    UPDATE_ORGANIZATION = "update_organization", write(Orgs), Change,
        "Update the organization's name, slug, billing details or overage setting.";
    GET_BRANDING = "get_branding", read(Orgs), Read,
        "Get the name, color and logo the organization's customers see (its defaults until set).";
    UPDATE_BRANDING = "update_branding", write(Orgs), Change,
        "Change the organization's display name, color (#rrggbb) or logo (a base64 PNG or SVG of at most 256 KB; SVG is stored sanitized); null puts a field back to its default.";
    GET_BILLING_USAGE = "get_billing_usage", read(Billing), Read,
        "Report this month's shipments and overage, the plan's limits with what is used, and its add-ons.";

    LIST_MEMBERS = "list_members", write(Orgs), Read,
        "List the organization's members with their roles, newest first.";
    ADD_MEMBER = "add_member", write(Orgs), Create,
        "Add a person to the organization as an owner, admin or member.";
    UPDATE_MEMBER = "update_member", write(Orgs), Change,
        "Change a member's role or brand limit.";
    REMOVE_MEMBER = "remove_member", write(Orgs), Delete,
        "Remove a person from the organization, ending their agent connections and API tokens here.";
    GET_NOTIFICATION_SETTINGS = "get_notification_settings", read(Orgs), Read,
        "Get which e-mails receivers get (booked, out for delivery, delivered, exception) and the templates that replace the built-in words.";
    UPDATE_NOTIFICATION_SETTINGS = "update_notification_settings", write(Orgs), Change,
        "Turn receivers' e-mails on or off per event and set or clear their subject and text templates.";
    PREVIEW_NOTIFICATION = "preview_notification", read(Orgs), Read,
        "Render one event's e-mail in a language, for a shipment or an example one, with the templates given or stored.";
    GET_RETURNS_PORTAL = "get_returns_portal", read(Orgs), Read,
        "Get whether customers may start returns themselves on the returns portal, the shipping rule that books them, and the reasons offered.";
    UPDATE_RETURNS_PORTAL = "update_returns_portal", write(Orgs), Change,
        "Open or close the returns portal and set the shipping rule that books its returns and the reasons customers pick from.";
    LIST_AUDIT_LOG = "list_audit_log", read(Orgs), Read,
        "List every change made to the organization's data, newest first: who, what, when and from where.";

    CREATE_SENDER_ADDRESS = "create_sender_address", write(SenderAddresses), Create,
        "Create a sender address.";
    LIST_SENDER_ADDRESSES = "list_sender_addresses", read(SenderAddresses), Read,
        "List sender addresses, newest first.";
    GET_SENDER_ADDRESS = "get_sender_address", read(SenderAddresses), Read,
        "Get a sender address.";
    UPDATE_SENDER_ADDRESS = "update_sender_address", write(SenderAddresses), Change,
        "Replace a sender address.";
    DELETE_SENDER_ADDRESS = "delete_sender_address", write(SenderAddresses), Delete,
        "Delete a sender address that no carrier, rule or shipment uses.";

    CREATE_CARRIER = "create_carrier", write(Carriers), Create,
        "Create a carrier of one of the available carrier types.";
    LIST_CARRIERS = "list_carriers", read(Carriers), Read,
        "List carriers, newest first, each with its sender address.";
    GET_CARRIER = "get_carrier", read(Carriers), Read,
        "Get a carrier.";
    UPDATE_CARRIER = "update_carrier", write(Carriers), Change,
        "Replace a carrier.";
    DELETE_CARRIER = "delete_carrier", write(Carriers), Delete,
        "Delete a carrier that no shipping rule uses.";
    COMPARE_CARRIER_RATES = "compare_carrier_rates", read(Carriers), Read,
        "Ask every carrier of the organization that has a rating API what it charges for a shipment (a stored one by shipmentId, or a shipment body), all at once within a deadline; offers cheapest first, and per carrier why it gave none.";
    VALIDATE_ADDRESS = "validate_address", read(Carriers), Read,
        "Check an address: its postcode against the country's format and, where a carrier of the organization validates addresses (UPS in the US and Puerto Rico), the carrier's verdict and candidates.";
    LIST_AVAILABLE_CARRIERS = "list_available_carriers", read(Carriers), Read,
        "List the carrier types this server can book with, with their fields, products and services.";

    CREATE_SHIPPING_RULE = "create_shipping_rule", write(ShippingRules), Create,
        "Create a shipping rule.";
    LIST_SHIPPING_RULES = "list_shipping_rules", read(ShippingRules), Read,
        "List shipping rules, newest first, in their full form.";
    GET_SHIPPING_RULE = "get_shipping_rule", read(ShippingRules), Read,
        "Get a shipping rule.";
    UPDATE_SHIPPING_RULE = "update_shipping_rule", write(ShippingRules), Change,
        "Replace a shipping rule.";
    DELETE_SHIPPING_RULE = "delete_shipping_rule", write(ShippingRules), Delete,
        "Delete a shipping rule that is no other rule's return rule.";
    QUOTE_SHIPPING_RATES = "quote_shipping_rates", read(ShippingRules), Read,
        "Quote rates for a basket from the shipping rules, cheapest first.";

    CREATE_SHIPMENT = "create_shipment", write(Shipments), Create,
        "Create a shipment (status pending and termOfTrade DAP unless given).";
    LIST_SHIPMENTS = "list_shipments", read(Shipments), Read,
        "List shipments, newest first, with optional filters.";
    GET_SHIPMENT = "get_shipment", read(Shipments), Read,
        "Get a shipment with its documents and tracking.";
    UPDATE_SHIPMENT = "update_shipment", write(Shipments), Change,
        "Correct a shipment before it is booked with a JSON Merge Patch of its writable fields.";
    BOOK_SHIPMENT = "book_shipment", write(Shipments), Action,
        "Book a pending shipment with its carrier: a tracking number and label per parcel, the customs documents asked for, status processing.";
    SET_SHIPMENT_STATUS = "set_shipment_status", write(Shipments), Action,
        "Move a shipment to another status along the status machine.";
    DELETE_SHIPMENT = "delete_shipment", write(Shipments), Delete,
        "Delete a draft or pending shipment.";
    APPLY_SHIPPING_RULE = "apply_shipping_rule", write(Shipments), Action,
        "Overwrite a shipment's carrier settings with a shipping rule's, before booking.";
    SPLIT_PARCEL = "split_parcel", write(Shipments), Create,
        "Split order lines, or the whole parcel, off into a new shipment.";
    BATCH_SPLIT_PARCEL = "batch_split_parcel", write(Shipments), Create,
        "Split quantities of a parcel's order lines into several new shipments, all or nothing.";
    CREATE_RETURN_SHIPMENT = "create_return_shipment", write(Shipments), Create,
        "Create and book the return of a dispatched outbound shipment.";
    ADD_TRACKING_EVENT = "add_tracking_event", write(Shipments), Action,
        "Record a tracking event; the newest event sets the tracking status.";
    GET_SHIPMENT_DOCUMENT = "get_shipment_document", read(Shipments), Read,
        "Download a document of a shipment (a label) as a file.";
    MERGE_DOCUMENTS = "merge_documents", read(Shipments), Read,
        "Merge one type of document (labels, invoices, packing lists) of up to 100 shipments into one PDF, in the order given, for batch printing.";

    CREATE_PICKUP = "create_pickup", write(Shipments), Create,
        "Book a carrier's driver to collect parcels at a sender address on a day between two times (carriers with a pickup API: UPS, DHL Express, DHL Parcel Germany, PostNord); the carrier's confirmation number comes back.";
    LIST_PICKUPS = "list_pickups", read(Shipments), Read,
        "List pickups, newest first, with their status and the carrier's confirmation number.";
    GET_PICKUP = "get_pickup", read(Shipments), Read,
        "Get a pickup.";
    CANCEL_PICKUP = "cancel_pickup", write(Shipments), Delete,
        "Cancel a pickup, with the carrier when it was booked there; it stays listed as cancelled.";
    CREATE_MANIFEST = "create_manifest", write(Shipments), Create,
        "Close a carrier's day: its booked shipments not in a manifest yet (of one booking day when date is given) go into a manifest, the carrier's own close call is made where it has one, and an A4 PDF for the driver to sign is made.";
    LIST_MANIFESTS = "list_manifests", read(Shipments), Read,
        "List end-of-day manifests, newest first.";
    GET_MANIFEST = "get_manifest", read(Shipments), Read,
        "Get a manifest with its PDF.";
    PRINT_MANIFEST = "print_manifest", write(Shipments), Action,
        "Send a manifest's PDF to a printer that takes PDF.";

    CREATE_PRINTER = "create_printer", write(Printers), Create,
        "Add a network printer (raw TCP 9100 or IPP) that rules can print labels and documents on.";
    LIST_PRINTERS = "list_printers", read(Printers), Read,
        "List printers, newest first.";
    GET_PRINTER = "get_printer", read(Printers), Read,
        "Get a printer.";
    UPDATE_PRINTER = "update_printer", write(Printers), Change,
        "Replace a printer's name, kind, address and format.";
    DELETE_PRINTER = "delete_printer", write(Printers), Delete,
        "Delete a printer that no shipping rule prints on, with its print jobs.";
    LIST_PRINT_JOBS = "list_print_jobs", read(Printers), Read,
        "List the print jobs of a printer, newest first, with their status and attempts.";
    PRINT_TEST_PAGE = "print_test_page", write(Printers), Action,
        "Queue a one-page test page on a printer, in its format, naming the printer, its address and the organization.";
    PRINT_SHIPMENT_DOCUMENTS = "print_shipment_documents", write(Shipments), Action,
        "Send a booked shipment's documents of one type (its labels unless documentType says otherwise) to a printer, one print job per document in parcel order.";

    CREATE_ORDER_CHANNEL = "create_order_channel", write(OrderChannels), Create,
        "Create an order channel (manual, or a Shopify store).";
    LIST_ORDER_CHANNELS = "list_order_channels", read(OrderChannels), Read,
        "List order channels, newest first.";
    GET_ORDER_CHANNEL = "get_order_channel", read(OrderChannels), Read,
        "Get an order channel.";
    DELETE_ORDER_CHANNEL = "delete_order_channel", write(OrderChannels), Delete,
        "Delete an order channel that brought no orders.";

    CREATE_ORDER = "create_order", write(Orders), Create,
        "Create an order in a manual channel.";
    LIST_ORDERS = "list_orders", read(Orders), Read,
        "List orders, newest first, with optional filters.";
    GET_ORDER = "get_order", read(Orders), Read,
        "Get an order with its channel and shipments.";
    DELETE_ORDER = "delete_order", write(Orders), Delete,
        "Delete an order that has no shipments.";
    CANCEL_ORDER = "cancel_order", write(Orders), Action,
        "Cancel an order and those of its shipments that have not left.";
    CREATE_ORDER_SHIPMENT = "create_order_shipment", write(Shipments), Create,
        "Create a shipment for an order: the receiver from its shipping address, one parcel with its shippable lines.";

    LIST_API_TOKENS = "list_api_tokens", read(ApiTokens), Read,
        "List API tokens, newest first (never their values).";
    CREATE_API_TOKEN = "create_api_token", write(ApiTokens), Create,
        "Create an API token; its value is shown only in this answer.";
    GET_API_TOKEN = "get_api_token", read(ApiTokens), Read,
        "Get an API token (never its value).";
    RENAME_API_TOKEN = "rename_api_token", write(ApiTokens), Change,
        "Rename an API token.";
    REVOKE_API_TOKEN = "revoke_api_token", write(ApiTokens), Delete,
        "Revoke an API token; its next request is refused as unauthenticated.";

    CREATE_WEBHOOK = "create_webhook", write(Webhooks), Create,
        "Create a webhook endpoint for some of the organization's events; the answer holds its signing secret.";
    LIST_WEBHOOKS = "list_webhooks", read(Webhooks), Read,
        "List webhook endpoints, newest first.";
    GET_WEBHOOK = "get_webhook", read(Webhooks), Read,
        "Get a webhook endpoint with its signing secret.";
    UPDATE_WEBHOOK = "update_webhook", write(Webhooks), Change,
        "Replace a webhook endpoint's name, URL, events and active flag.";
    PATCH_WEBHOOK = "patch_webhook", write(Webhooks), Change,
        "Change some of a webhook endpoint's name, URL, events and active flag.";
    DELETE_WEBHOOK = "delete_webhook", write(Webhooks), Delete,
        "Delete a webhook endpoint and its pending deliveries.";
    ROTATE_WEBHOOK_SECRET = "rotate_webhook_secret", write(Webhooks), Action,
        "Give a webhook endpoint a new signing secret; for 24 hours deliveries are signed with the old one too.";
    TEST_WEBHOOK = "test_webhook", write(Webhooks), Action,
        "Send a signed webhook.test event to the endpoint now and report how it answered.";
    LIST_SHIPMENT_NOTIFICATIONS = "list_shipment_notifications", read(Shipments), Read,
        "List the e-mails sent (or queued, or given up on) to a shipment's receiver, newest first: booked, out for delivery, delivered and exception messages, with their status, attempts and last error.";
    LIST_WEBHOOK_DELIVERIES = "list_webhook_deliveries", read(Webhooks), Read,
        "List the delivery attempts of a webhook endpoint, newest first.";
    REPLAY_WEBHOOK_DELIVERY = "replay_webhook_delivery", write(Webhooks), Action,
        "Send the event of a logged delivery attempt to its webhook endpoint again, with the same event id, through the delivery queue.";
}

/// The operations that buy something from a carrier (a label): an agent asks its person first
/// when the organization wants it (`agents.confirmCostly`).
pub const SPENDS_MONEY: &[&Operation] = &[&BOOK_SHIPMENT, &CREATE_RETURN_SHIPMENT, &CREATE_PICKUP];

/// Creating an organization (`POST /orgs`): not an operation on an organization's data, so not
/// in `ALL` (no MCP tool), but the new organization's audit log begins with it.
pub const CREATE_ORGANIZATION: Operation = Operation {
    id: "create_organization",
    scope: Scope::write(Resource::Orgs),
    kind: Kind::Create,
    summary: "Create an organization with its first owner.",
};

/// Operations that only read but need a write scope: members are managed, not browsed
/// (DESIGN §19).
pub const MANAGED_READS: &[&Operation] = &[&LIST_MEMBERS];

/// Actions that only queue work for a worker (a print job, a webhook delivery) and answer
/// 202 Accepted with what they queued.
pub const QUEUES: &[&Operation] = &[&PRINT_TEST_PAGE, &REPLAY_WEBHOOK_DELIVERY, &PRINT_MANIFEST];

/// The operation with this id.
pub fn find(id: &str) -> Option<&'static Operation> {
    ALL.iter().copied().find(|op| op.id == id)
}

impl Operation {
    /// The HTTP status of a successful answer: 201 for what creates, 202 for what only queues,
    /// 200 otherwise.
    pub fn status(&self) -> u16 {
        if self.kind == Kind::Create {
            201
        } else if QUEUES.iter().any(|op| op.id == self.id) {
            202
        } else {
            200
        }
    }

    pub fn reads_only(&self) -> bool {
        self.kind == Kind::Read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scope::Access;

    #[test]
    fn ids_are_unique_snake_case() {
        let mut ids: Vec<_> = ALL.iter().map(|op| op.id).collect();
        assert!(
            ids.iter()
                .all(|id| id.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        );
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), before);
    }

    #[test]
    fn reads_need_read_scopes_and_writes_write_scopes() {
        for op in ALL.iter().filter(|op| !MANAGED_READS.contains(op)) {
            let expected = if op.reads_only() {
                Access::Read
            } else {
                Access::Write
            };
            assert_eq!(op.scope.access, expected, "{}", op.id);
        }
    }

    #[test]
    fn summaries_are_one_sentence() {
        for op in ALL {
            assert!(op.summary.ends_with('.'), "{}", op.id);
            assert_eq!(op.summary.matches(". ").count(), 0, "{}", op.id);
        }
        assert_eq!(find("get_shipment"), Some(&GET_SHIPMENT));
        assert_eq!(find("nothing"), None);
    }

    #[test]
    fn queuing_actions_answer_202() {
        assert_eq!(PRINT_TEST_PAGE.status(), 202);
        assert_eq!(REPLAY_WEBHOOK_DELIVERY.status(), 202);
        assert_eq!(TEST_WEBHOOK.status(), 200);
        assert_eq!(CREATE_PRINTER.status(), 201);
        assert!(QUEUES.iter().all(|op| op.kind == Kind::Action));
    }
}
