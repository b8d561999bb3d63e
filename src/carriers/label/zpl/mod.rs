//! Labels in ZPL II for thermal printers: 100 × 150 mm at 203 dpi (800 × 1200
//! dots), the same content as the PDF label: carrier and product, "Parcel n of m", the date,
//! sender and receiver with their phones, the service point when there is one, reference, weight,
//! services, and a Code 128 barcode of the parcel's tracking number (`^BC`, the printer draws it;
//! `barcode` sizes it) with the number under it, or "NO TRACKING NUMBER" when there is none.
//!
//! Text is NFC. A field the printer's font 0 can show is sent as text (`^A0`); any other (Latin
//! beyond ASCII, Greek, Cyrillic) is drawn here with the label's embedded font and sent as a
//! graphic field (`raster`). Names and address lines wrap onto a second line before they are
//! cut (`text`), within the room their block has.

mod barcode;
mod raster;
mod test_page;
#[cfg(test)]
mod tests;
mod text;

pub use test_page::render as test_page;

use std::fmt::Write;

use super::{LabelAddress, LabelInput, ServicePoint, display_date, display_weight, font::Font};
use text::{Align, Fitted, Style, emit, fit, style};

/// Label width and height in dots (8 dots per millimetre).
const WIDTH: u32 = 800;
const HEIGHT: u32 = 1200;
const MARGIN: u32 = 32;
const INNER: u32 = WIDTH - 2 * MARGIN;
const RIGHT: u32 = WIDTH - MARGIN;

const CAPTION: Style = style(Font::Bold, 20, 20);
const CARRIER: Style = style(Font::Bold, 44, 30);
const PRODUCT: Style = style(Font::Regular, 26, 20);
const PARCEL: Style = style(Font::Bold, 34, 26);
const DATE: Style = style(Font::Regular, 24, 20);
const SENDER_NAME: Style = style(Font::Bold, 24, 20);
const SENDER_LINE: Style = style(Font::Regular, 24, 20);
const SENDER_PHONE: Style = style(Font::Regular, 22, 18);
const RECEIVER_CAPTION: Style = style(Font::Bold, 24, 24);
const RECEIVER_PHONE: Style = style(Font::Regular, 28, 22);
const VALUE: Style = style(Font::Bold, 34, 24);
const SERVICES: Style = style(Font::Regular, 24, 20);
const TRACKING: Style = style(Font::Bold, 34, 24);
const NO_BARCODE: Style = style(Font::Bold, 40, 30);
const POINT_ID: Style = style(Font::Bold, 30, 24);
const POINT_NAME: Style = style(Font::Bold, 26, 22);
const POINT_LINE: Style = style(Font::Regular, 26, 22);

/// The receiver's name, address lines and city line: full size, or smaller when a service
/// point shares the block.
struct ReceiverStyles {
    name: Style,
    line: Style,
    city: Style,
}
const RECEIVER: ReceiverStyles = ReceiverStyles {
    name: style(Font::Bold, 50, 40),
    line: style(Font::Regular, 38, 30),
    city: style(Font::Bold, 48, 36),
};
const RECEIVER_COMPACT: ReceiverStyles = ReceiverStyles {
    name: style(Font::Bold, 42, 34),
    line: style(Font::Regular, 32, 26),
    city: style(Font::Bold, 38, 30),
};

// Where the blocks are, top to bottom (dots).
const HEADER_RULE: u32 = 116;
const SENDER_TOP: u32 = 150;
const SENDER_RULE: u32 = 296;
const RECEIVER_TOP: u32 = 336;
const RECEIVER_RULE: u32 = 830;
const SERVICES_RULE: u32 = 904;
const BARCODE_RULE: u32 = 966;
const BARS_TOP: u32 = 980;
const BARS_HEIGHT: u32 = 150;
const NUMBER_TOP: u32 = 1138;

