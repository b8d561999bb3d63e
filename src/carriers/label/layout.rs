//! Where everything goes on the PDF label. All positions are millimetres from the label's
//! top-left corner; text positions are baselines. The parties are blocks of lines: a line too
//! long for the label shrinks a little, then wraps onto a second line (at a word, or between
//! characters when one word is too long), so that the end of an address, its house number,
//! is never cut; a block with more lines than room closes up its spacing.

use super::{canvas::*, font::Font, *};

pub(super) const LABEL_W: f32 = 100.0;
pub(super) const LABEL_H: f32 = 150.0;
pub(super) const A4_OFFSET: f32 = 10.0;
/// Margin inside the label.
pub(super) const MARGIN: f32 = 4.0;
pub(super) const RIGHT: f32 = LABEL_W - MARGIN;
pub(super) const INNER_W: f32 = LABEL_W - 2.0 * MARGIN;

/// Widest bar module; short tracking numbers need no wider bars.
pub(super) const MAX_MODULE: f32 = 0.5;
/// Narrower modules than this are unlikely to scan from a 203 dpi thermal print.
pub(super) const MIN_MODULE: f32 = 0.19;
/// Quiet zone on either side of the barcode, in modules (ISO/IEC 15417 asks for 10).
pub(super) const QUIET_ZONE: f32 = 10.0;
/// The bars' height on a label without a service point (which takes some of it).
pub(super) const BARS_HEIGHT: f32 = 24.0;
/// Where the bars end; the tracking number is printed under them.
const BARS_BOTTOM: f32 = 113.0 + BARS_HEIGHT;

/// Font, size and the smallest size it may shrink to when the text is too wide.
#[derive(Clone, Copy, Debug)]
pub(super) struct Style {
    pub(super) font: Font,
    pub(super) size: f32,
    pub(super) min_size: f32,
}

const fn style(font: Font, size: f32, min_size: f32) -> Style {
    Style {
        font,
        size,
        min_size,
    }
}

const CAPTION: Style = style(Font::Bold, 6.5, 6.5);
const CARRIER: Style = style(Font::Bold, 13.0, 9.0);
const PRODUCT: Style = style(Font::Regular, 9.0, 7.0);
const PARCEL: Style = style(Font::Bold, 11.0, 8.0);
const DATE: Style = style(Font::Regular, 8.0, 6.0);
const SENDER_NAME: Style = style(Font::Bold, 8.0, 6.0);
const SENDER_LINE: Style = style(Font::Regular, 8.0, 6.0);
const SENDER_PHONE: Style = style(Font::Regular, 7.0, 6.0);
const RECEIVER_CAPTION: Style = style(Font::Bold, 7.0, 7.0);
pub(super) const RECEIVER_NAME: Style = style(Font::Bold, 14.0, 9.0);
const RECEIVER_LINE: Style = style(Font::Regular, 11.0, 8.0);
const RECEIVER_CITY: Style = style(Font::Bold, 14.0, 9.0);
const RECEIVER_PHONE: Style = style(Font::Regular, 9.0, 7.0);
const VALUE: Style = style(Font::Bold, 10.0, 7.0);
const SMALL_VALUE: Style = style(Font::Bold, 8.5, 6.0);
const SERVICES: Style = style(Font::Regular, 8.0, 6.0);
const TRACKING: Style = style(Font::Bold, 11.0, 8.0);

/// One text of a block: drawn in `style`, or in `wrapped` on two lines rather than shrunk
/// below `wrap_below`; `gap` is the distance from the previous baseline, `wrapped_gap` the one
/// between its own two lines.
#[derive(Clone, Debug)]
pub(super) struct Field {
    pub(super) text: String,
    pub(super) style: Style,
    pub(super) wrap_below: f32,
    pub(super) wrapped: Style,
    pub(super) gap: f32,
    pub(super) wrapped_gap: f32,
}

/// A line ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Line {
    pub(super) font: Font,
    pub(super) size: f32,
    pub(super) chars: Vec<char>,
    /// Distance from the previous line's baseline.
    pub(super) gap: f32,
}

