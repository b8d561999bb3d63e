//! Tracking through DHL's Parcel DE Shipment Tracking API (version 0, "Shipment Tracking 2.0"):
//! a GET whose `xml` query parameter holds one `<data>` element naming the request
//! (`d-get-piece-detail`), the tracking user and password DHL issues for it, the language and the
//! piece code; the gateway itself takes the app's API key and secret as HTTP Basic. The answer is
//! XML: a `piece-shipment` per piece with its `piece-event`s, each carrying DHL's standard event
//! code (`standard-event-code`) and its international coded event (`ice`).

use quick_xml::{
    Writer,
    events::{BytesDecl, BytesStart, Event},
};

use super::{NAME, host, setting};
use crate::{
    carriers::{CarrierEvent, Env, config_str, http},
    error::{Error, Result},
    model::{carrier::CarrierRecord, status::TrackingStatus},
};

const PATH: &str = "/parcel/de/tracking/v0/shipments";

/// The credentials tracking needs beyond booking's: the app's API secret and DHL's tracking
/// user. A carrier without them is not tracked.
pub(super) fn configured(carrier: &CarrierRecord) -> bool {
    ["apiSecret", "trackingUser", "trackingPassword"]
        .iter()
        .all(|key| config_str(carrier, key).is_some())
}

pub(super) async fn track(
    env: &Env,
    carrier: &CarrierRecord,
    number: &str,
) -> Result<Vec<CarrierEvent>> {
    if !configured(carrier) {
        tracing::debug!("a DHL Parcel Germany carrier without tracking credentials is not tracked");
        return Ok(Vec::new());
    }
    let xml = query(
        &setting(carrier, "trackingUser")?,
        &setting(carrier, "trackingPassword")?,
        number,
    )?;
    let builder = env
        .http()?
        .get(format!("{}{PATH}", host(env, carrier)))
        .basic_auth(
            setting(carrier, "apiKey")?,
            Some(setting(carrier, "apiSecret")?),
        )
        .query(&[("xml", xml)]);
    let answer = http::send(NAME, builder).await?;
    let status = answer.status.as_u16();
    if matches!(status, 401 | 403) {
        return Err(Error::CarrierRejected(format!(
            "{NAME} refused the API key or secret for tracking (HTTP {status})"
        )));
    }
    if !answer.status.is_success() {
        return Err(Error::CarrierUnavailable(format!(
            "{NAME} tracking answered HTTP {status}"
        )));
    }
    events(&String::from_utf8_lossy(&answer.body))
}

/// The request document: `<data appname password request language-code piece-code/>`.
fn query(user: &str, password: &str, number: &str) -> Result<String> {
    let mut writer = Writer::new(Vec::new());
    let mut data = BytesStart::new("data");
    data.push_attribute(("appname", user));
    data.push_attribute(("language-code", "en"));
    data.push_attribute(("password", password));
    data.push_attribute(("piece-code", number));
    data.push_attribute(("request", "d-get-piece-detail"));
    writer
        .write_event(Event::Decl(BytesDecl::new(
            "1.0",
            Some("UTF-8"),
            Some("no"),
        )))
        .and_then(|()| writer.write_event(Event::Empty(data)))
        .map_err(|e| Error::Internal(format!("cannot write a tracking request: {e}")))?;
    String::from_utf8(writer.into_inner())
        .map_err(|e| Error::Internal(format!("cannot write a tracking request: {e}")))
}

/// The events of DHL's answer, oldest first. "No data found" (code 100) is no events yet.
pub(super) fn events(xml: &str) -> Result<Vec<CarrierEvent>> {
    let document = roxmltree::Document::parse(xml).map_err(|e| {
        Error::CarrierUnavailable(format!("{NAME} tracking answered something not XML: {e}"))
    })?;
    let root = document.root_element();
    match root.attribute("code").unwrap_or("0") {
        "0" => {}
        "100" => return Ok(Vec::new()),
        code @ ("5" | "6" | "62") => {
            return Err(Error::CarrierRejected(format!(
                "{NAME} refused the tracking user or password (code {code}): {}",
                root.attribute("error").unwrap_or("login failed")
            )));
        }
        code => {
            return Err(Error::CarrierRejected(format!(
                "{NAME} tracking refused the request (code {code}): {}",
                root.attribute("error").unwrap_or("no reason given")
            )));
        }
    }
    let mut events: Vec<CarrierEvent> = root
        .descendants()
        .filter(|n| n.attribute("name") == Some("piece-event"))
        .filter_map(|e| {
            let status = status_of(
                e.attribute("ice").unwrap_or_default(),
                e.attribute("standard-event-code").unwrap_or_default(),
            )?;
            let place: Vec<&str> = [e.attribute("event-location"), e.attribute("event-country")]
                .into_iter()
                .flatten()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .collect();
            Some(CarrierEvent {
                status,
                description: e
                    .attribute("event-status")
                    .or(e.attribute("event-text"))
                    .map(|d| d.trim().to_string())
                    .filter(|d| !d.is_empty()),
                location: (!place.is_empty()).then(|| place.join(", ")),
                occurred_at: when(e.attribute("event-timestamp")?)?,
            })
        })
        .collect();
    events.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at));
    events.dedup();
    Ok(events)
}