/// The label as a ZPL II program, `^XA` … `^XZ`.
pub fn render(input: &LabelInput) -> String {
    let mut z = String::new();
    z.push_str("^XA\n^CI28\n");
    let _ = writeln!(z, "^PW{WIDTH}\n^LL{HEIGHT}");

    // Header: carrier and product on the left, parcel count and date on the right.
    let parcel = format!("Parcel {} of {}", input.parcel_index, input.parcel_count);
    let parcel = fit(PARCEL, INNER / 2, 1, &parcel);
    right(&mut z, 24, INNER / 2, &parcel);
    let date = fit(DATE, INNER / 2, 1, &display_date(&input.created_at));
    right(&mut z, 78, INNER / 2, &date);
    let header_w = INNER - parcel.width.max(date.width) - 24;
    left(&mut z, 24, &fit(CARRIER, header_w, 1, &input.carrier_name));
    left(&mut z, 78, &fit(PRODUCT, header_w, 1, &input.product));
    rule(&mut z, HEADER_RULE, 3);

    // Sender, small.
    let sender = &input.sender;
    left(&mut z, 124, &fit(CAPTION, INNER, 1, "FROM"));
    phone(&mut z, 122, SENDER_PHONE, &sender.phone);
    let lines = address_lines(sender, SENDER_NAME, SENDER_LINE, SENDER_LINE, true);
    block(&mut z, SENDER_TOP, SENDER_RULE - SENDER_TOP - 4, &lines);
    rule(&mut z, SENDER_RULE, 3);

    // Receiver, large; the service point below it takes the room it needs.
    let receiver = &input.receiver;
    left(&mut z, 304, &fit(RECEIVER_CAPTION, INNER, 1, "TO"));
    phone(&mut z, 300, RECEIVER_PHONE, &receiver.phone);
    let mut bottom = RECEIVER_RULE - 6;
    if let Some(point) = &input.service_point {
        let lines = point_lines(point);
        let height = 40 + lines.iter().map(Fitted::block_height).sum::<u32>();
        bottom -= height;
        rule(&mut z, bottom + 4, 2);
        left(
            &mut z,
            bottom + 14,
            &fit(CAPTION, INNER, 1, "SERVICE POINT"),
        );
        place(&mut z, bottom + 40, height - 40, &lines);
    }
    // The country has a line of its own unless a service point needs the room, and the
    // receiver is printed smaller when it would not fit whole beside a service point.
    let beside_point = input.service_point.is_some();
    let mut lines = receiver_lines(receiver, &RECEIVER, beside_point);
    if natural_height(&lines) > bottom - RECEIVER_TOP {
        lines = receiver_lines(receiver, &RECEIVER_COMPACT, true);
    }
    block(&mut z, RECEIVER_TOP, bottom - RECEIVER_TOP, &lines);
    rule(&mut z, RECEIVER_RULE, 3);

    // Reference and weight side by side, then the services.
    let split = 528;
    left(
        &mut z,
        RECEIVER_RULE + 10,
        &fit(CAPTION, INNER, 1, "REFERENCE"),
    );
    let reference = fit(VALUE, split - MARGIN - 24, 1, &input.reference);
    left(&mut z, RECEIVER_RULE + 34, &reference);
    at(
        &mut z,
        split,
        RECEIVER_RULE + 10,
        &fit(CAPTION, INNER, 1, "WEIGHT"),
    );
    let weight = format!("{} kg", display_weight(input.weight_kg));
    let weight = fit(VALUE, RIGHT - split, 1, &weight);
    at(&mut z, split, RECEIVER_RULE + 34, &weight);
    let _ = writeln!(
        z,
        "^FO{},{RECEIVER_RULE}^GB2,{},2^FS",
        split - 16,
        SERVICES_RULE - RECEIVER_RULE
    );
    rule(&mut z, SERVICES_RULE, 2);
    left(
        &mut z,
        SERVICES_RULE + 8,
        &fit(CAPTION, INNER, 1, "SERVICES"),
    );
    let services = if input.services.is_empty() {
        String::from("-")
    } else {
        input.services.join(", ")
    };
    left(
        &mut z,
        SERVICES_RULE + 30,
        &fit(SERVICES, INNER, 1, &services),
    );
    rule(&mut z, BARCODE_RULE, 3);

    tracking(&mut z, &input.tracking_number);
    z.push_str("^XZ\n");
    z
}

/// The barcode, centred, with the number under it; or, without a number or one Code 128
/// cannot take, a note in its place.
fn tracking(z: &mut String, number: &str) {
    let symbol = barcode::symbol(number)
        .and_then(|s| barcode::module_width(s.modules, WIDTH).map(|w| (s, w)));
    match symbol {
        Some((symbol, module)) => {
            let x = (WIDTH - symbol.modules * module) / 2;
            let _ = writeln!(
                z,
                "^FO{x},{BARS_TOP}^BY{module}^BCN,{BARS_HEIGHT},N,N,N,N^FH^FD{}^FS",
                symbol.data
            );
        }
        None => {
            let note = if number.trim().is_empty() {
                "NO TRACKING NUMBER"
            } else {
                "NO BARCODE"
            };
            let note = fit(NO_BARCODE, INNER, 1, note);
            emit(z, (MARGIN, BARS_TOP + 50), INNER, Align::Center, &note);
        }
    }
    if !number.trim().is_empty() {
        let text = fit(TRACKING, INNER, 1, number);
        emit(z, (MARGIN, NUMBER_TOP), INNER, Align::Center, &text);
    }
}