/// The lines `field` takes within `max_w`: one when it fits at no less than `wrap_below`
/// (or, being one long word, at its style's smallest size); else two in its wrapped style,
/// split after the most words that fit (between characters when the first word alone does not
/// fit), the second fitted (shrunk, and cut only past twice the label's width).
pub(super) fn lines_of(field: &Field, max_w: f32) -> Vec<Line> {
    let Style { font, size, .. } = field.style;
    let chars = printable(font, &field.text);
    let line = |size: f32, chars: Vec<char>, gap: f32| Line {
        font,
        size,
        chars,
        gap,
    };
    let width = text_width(font, size, &chars);
    if width <= max_w {
        return vec![line(size, chars, field.gap)];
    }
    let shrunk = size * max_w / width;
    if shrunk >= field.wrap_below {
        return vec![line(shrunk, chars, field.gap)];
    }
    let wrapped = field.wrapped;
    let fits = |part: &[char]| text_width(wrapped.font, wrapped.size, part) <= max_w;
    let at_word = (1..chars.len())
        .filter(|&i| chars[i] == ' ')
        .take_while(|&i| fits(&chars[..i]))
        .last();
    let at = match at_word {
        Some(at) => at,
        None if shrunk >= field.style.min_size => return vec![line(shrunk, chars, field.gap)],
        None => (1..chars.len())
            .take_while(|&i| fits(&chars[..i]))
            .last()
            .unwrap_or(1),
    };
    let first: Vec<char> = chars[..at].to_vec();
    let rest: Vec<char> = chars[at..]
        .iter()
        .copied()
        .skip_while(|c| *c == ' ')
        .collect();
    let (rest_size, rest) = fit(wrapped, max_w, rest);
    vec![
        Line {
            font: wrapped.font,
            size: wrapped.size,
            chars: first,
            gap: field.gap,
        },
        Line {
            font: wrapped.font,
            size: rest_size,
            chars: rest,
            gap: field.wrapped_gap,
        },
    ]
}

/// Draws `fields` as lines from baseline `top` on; when they need more room than down to
/// baseline `bottom`, their spacing closes up to fit. Returns the last baseline.
fn block(c: &mut Canvas, x: f32, top: f32, bottom: f32, max_w: f32, fields: &[Field]) -> f32 {
    let lines: Vec<Line> = fields.iter().flat_map(|f| lines_of(f, max_w)).collect();
    let needed: f32 = lines.iter().skip(1).map(|l| l.gap).sum();
    let scale = if needed > bottom - top {
        (bottom - top) / needed
    } else {
        1.0
    };
    let mut y = top;
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            y += line.gap * scale;
        }
        c.show(line.font, line.size, x, y, &line.chars);
    }
    y
}

fn field(text: String, style: Style, wrapped: Style, gap: f32, wrapped_gap: f32) -> Field {
    Field {
        text,
        style,
        wrap_below: wrapped.size,
        wrapped,
        gap,
        wrapped_gap,
    }
}

pub(super) fn draw_label(c: &mut Canvas, input: &LabelInput, modules: Option<&[u8]>) {
    // Header: carrier and product on the left, parcel count and date on the right.
    let parcel = format!("Parcel {} of {}", input.parcel_index, input.parcel_count);
    let parcel_w = c.text_right(PARCEL, RIGHT, 9.0, &parcel);
    c.text_right(DATE, RIGHT, 14.0, &display_date(&input.created_at));
    let header_w = INNER_W - parcel_w - 4.0;
    c.text(CARRIER, MARGIN, 9.0, header_w, &input.carrier_name);
    c.text(PRODUCT, MARGIN, 14.0, header_w, &input.product);
    c.rule(17.0, 0.8);

    sender(c, &input.sender);
    c.rule(43.0, 0.8);
    receiver(c, &input.receiver);
    c.rule(87.0, 0.8);

    // Reference and weight side by side, then the services.
    let split = 66.0;
    c.text(CAPTION, MARGIN, 91.0, INNER_W, "REFERENCE");
    c.text(VALUE, MARGIN, 96.0, split - MARGIN - 3.0, &input.reference);
    c.text(CAPTION, split, 91.0, INNER_W, "WEIGHT");
    let weight = format!("{} kg", display_weight(input.weight_kg));
    c.text(VALUE, split, 96.0, RIGHT - split, &weight);
    c.line(split - 2.0, 87.0, split - 2.0, 98.5, 0.4);
    c.rule(98.5, 0.4);
    c.text(CAPTION, MARGIN, 102.0, INNER_W, "SERVICES");
    let services = if input.services.is_empty() {
        String::from("-")
    } else {
        input.services.join(", ")
    };
    c.text(SERVICES, MARGIN, 106.0, INNER_W, &services);
    c.rule(109.0, 0.8);
    let mut y = 109.0;
    if let Some(point) = &input.service_point {
        y = service_point(c, point, y);
    }

    // Barcode, centred, with the tracking number under it; or a plain statement that there is
    // none.
    let top = y + 4.0;
    let height = BARS_BOTTOM - top;
    match modules {
        Some(modules) => {
            c.barcode(modules, top, height);
            c.text_centered(
                TRACKING,
                LABEL_W / 2.0,
                BARS_BOTTOM + 5.0,
                &input.tracking_number,
            );
        }
        None => {
            c.text_centered(
                TRACKING,
                LABEL_W / 2.0,
                top + height / 2.0,
                "NO TRACKING NUMBER",
            );
            c.text_centered(
                SERVICES,
                LABEL_W / 2.0,
                top + height / 2.0 + 5.0,
                "This parcel has no barcode: the carrier was given no number for it.",
            );
        }
    }
}