/// Shipbase's status for DHL's standard event code (and its ICE where that says more); `None`
/// for what is no movement of the parcel (data services, money transfers).
fn status_of(ice: &str, standard: &str) -> Option<TrackingStatus> {
    use TrackingStatus as T;
    Some(match (ice, standard) {
        ("DLVRD", _) | (_, "ZU") => T::Delivered,
        ("RETRN", _) => T::Returned,
        (_, "DD" | "GT") => return None,
        (_, "VA") => T::Created,
        (_, "ES" | "AE") => T::PickedUp,
        (_, "PO") => T::OutForDelivery,
        (_, "ZF" | "LA") => T::ReadyForPickup,
        (_, "ZN" | "AN" | "BV") => T::Exception,
        _ => T::InTransit,
    })
}

/// DHL's `DD.MM.YYYY HH:mm`, German time, as RFC 3339 in UTC.
fn when(text: &str) -> Option<String> {
    let local = jiff::civil::DateTime::strptime("%d.%m.%Y %H:%M", text.trim()).ok()?;
    let zone = jiff::tz::TimeZone::get("Europe/Berlin").ok()?;
    let at = local.to_zoned_datetime(zone).ok()?.timestamp();
    Some(format!("{}", at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_document_escapes_what_it_carries() {
        let xml = query("zt12345", "ge\"heim<&", "00340434161094015902").unwrap();
        assert_eq!(
            xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?><data appname=\"zt12345\" language-code=\"en\" password=\"ge&quot;heim&lt;&amp;\" piece-code=\"00340434161094015902\" request=\"d-get-piece-detail\"/>"
        );
        let parsed = roxmltree::Document::parse(&xml).unwrap();
        assert_eq!(
            parsed.root_element().attribute("password"),
            Some("ge\"heim<&")
        );
    }

    #[test]
    fn german_times_become_utc() {
        // Winter (CET, +01:00) and summer (CEST, +02:00).
        assert_eq!(
            when("18.03.2016 10:02").as_deref(),
            Some("2016-03-18T09:02:00.000Z")
        );
        assert_eq!(
            when("01.07.2026 08:30").as_deref(),
            Some("2026-07-01T06:30:00.000Z")
        );
        assert_eq!(when("2016-03-18 10:02"), None);
    }

    #[test]
    fn standard_event_codes_map_to_statuses() {
        use TrackingStatus as T;
        assert_eq!(status_of("DLVRD", "GT"), Some(T::Delivered));
        assert_eq!(status_of("LDTMV", "PO"), Some(T::OutForDelivery));
        assert_eq!(status_of("CNRFC", "ZF"), Some(T::ReadyForPickup));
        assert_eq!(status_of("NTDEL", "ZN"), Some(T::Exception));
        assert_eq!(status_of("SHRCU", "ES"), Some(T::PickedUp));
        assert_eq!(status_of("SRTED", "AA"), Some(T::InTransit));
        assert_eq!(status_of("ADVIS", "DD"), None);
    }

    #[test]
    fn codes_other_than_success_are_refusals_or_nothing_yet() {
        assert!(
            events(r#"<?xml version="1.0"?><data name="piece-shipment-list" code="100"/>"#)
                .unwrap()
                .is_empty()
        );
        let err = events(
            r#"<?xml version="1.0"?><data name="piece-shipment-list" code="5" error="Login failed"/>"#,
        )
        .unwrap_err();
        assert!(matches!(err, Error::CarrierRejected(m) if m.contains("Login failed")));
        assert!(matches!(
            events("not xml").unwrap_err(),
            Error::CarrierUnavailable(_)
        ));
    }
}
