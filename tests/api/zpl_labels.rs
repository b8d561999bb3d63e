//! ZPL labels as a thermal printer prints them (DESIGN §17): booked through the API, rendered
//! offline by zplkit through tests/zpl_render.py (its font 0, like a Zebra's, has no glyph
//! outside ASCII, so text a printer could not show fails the render), scanned with zbarimg.
//!
//! The renderer runs on `SHIPBASE_ZPL_PYTHON` (default `python3`), which needs zplkit; `.ci/run`
//! makes such a virtualenv. With `SHIPBASE_ZPL_LOOKS` set to a directory, the rendered labels
//! are also copied there to be looked at.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::{Value, json};

use crate::fixtures::{
    Shop, id_of,
    printed::{decoded, of_type, run_tool},
};

/// Label size in dots (100 × 150 mm at 203 dpi).
const WIDTH: usize = 800;
const HEIGHT: usize = 1200;

/// A rendered label: the PNG file and its grey levels, row by row (0 black, 255 white).
struct Rendered {
    png: PathBuf,
    grey: Vec<u8>,
}

impl Rendered {
    /// Dark pixels in the rectangle from (`x0`, `y0`) to (`x1`, `y1`), exclusive.
    fn dark(&self, (x0, y0): (usize, usize), (x1, y1): (usize, usize)) -> usize {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| y * WIDTH + x))
            .filter(|&i| self.grey[i] < 128)
            .count()
    }

    fn scanned(&self) -> String {
        let png = self.png.to_string_lossy();
        run_tool("zbarimg", &["--quiet", "--raw", &png], "zbar-tools")
            .trim()
            .to_string()
    }
}

/// Renders `zpl` with tests/zpl_render.py; fails the test with the renderer's error.
fn render(zpl: &str, dir: &Path, name: &str) -> Rendered {
    let python = std::env::var("SHIPBASE_ZPL_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/zpl_render.py");
    let (file, png, pgm) = (
        dir.join(format!("{name}.zpl")),
        dir.join(format!("{name}.png")),
        dir.join(format!("{name}.pgm")),
    );
    std::fs::write(&file, zpl).unwrap();
    let install = "python3 -m venv ~/.cache/shipbase-zpl && \
        ~/.cache/shipbase-zpl/bin/pip install zplkit==0.3.2, then run the tests with \
        SHIPBASE_ZPL_PYTHON=~/.cache/shipbase-zpl/bin/python (as .ci/run does)";
    let output = Command::new(&python)
        .arg(script)
        .args([&file, &png, &pgm])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python} to render ZPL ({e}); {install}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => {}
        Some(3) => panic!("{stderr}rendering ZPL needs zplkit: {install}"),
        _ => panic!("the ZPL renderer refused the {name} label: {stderr}\n{zpl}"),
    }
    if let Ok(looks) = std::env::var("SHIPBASE_ZPL_LOOKS") {
        std::fs::create_dir_all(&looks).unwrap();
        std::fs::copy(&png, Path::new(&looks).join(format!("{name}.png"))).unwrap();
    }
    let pgm = std::fs::read(&pgm).unwrap();
    let header = format!("P5\n{WIDTH} {HEIGHT}\n255\n");
    assert!(
        pgm.starts_with(header.as_bytes()),
        "not an 800 × 1200 label"
    );
    Rendered {
        png,
        grey: pgm[header.len()..].to_vec(),
    }
}

/// A `carrier_slug` carrier printing ZPL labels.
async fn zpl_carrier(shop: &Shop, carrier_slug: &str) -> Value {
    shop.app
        .create_carrier_with(
            &shop.org,
            json!({"name": "Thermal", "carrierSlug": carrier_slug, "config": {"labelFormat": "zpl"},
                   "senderAddressId": id_of(&shop.address)}),
        )
        .await
}

