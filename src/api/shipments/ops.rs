//! Operations on one shipment: book, status, delete, apply a rule, split, batch split, return,
//! tracking events, and raw document download.

use std::collections::BTreeMap;

use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::Path,
    payload::{Binary, Json},
};
use serde::Deserialize;
use serde_json::Value;

use crate::{
    api::{
        ApiTags, Created, Message, body::JsonBody, problem::ApiResult, security::BearerAuth,
        shipments::dto::ShipmentOut,
    },
    model::split::Take,
    service::{
        Ctx,
        shipments::{
            self, BatchItem, BatchSplit, NewTrackingEvent, SettingsOverride, Split, SplitOutcome,
        },
    },
};

pub struct ShipmentOpsApi;

/// The status to move to.
#[derive(Object, Deserialize)]
pub struct StatusIn {
    /// draft, pending, processing, dispatched, partly_dispatched, error, cancelled or on_hold.
    pub status: String,
}

/// The rule to apply.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct ApplyRuleIn {
    pub shipping_rule_id: String,
}

/// Moves order lines (or, without `orderLineIds`, the whole parcel) into one new shipment.
#[derive(Object, Deserialize, Default)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase", default)]
pub struct SplitIn {
    /// Whole order lines to move; absent or empty moves the whole parcel.
    pub order_line_ids: Option<Vec<String>>,
    pub carrier_id: Option<String>,
    pub product_id: Option<String>,
    pub services: Option<Vec<String>>,
    pub additional_parameters: Option<BTreeMap<String, Value>>,
    /// Default `<original reference>-<n>`.
    pub reference: Option<String>,
}

impl From<SplitIn> for Split {
    fn from(v: SplitIn) -> Split {
        Split {
            order_line_ids: v.order_line_ids,
            settings: SettingsOverride {
                carrier_id: v.carrier_id,
                product_id: v.product_id,
                services: v.services,
                additional_parameters: v.additional_parameters.map(|m| m.into_iter().collect()),
            },
            reference: v.reference,
        }
    }
}

/// Units of one order line.
#[derive(Object, Deserialize)]
pub struct LineQuantityIn {
    pub id: String,
    /// At least 1, at most what the parcel holds (over all new shipments together).
    pub quantity: i64,
}

/// One new shipment of a batch split.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct BatchItemIn {
    #[oai(validator(min_items = 1))]
    pub order_lines: Vec<LineQuantityIn>,
    /// Default `<original reference>-<n>`.
    pub reference: Option<String>,
}

/// Moves quantities of order lines into several new shipments, all or nothing.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct BatchSplitIn {
    #[oai(validator(min_items = 1))]
    pub shipments: Vec<BatchItemIn>,
    pub carrier_id: Option<String>,
    pub product_id: Option<String>,
    pub services: Option<Vec<String>>,
    pub additional_parameters: Option<BTreeMap<String, Value>>,
}

impl From<BatchSplitIn> for BatchSplit {
    fn from(v: BatchSplitIn) -> BatchSplit {
        BatchSplit {
            shipments: v
                .shipments
                .into_iter()
                .map(|item| BatchItem {
                    order_lines: item
                        .order_lines
                        .into_iter()
                        .map(|l| Take {
                            line_id: l.id,
                            quantity: l.quantity,
                        })
                        .collect(),
                    reference: item.reference,
                })
                .collect(),
            settings: SettingsOverride {
                carrier_id: v.carrier_id,
                product_id: v.product_id,
                services: v.services,
                additional_parameters: v.additional_parameters.map(|m| m.into_iter().collect()),
            },
        }
    }
}

/// The original shipment after a split and the new one.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct SplitOut {
    pub original_shipment: ShipmentOut,
    pub new_shipment: ShipmentOut,
}

/// The original shipment after a batch split and the new ones.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct BatchSplitOut {
    pub original_shipment: ShipmentOut,
    pub new_shipments: Vec<ShipmentOut>,
}

impl From<SplitOutcome> for BatchSplitOut {
    fn from(o: SplitOutcome) -> BatchSplitOut {
        BatchSplitOut {
            original_shipment: o.original.into(),
            new_shipments: o.created.into_iter().map(Into::into).collect(),
        }
    }
}

/// A tracking event to record.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct TrackingEventIn {
    /// created, awaiting_pickup, picked_up, in_transit, out_for_delivery, ready_for_pickup,
    /// delivered, returned or exception.
    pub status: String,
    pub description: Option<String>,
    pub location: Option<String>,
    /// RFC 3339; now when absent.
    pub occurred_at: Option<String>,
}

impl From<TrackingEventIn> for NewTrackingEvent {
    fn from(v: TrackingEventIn) -> NewTrackingEvent {
        NewTrackingEvent {
            status: v.status,
            description: v.description,
            location: v.location,
            occurred_at: v.occurred_at,
        }
    }
}

