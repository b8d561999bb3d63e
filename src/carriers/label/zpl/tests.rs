use super::barcode::{QUIET_ZONE, module_width, symbol};
use super::raster::{Bitmap, rasterize};
use super::text::{fit, style};
use super::*;
use crate::carriers::label::LabelAddress;

fn address(name: &str, city: &str) -> LabelAddress {
    LabelAddress {
        name: name.into(),
        attention: None,
        address1: "ul. Świętokrzyska 12".into(),
        address2: None,
        postal_code: "00-916".into(),
        city: city.into(),
        country_code: "PL".into(),
        phone: None,
    }
}

fn input() -> LabelInput {
    LabelInput {
        carrier_name: "Sandbox".into(),
        product: "standard".into(),
        tracking_number: "SBX12345678901234".into(),
        reference: "ORDER^1_x~".into(),
        sender: LabelAddress {
            phone: Some("+4570000000".into()),
            ..address("Shipbase Warehouse", "Aarhus")
        },
        receiver: LabelAddress {
            phone: Some("+48 601 234 567".into()),
            ..address("Łukasz Żółć", "Warszawa")
        },
        weight_kg: 1.5,
        parcel_index: 2,
        parcel_count: 3,
        created_at: "2026-11-23T10:00:00.000Z".into(),
        ..LabelInput::default()
    }
}

/// The `^FD` data of the font 0 fields.
fn texts(zpl: &str) -> Vec<&str> {
    zpl.lines()
        .filter(|l| l.contains("^A0N"))
        .filter_map(|l| l.split("^FD").nth(1)?.strip_suffix("^FS"))
        .collect()
}

#[test]
fn a_label_is_one_program_with_its_barcode_phones_and_ascii_text_in_font_0() {
    let zpl = render(&input());
    assert!(
        zpl.starts_with("^XA\n^CI28\n^PW800\n^LL1200\n") && zpl.ends_with("^XZ\n"),
        "{zpl}"
    );
    assert_eq!(zpl.matches("^XA").count(), 1);
    // 17 characters in subset B: (17 + 2) × 11 + 13 = 222 modules, 3 dots each, centred.
    assert!(
        zpl.contains("^FO67,980^BY3^BCN,150,N,N,N,N^FH^FD>:SBX12345678901234^FS"),
        "{zpl}"
    );
    let texts = texts(&zpl);
    for text in [
        "Sandbox",
        "Parcel 2 of 3",
        "2026-11-23",
        "Shipbase Warehouse",
        "00-916 Aarhus, PL",
        "00-916 Warszawa",
        "PL",
        "Tel. +4570000000",
        "Tel. +48 601 234 567",
        "1.5 kg",
        "SBX12345678901234",
        // Reserved characters never end a field early.
        "ORDER_5E1_5Fx_7E",
    ] {
        assert!(texts.contains(&text), "{text} missing from {texts:?}");
    }
    // Text font 0 cannot show is drawn: the name and the street, nowhere as text.
    assert!(
        !zpl.contains("Łukasz") && !zpl.contains("Świętokrzyska"),
        "{zpl}"
    );
    assert!(zpl.lines().all(|l| l.is_ascii()));
    assert_eq!(zpl.matches("^GFA,").count(), 3, "{zpl}");
    // Every field is opened and closed.
    assert_eq!(zpl.matches("^FO").count(), zpl.matches("^FS").count());
}

#[test]
fn the_module_width_is_the_widest_that_fits_the_label_with_its_quiet_zones() {
    let short = symbol("SBX1234567").unwrap();
    assert_eq!(short.modules, 11 * 12 + 13);
    assert_eq!(module_width(short.modules, 800), Some(3));

    // 26 characters: 321 modules and 20 of quiet zone are 1023 dots at 3, 682 at 2.
    let long = symbol("JJD00022334455667788990011").unwrap();
    assert_eq!(long.data, ">:JJD00022334455667788990011");
    assert_eq!(long.modules, 321);
    assert_eq!(module_width(long.modules, 800), Some(2));
    assert!((long.modules + 2 * QUIET_ZONE) * 2 <= 800);

    // An even number of digits goes in subset C, two digits a symbol: 13 + 2 symbols.
    let digits = symbol("12345678901234567890123456").unwrap();
    assert_eq!(digits.data, ">;12345678901234567890123456");
    assert_eq!(digits.modules, 11 * 15 + 13);
    assert_eq!(module_width(digits.modules, 800), Some(3));
    // An odd number of digits stays in subset B.
    assert_eq!(symbol("123").unwrap().data, ">:123");

    // The longest subset B number at one dot: 67 characters (11 × 69 + 13 + 20 = 792 dots).
    assert_eq!(
        module_width(symbol(&"A".repeat(67)).unwrap().modules, 800),
        Some(1)
    );
    assert_eq!(
        module_width(symbol(&"A".repeat(68)).unwrap().modules, 800),
        None
    );

    assert_eq!(symbol("a>b^_").unwrap().data, ">:a><b_5E_5F");
    assert_eq!(symbol(""), None);
    assert_eq!(symbol("ÄBC"), None);
}