/// Books `body` (on `carrier`) and returns the ZPL of its first label and the booked shipment.
async fn book(shop: &Shop, carrier: &Value, mut body: Value) -> (String, Value) {
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    let id = id_of(&shop.create(body).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let label = &of_type(&booked, "label")[0];
    assert_eq!(
        (&label["format"], &label["size"]),
        (&json!("zpl"), &json!("100X150"))
    );
    (String::from_utf8(decoded(label)).unwrap(), booked)
}

/// The receiver of `body` moved to another address.
fn receiver(
    mut body: Value,
    name: &str,
    street: &str,
    postal: &str,
    city: &str,
    cc: &str,
) -> Value {
    let party = &mut body["parties"][0];
    party["name"] = json!(name);
    party["address1"] = json!(street);
    party["postalCode"] = json!(postal);
    party["city"] = json!(city);
    party["countryCode"] = json!(cc);
    body
}

#[tokio::test]
async fn a_26_character_tracking_number_scans_whole_from_the_printed_label() {
    let shop = Shop::new().await;
    let carrier = zpl_carrier(&shop, "manual").await;
    let number = "JJD00022334455667788990011";
    let mut body = shop.body();
    body["carrierSettings"]["additionalParameters"] = json!({"trackingNumber": number});
    let (zpl, booked) = book(&shop, &carrier, body).await;
    assert_eq!(booked["parcels"][0]["trackingNumber"], number);

    // 321 modules of 2 dots (3 would be 1023 with the quiet zones), centred: (800 - 642) / 2.
    assert!(
        zpl.contains(&format!("^FO79,980^BY2^BCN,150,N,N,N,N^FH^FD>:{number}^FS")),
        "{zpl}"
    );
    let dir = tempfile::tempdir().unwrap();
    let label = render(&zpl, dir.path(), "long-number");
    assert_eq!(label.scanned(), number);
    // The bars stay inside the label with their quiet zones (10 modules, 20 dots) clear.
    let bars = (980, 1130);
    assert_eq!(label.dark((0, bars.0), (79, bars.1)), 0);
    assert_eq!(label.dark((721, bars.0), (WIDTH, bars.1)), 0);
    assert!(label.dark((79, bars.0), (81, bars.1)) > 0);
}

#[tokio::test]
async fn cyrillic_greek_and_polish_names_print_as_drawn_text() {
    let shop = Shop::new().await;
    let carrier = zpl_carrier(&shop, "sandbox").await;
    let dir = tempfile::tempdir().unwrap();
    let receivers = [
        (
            "cyrillic",
            "Димитър Петров",
            "ул. Витоша 15",
            "1000",
            "София",
            "BG",
        ),
        (
            "greek",
            "Γιώργος Παπαδόπουλος",
            "Οδός Ερμού 25",
            "105 63",
            "Αθήνα",
            "GR",
        ),
        (
            "polish",
            "Łukasz Żółć",
            "ul. Świętokrzyska 12",
            "00-916",
            "Warszawa",
            "PL",
        ),
    ];
    for (script, name, street, postal, city, country) in receivers {
        let body = receiver(shop.body(), name, street, postal, city, country);
        let (zpl, booked) = book(&shop, &carrier, body).await;
        // Nothing but ASCII goes to the printer: the name is a graphic field where it is drawn.
        assert!(zpl.is_ascii(), "{zpl}");
        assert!(zpl.contains("\n^FO32,336^GFA,"), "{script}: {zpl}");
        let label = render(&zpl, dir.path(), script);
        // The receiver's name, 50 dots tall from y 336, is drawn.
        let ink = label.dark((32, 336), (768, 386));
        assert!(ink > 1500, "{script}: {ink} dark pixels where the name is");
        let number = booked["parcels"][0]["trackingNumber"].as_str().unwrap();
        assert_eq!(label.scanned(), number, "{script}");
    }
}

#[tokio::test]
async fn the_sender_and_receiver_phones_are_printed() {
    let shop = Shop::new().await;
    let carrier = zpl_carrier(&shop, "sandbox").await;
    let (zpl, _) = book(&shop, &carrier, shop.body()).await;
    // ASCII phones are font 0 text, right-aligned in the FROM and TO captions' lines.
    assert!(
        zpl.contains("^FO400,122^A0N,22,22^FB368,1,0,R^FH^FDTel. +4570000000^FS"),
        "{zpl}"
    );
    assert!(
        zpl.contains("^FO400,300^A0N,28,28^FB368,1,0,R^FH^FDTel. +4512345678^FS"),
        "{zpl}"
    );
    let dir = tempfile::tempdir().unwrap();
    let label = render(&zpl, dir.path(), "phones");
    assert!(label.dark((400, 300), (768, 328)) > 300);
}

#[tokio::test]
async fn a_long_address_line_wraps_and_keeps_its_house_number() {
    let shop = Shop::new().await;
    let carrier = zpl_carrier(&shop, "sandbox").await;
    let dir = tempfile::tempdir().unwrap();

    let street = "Rue du Faubourg Saint-Honore et de la Grande Armee Prolongee 123a";
    let body = receiver(shop.body(), "Jane Receiver", street, "75008", "Paris", "FR");
    let (zpl, _) = book(&shop, &carrier, body).await;
    // Shrunk to its smallest size (30), then on two lines below the name.
    for line in [
        "^FO32,394^A0N,30,30^FH^FDRue du Faubourg Saint-Honore et de la Grande^FS",
        "^FO32,429^A0N,30,30^FH^FDArmee Prolongee 123a^FS",
    ] {
        assert!(zpl.contains(line), "{line} missing from {zpl}");
    }
    render(&zpl, dir.path(), "long-street");

    // The same street with its accents is drawn, on two lines as well.
    let street = "Rue du Faubourg Saint-Honoré et de la Grande Armée Prolongée 123a";
    let body = receiver(shop.body(), "Jane Receiver", street, "75008", "Paris", "FR");
    let (zpl, _) = book(&shop, &carrier, body).await;
    let drawn: Vec<&str> = zpl
        .lines()
        .filter(|l| l.contains("^GFA,"))
        .map(|l| &l[..l.find("^GFA").unwrap()])
        .collect();
    assert_eq!(drawn, ["^FO32,394", "^FO32,429"], "{zpl}");
    let label = render(&zpl, dir.path(), "long-street-accents");
    // The second line ("Prolongée 123a") has ink, and the line under it is the city.
    assert!(label.dark((32, 429), (768, 459)) > 500);
}

#[tokio::test]
async fn a_service_point_is_printed_with_its_id_and_address() {
    let shop = Shop::new().await;
    let carrier = zpl_carrier(&shop, "manual").await;
    let number = "JVGL0612345678901234567890";
    let mut body = receiver(
        shop.body(),
        "Димитър Петров",
        "ул. Витоша 15",
        "1000",
        "София",
        "BG",
    );
    body["carrierSettings"]["additionalParameters"] = json!({"trackingNumber": number});
    body["servicePointId"] = json!("SP-4711");
    body["parties"].as_array_mut().unwrap().push(json!({
        "type": "service_point", "name": "Lafka Vitosha", "address1": "bul. Vitosha 2",
        "postalCode": "1000", "city": "Sofia", "countryCode": "BG"
    }));
    let (zpl, _) = book(&shop, &carrier, body).await;
    for text in [
        "^FDSERVICE POINT^FS",
        "^FDID SP-4711^FS",
        "^FDLafka Vitosha^FS",
        "^FDbul. Vitosha 2^FS",
        "^FD1000 Sofia, BG^FS",
    ] {
        assert!(zpl.contains(text), "{text} missing from {zpl}");
    }
    let dir = tempfile::tempdir().unwrap();
    let label = render(&zpl, dir.path(), "service-point");
    // The block is printed above the reference line (y 830): its rule at 663, then its lines.
    assert!(zpl.contains("\n^FO32,663^GB736,2,2^FS\n"), "{zpl}");
    assert!(label.dark((32, 700), (768, 826)) > 1000);
    assert_eq!(label.scanned(), number);
}

#[tokio::test]
async fn a_parcel_without_a_number_prints_no_barcode_and_says_so() {
    let shop = Shop::new().await;
    let carrier = zpl_carrier(&shop, "manual").await;
    let (zpl, booked) = book(&shop, &carrier, shop.body()).await;
    assert_eq!(booked["parcels"][0]["trackingNumber"], Value::Null);
    assert!(!zpl.contains("^BC"), "no barcode: {zpl}");
    assert!(zpl.contains("^FDNO TRACKING NUMBER^FS"), "{zpl}");
    let dir = tempfile::tempdir().unwrap();
    // It renders (the renderer refuses what a printer's font 0 could not show) and has ink.
    let label = render(&zpl, dir.path(), "unnumbered");
    assert!(label.dark((0, 900), (WIDTH, HEIGHT)) > 0);
}
