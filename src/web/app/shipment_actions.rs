//! A shipment's actions (DESIGN §20): book, book and print, print again, change the status,
//! apply a rule, split a parcel off, make a return, cancel; each the operation REST and MCP
//! call, with the session's role.

use poem::{
    Request, Response, handler,
    web::{Data, Path},
};

use super::{Desk, shipments::shipment_page};
use crate::{
    error::Error,
    model::{
        shipment::{BookIn, SplitIn, StatusIn},
        status::ShipmentStatus,
    },
    service::{Ctx, Input, shipments},
    web::page::{field, see_other},
};

/// `POST /app/{orgId}/shipments/{id}` with `action` `book`, `book_print` (book, then send the
/// labels to this station's printer), `print`, `cancel`, `status`, `apply_rule`, `split` or
/// `return`.
#[handler]
pub async fn act(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, id)): Path<(String, String)>,
    body: Vec<u8>,
) -> Response {
    let (mut desk, fields) = match Desk::open_form(req, ctx, &org, &body).await {
        Ok(opened) => opened,
        Err(answer) => return answer,
    };
    let actor = desk.actor.clone();
    let action = field(&fields, "action").unwrap_or_default();
    let done = match action {
        "book" | "book_print" => {
            let request = BookIn::default();
            match shipments::book(ctx, &actor, &org, &id, Input::ok(request)).await {
                Ok(_) if action == "book_print" => {
                    let printed = desk
                        .print_labels_said(req, ctx, &id)
                        .await
                        .unwrap_or_default();
                    desk.visit.leave_notice(req, &format!("Booked. {printed}"));
                    return see_other(&desk.path(&format!("shipments/{id}")));
                }
                Ok(_) => Ok((id.clone(), "Booked: the labels are ready.")),
                Err(err) => Err(err),
            }
        }
        "print" => {
            let printed = desk
                .print_labels_said(req, ctx, &id)
                .await
                .unwrap_or_else(|| "Choose this station's printer on the Scan page first.".into());
            desk.visit.leave_notice(req, &printed);
            return see_other(&desk.path(&format!("shipments/{id}")));
        }
        "cancel" => {
            let request = StatusIn {
                status: ShipmentStatus::Cancelled,
            };
            shipments::set_status(ctx, &actor, &org, &id, Input::ok(request))
                .await
                .map(|_| (id.clone(), "The shipment is cancelled."))
        }
        "status" => {
            let to = field(&fields, "status").and_then(ShipmentStatus::parse);
            match to {
                Some(status) => {
                    shipments::set_status(ctx, &actor, &org, &id, Input::ok(StatusIn { status }))
                        .await
                        .map(|_| (id.clone(), "The status is changed."))
                }
                None => Err(Error::invalid("status", "choose a status")),
            }
        }
        "apply_rule" => {
            let request = crate::model::shipment::ApplyRuleIn {
                shipping_rule_id: field(&fields, "shippingRuleId")
                    .unwrap_or_default()
                    .to_string(),
            };
            shipments::apply_shipping_rule(ctx, &actor, &org, &id, Input::ok(request))
                .await
                .map(|_| (id.clone(), "The rule is applied."))
        }
        "split" => {
            // The order lines ticked move to a new shipment; none ticked moves the whole parcel.
            let lines: Vec<String> = fields
                .iter()
                .filter(|(k, _)| k == "orderLineIds")
                .map(|(_, v)| v.clone())
                .collect();
            let reference = field(&fields, "reference")
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(str::to_string);
            let request = SplitIn {
                order_line_ids: (!lines.is_empty()).then_some(lines),
                reference,
                ..SplitIn::default()
            };
            let parcel = field(&fields, "parcelId").unwrap_or_default().to_string();
            shipments::split(ctx, &actor, &org, &id, &parcel, Input::ok(request))
                .await
                .map(|made| {
                    (
                        made.new_shipment.shipment.id,
                        "Split off: this is the new shipment.",
                    )
                })
        }
        "return" => shipments::create_return(ctx, &actor, &org, &id)
            .await
            .map(|made| (made.shipment.id, "The return shipment is made.")),
        other => Err(Error::invalid("action", format!("no action {other:?}"))),
    };
    match done {
        Ok((shown, notice)) => {
            desk.visit.leave_notice(req, notice);
            see_other(&desk.path(&format!("shipments/{shown}")))
        }
        Err(err) if super::is_refusal(&err) => desk.refused(req, err),
        Err(err) => shipment_page(&mut desk, req, ctx, &id, Some(err.to_string())).await,
    }
}