fn sender(c: &mut Canvas, sender: &LabelAddress) {
    c.text(CAPTION, MARGIN, 20.5, INNER_W, "FROM");
    if let Some(phone) = non_empty(&sender.phone) {
        c.text_right(SENDER_PHONE, RIGHT, 20.5, &format!("Tel. {phone}"));
    }
    let wrapped = |s: Style| style(s.font, 6.5, 6.0);
    let fields: Vec<Field> = sender
        .lines(true)
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let style = if i == 0 { SENDER_NAME } else { SENDER_LINE };
            field(text, style, wrapped(style), 3.4, 3.0)
        })
        .collect();
    block(c, MARGIN, 24.0, 41.5, INNER_W, &fields);
}

fn receiver(c: &mut Canvas, receiver: &LabelAddress) {
    c.text(RECEIVER_CAPTION, MARGIN, 47.0, INNER_W, "TO");
    if let Some(phone) = non_empty(&receiver.phone) {
        c.text_right(RECEIVER_PHONE, RIGHT, 47.0, &format!("Tel. {phone}"));
    }
    let fields = |country_apart: bool| {
        let lines = receiver.lines(!country_apart);
        let last = lines.len() - 1;
        let mut fields: Vec<Field> = lines
            .into_iter()
            .enumerate()
            .map(|(i, text)| match i {
                0 => field(text, RECEIVER_NAME, style(Font::Bold, 12.0, 9.0), 0.0, 5.0),
                i if i == last => {
                    field(text, RECEIVER_CITY, style(Font::Bold, 12.0, 9.0), 6.2, 5.0)
                }
                _ => field(
                    text,
                    RECEIVER_LINE,
                    style(Font::Regular, 9.0, 7.0),
                    4.8,
                    4.0,
                ),
            })
            .collect();
        if country_apart {
            fields.push(field(
                receiver.country_code.clone(),
                RECEIVER_CITY,
                RECEIVER_CITY,
                6.2,
                6.2,
            ));
        }
        fields
    };
    let (top, bottom) = (53.0, 85.0);
    // The country has a line of its own when there is room for it.
    let apart = fields(true);
    let needed: f32 = apart
        .iter()
        .flat_map(|f| lines_of(f, INNER_W))
        .skip(1)
        .map(|l| l.gap)
        .sum();
    let chosen = if needed <= bottom - top {
        apart
    } else {
        fields(false)
    };
    block(c, MARGIN, top, bottom, INNER_W, &chosen);
}

/// The service point: its id and name, then its address; returns the y below it.
fn service_point(c: &mut Canvas, point: &ServicePoint, y: f32) -> f32 {
    let indent = 24.0;
    c.text(CAPTION, MARGIN, y + 4.3, indent, "SERVICE POINT");
    let name = point.address.as_ref().map(|a| a.name.as_str());
    let first = match (point.id.as_deref(), name) {
        (Some(id), Some(name)) => format!("{id} · {name}"),
        (Some(id), None) => id.to_owned(),
        (None, Some(name)) => name.to_owned(),
        (None, None) => String::new(),
    };
    let width = INNER_W - indent;
    c.text(SMALL_VALUE, MARGIN + indent, y + 4.3, width, &first);
    if let Some(a) = &point.address {
        let mut place = a.address1.clone();
        if let Some(address2) = non_empty(&a.address2) {
            place = format!("{place}, {address2}");
        }
        let place = format!("{place}, {} {}", a.postal_code, a.city);
        c.text(SERVICES, MARGIN + indent, y + 8.0, width, &place);
    }
    c.rule(y + 10.0, 0.8);
    y + 10.0
}