#[test]
fn a_long_number_is_centred_at_the_width_that_fits() {
    let zpl = render(&LabelInput {
        tracking_number: "JJD00022334455667788990011".into(),
        ..input()
    });
    // (800 − 321 × 2) / 2 = 79.
    assert!(
        zpl.contains("^FO79,980^BY2^BCN,150,N,N,N,N^FH^FD>:JJD00022334455667788990011^FS"),
        "{zpl}"
    );
}

#[test]
fn without_a_tracking_number_the_label_says_so_and_has_no_barcode() {
    let zpl = render(&LabelInput {
        tracking_number: String::new(),
        ..input()
    });
    assert!(!zpl.contains("^BC"), "{zpl}");
    assert!(texts(&zpl).contains(&"NO TRACKING NUMBER"), "{zpl}");
}

#[test]
fn a_graphic_field_is_hex_rows_of_whole_bytes() {
    let mut bitmap = Bitmap::new(10, 3);
    bitmap.set(0, 0);
    bitmap.set(9, 2);
    // 10 pixels take 2 bytes a row; 3 rows are 6 bytes, 12 hex digits.
    assert_eq!(bitmap.bytes_per_row(), 2);
    assert_eq!(bitmap.graphic_field(), "^GFA,6,6,2,800000000040");

    let text: Vec<char> = "Żółć".chars().collect();
    let drawn = rasterize(Font::Bold, 40, 736, &text);
    assert_eq!(drawn.height, 40);
    assert_eq!(
        drawn.width,
        super::raster::width(Font::Bold, 40, &text).ceil() as u32
    );
    let field = drawn.graphic_field();
    let total = drawn.width.div_ceil(8) * 40;
    let header = format!("^GFA,{total},{total},{},", drawn.width.div_ceil(8));
    assert!(field.starts_with(&header), "{field}");
    assert_eq!(field.len(), header.len() + 2 * total as usize);
    // Ink: the dot of the Ż above the cap height, the letters' stems on the baseline.
    let inked = (0..drawn.height)
        .flat_map(|y| (0..drawn.width).map(move |x| (x, y)))
        .filter(|&(x, y)| drawn.get(x, y))
        .count();
    assert!(inked > 200 && inked < 1200, "{inked}");
    // Cut at the field's width.
    assert_eq!(rasterize(Font::Bold, 40, 30, &text).width, 30);
}

#[test]
fn a_long_line_wraps_before_it_is_cut_and_keeps_its_house_number() {
    let line = style(Font::Regular, 38, 30);
    let street = "Rue du Faubourg Saint-Honoré et de la Grande Armée Prolongée 123a";
    let one = fit(line, 736, 1, street);
    assert_eq!(one.lines.len(), 1);
    assert!(one.lines[0].ends_with(&['.', '.', '.']), "{:?}", one.lines);
    let two = fit(line, 736, 2, street);
    assert_eq!(two.height, 30);
    assert_eq!(two.lines.len(), 2);
    let second: String = two.lines[1].iter().collect();
    assert!(second.ends_with(" 123a"), "{second}");
    assert!(!two.font0);

    // ASCII text stays font 0 and wraps the same way.
    let ascii = fit(line, 736, 2, &street.replace('é', "e"));
    assert!(ascii.font0);
    let second: String = ascii.lines[1].iter().collect();
    assert!(second.ends_with(" 123a"), "{second}");

    // A short line keeps its size; a slightly long one shrinks instead of wrapping.
    assert_eq!(fit(line, 736, 2, "Main Street 1").height, 38);
    let street: Vec<char> = "Świętokrzyska 1234567".chars().collect();
    let full = super::raster::width(Font::Regular, 38, &street);
    let shrunk = fit(line, (full * 0.9) as u32, 2, "Świętokrzyska 1234567");
    assert_eq!((shrunk.height, shrunk.lines.len()), (34, 1));
}

#[test]
fn a_service_point_is_printed_with_its_id_and_address_and_everything_stays_on_the_label() {
    let long = "Rue du Faubourg Saint-Honoré et de la Grande Armée Prolongée 123a";
    let zpl = render(&LabelInput {
        receiver: LabelAddress {
            attention: Some("Reception".into()),
            address1: long.into(),
            address2: Some(long.into()),
            ..input().receiver
        },
        service_point: Some(ServicePoint {
            id: Some("SP-4711".into()),
            address: Some(LabelAddress {
                name: "Kiosk Centrum".into(),
                ..address("Kiosk Centrum", "Warszawa")
            }),
        }),
        ..input()
    });
    let texts = texts(&zpl);
    for text in [
        "SERVICE POINT",
        "ID SP-4711",
        "Kiosk Centrum",
        "Att. Reception",
    ] {
        assert!(texts.contains(&text), "{text} missing from {texts:?}");
    }
    for field in zpl.lines().filter(|l| l.starts_with("^FO")) {
        let rest = &field[3..];
        let (x, y) = rest[..rest.find('^').unwrap()].split_once(',').unwrap();
        let (x, y): (u32, u32) = (x.parse().unwrap(), y.parse().unwrap());
        assert!(x < WIDTH && y < HEIGHT, "{field}");
    }
}