/// A party's lines: name, attention, address lines and "postal code city" (with ", country"
/// when `country_on_city`), each with its style.
fn address_lines(
    a: &LabelAddress,
    name: Style,
    line: Style,
    city: Style,
    country_on_city: bool,
) -> Vec<(Style, String)> {
    let lines = a.lines(country_on_city);
    let last = lines.len() - 1;
    lines
        .into_iter()
        .enumerate()
        .map(|(i, text)| match i {
            0 => (name, text),
            i if i == last => (city, text),
            _ => (line, text),
        })
        .collect()
}

/// The receiver's lines in `styles`, the country on its own line unless `country_on_city`.
fn receiver_lines(
    a: &LabelAddress,
    styles: &ReceiverStyles,
    country_on_city: bool,
) -> Vec<(Style, String)> {
    let mut lines = address_lines(a, styles.name, styles.line, styles.city, country_on_city);
    if !country_on_city {
        lines.push((styles.city, a.country_code.clone()));
    }
    lines
}

/// The service point's lines, fitted: its id, then its name and address.
fn point_lines(point: &ServicePoint) -> Vec<Fitted> {
    let mut lines = Vec::new();
    if let Some(id) = point
        .id
        .as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty())
    {
        lines.push(fit(POINT_ID, INNER, 1, &format!("ID {id}")));
    }
    if let Some(address) = &point.address {
        let parts = address_lines(address, POINT_NAME, POINT_LINE, POINT_LINE, true);
        lines.extend(parts.iter().map(|(s, text)| fit(*s, INNER, 1, text)));
    }
    lines
}

/// Dots `lines` take with each on one line.
fn natural_height(lines: &[(Style, String)]) -> u32 {
    lines
        .iter()
        .map(|(s, text)| fit(*s, INNER, 1, text).block_height())
        .sum()
}

/// Lines fitted into `height` dots below `top`: each on one line, and then, in order, those
/// that do not fit one line on two while the room lasts. Lines past the room are left out.
fn block(z: &mut String, top: u32, height: u32, lines: &[(Style, String)]) {
    let single: Vec<Fitted> = lines
        .iter()
        .map(|(s, text)| fit(*s, INNER, 1, text))
        .collect();
    let mut used: u32 = single.iter().map(Fitted::block_height).sum();
    let mut fitted = Vec::with_capacity(lines.len());
    for ((s, text), one) in lines.iter().zip(single) {
        let two = fit(*s, INNER, 2, text);
        let extra = two.block_height().saturating_sub(one.block_height());
        if two.lines.len() > 1 && used + extra <= height {
            used += extra;
            fitted.push(two);
        } else {
            fitted.push(one);
        }
    }
    place(z, top, height, &fitted);
}

/// Writes fitted lines from `top` down, leaving out what would pass `height`.
fn place(z: &mut String, top: u32, height: u32, lines: &[Fitted]) {
    let mut y = top;
    for line in lines {
        if y + line.block_height() > top + height + line.pitch() - line.height {
            break;
        }
        y = emit(z, (MARGIN, y), INNER, Align::Left, line);
    }
}

fn left(z: &mut String, y: u32, fitted: &Fitted) {
    emit(z, (MARGIN, y), INNER, Align::Left, fitted);
}

fn at(z: &mut String, x: u32, y: u32, fitted: &Fitted) {
    emit(z, (x, y), RIGHT - x, Align::Left, fitted);
}

/// `fitted` right-aligned to the margin in a field `width` dots wide.
fn right(z: &mut String, y: u32, width: u32, fitted: &Fitted) {
    emit(z, (RIGHT - width, y), width, Align::Right, fitted);
}

/// "Tel. …" at the right margin, when there is a phone.
fn phone(z: &mut String, y: u32, style: Style, phone: &Option<String>) {
    if let Some(phone) = super::non_empty(phone) {
        right(
            z,
            y,
            INNER / 2,
            &fit(style, INNER / 2, 1, &format!("Tel. {phone}")),
        );
    }
}

fn rule(z: &mut String, y: u32, thickness: u32) {
    let _ = writeln!(z, "^FO{MARGIN},{y}^GB{INNER},{thickness},{thickness}^FS");
}
