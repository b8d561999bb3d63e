//! Splitting parcels off into new shipments.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path};

use crate::{
    api::{ApiTags, Created, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::shipment::{BatchSplitIn, BatchSplitOut, SplitIn, SplitOut},
    service::{
        Ctx,
        shipments::{self},
    },
};

pub struct ShipmentSplitApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentSplitApi {
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
        Ok(Created::new(
            shipments::split(&ctx, &auth.0, &org_id, &shipment_id, &parcel_id, body.0).await?,
        ))
    }

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
        Ok(Created::new(
            shipments::batch_split(&ctx, &auth.0, &org_id, &shipment_id, &parcel_id, body.0)
                .await?,
        ))
    }
}