#[derive(ApiResponse)]
pub enum PdfFile {
    /// The document as a file.
    #[oai(status = 200, content_type = "application/pdf")]
    Pdf(Binary<Vec<u8>>),
}

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentOpsApi {
    /// Book with the carrier: tracking number, one PDF label per parcel, pending → processing.
    /// Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/book",
        method = "post",
        operation_id = "book_shipment"
    )]
    async fn book(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
    ) -> ApiResult<Json<ShipmentOut>> {
        Ok(Json(
            shipments::book(&ctx, &auth.0, &org_id, &shipment_id)
                .await?
                .into(),
        ))
    }

    /// Move to another status along the status machine (409 for any other move).
    /// Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/status",
        method = "post",
        operation_id = "set_shipment_status"
    )]
    async fn status(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<StatusIn>,
    ) -> ApiResult<Json<ShipmentOut>> {
        let input = body.0.map(|v| v.status);
        Ok(Json(
            shipments::set_status(&ctx, &auth.0, &org_id, &shipment_id, input)
                .await?
                .into(),
        ))
    }

    /// Delete a draft or pending shipment (409 otherwise). Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId",
        method = "delete",
        operation_id = "delete_shipment"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        shipments::delete(&ctx, &auth.0, &org_id, &shipment_id).await?;
        Ok(Message::new("shipment deleted"))
    }

    /// Overwrite the carrier settings with a shipping rule's, before booking.
    /// Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/apply-shipping-rule",
        method = "post",
        operation_id = "apply_shipping_rule"
    )]
    async fn apply_rule(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<ApplyRuleIn>,
    ) -> ApiResult<Json<ShipmentOut>> {
        let input = body.0.map(|v| v.shipping_rule_id);
        Ok(Json(
            shipments::apply_shipping_rule(&ctx, &auth.0, &org_id, &shipment_id, input)
                .await?
                .into(),
        ))
    }

    /// Split order lines (or the whole parcel) off into a new shipment. Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/parcels/:parcelId/split",
        method = "post",
        operation_id = "split_parcel"
    )]
    async fn split(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        #[oai(name = "parcelId")] parcel_id: Path<String>,
        body: JsonBody<SplitIn>,
    ) -> ApiResult<Created<SplitOut>> {
        let outcome = shipments::split(
            &ctx,
            &auth.0,
            &org_id,
            &shipment_id,
            &parcel_id,
            body.into_input(),
        )
        .await?;
        let BatchSplitOut {
            original_shipment,
            mut new_shipments,
        } = outcome.into();
        let new_shipment = new_shipments
            .pop()
            .ok_or_else(|| crate::error::Error::internal("split made no shipment"))?;
        Ok(Created::new(SplitOut {
            original_shipment,
            new_shipment,
        }))
    }

    /// Split quantities of order lines into several new shipments, all or nothing.
    /// Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/parcels/:parcelId/batch-split",
        method = "post",
        operation_id = "batch_split_parcel"
    )]
    async fn batch_split(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        #[oai(name = "parcelId")] parcel_id: Path<String>,
        body: JsonBody<BatchSplitIn>,
    ) -> ApiResult<Created<BatchSplitOut>> {
        let outcome = shipments::batch_split(
            &ctx,
            &auth.0,
            &org_id,
            &shipment_id,
            &parcel_id,
            body.into_input(),
        )
        .await?;
        Ok(Created::new(outcome))
    }

    /// Create and book the return of a dispatched outbound shipment. Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/create-return",
        method = "post",
        operation_id = "create_return_shipment"
    )]
    async fn create_return(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
    ) -> ApiResult<Created<ShipmentOut>> {
        Ok(Created::new(
            shipments::create_return(&ctx, &auth.0, &org_id, &shipment_id).await?,
        ))
    }

    /// Record a tracking event; the newest event sets the tracking status.
    /// Scope: `write:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/tracking-events",
        method = "post",
        operation_id = "add_tracking_event"
    )]
    async fn tracking_event(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<TrackingEventIn>,
    ) -> ApiResult<Json<ShipmentOut>> {
        Ok(Json(
            shipments::add_tracking_event(&ctx, &auth.0, &org_id, &shipment_id, body.into_input())
                .await?
                .into(),
        ))
    }

    /// Download a document (a label) as a file. Scope: `read:shipments`.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/documents/:documentId",
        method = "get",
        operation_id = "get_shipment_document"
    )]
    async fn document(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        #[oai(name = "documentId")] document_id: Path<String>,
    ) -> ApiResult<PdfFile> {
        let document =
            shipments::document(&ctx, &auth.0, &org_id, &shipment_id, &document_id).await?;
        Ok(PdfFile::Pdf(Binary(document.content)))
    }
}
