//! The state or province of an address in the United States or Canada, told by its postcode:
//! carriers such as UPS require it there, and a Shipbase party carries none. A US ZIP code's
//! first three digits name its sectional centre, which lies in one state (USPS's list of ZIP
//! prefixes); a Canadian postcode's first letter names its province (Canada Post's forward
//! sortation areas; X splits into Nunavut and the Northwest Territories by its next two
//! characters).

/// The two-letter code of the state (US) or province (CA) of `postcode` in `country`; `None`
/// elsewhere or for a postcode that names none.
pub fn of(country: &str, postcode: &str) -> Option<&'static str> {
    match country {
        "US" => us_state(postcode),
        "CA" => canadian_province(postcode),
        _ => None,
    }
}

fn us_state(zip: &str) -> Option<&'static str> {
    let digits: String = zip.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() != 5 && digits.len() != 9 {
        return None;
    }
    let prefix: u16 = digits[..3].parse().ok()?;
    // Each entry covers the prefixes from its own up to the next entry's.
    let at = ZIP_PREFIXES.partition_point(|(start, _)| *start <= prefix);
    let (_, state) = ZIP_PREFIXES.get(at.checked_sub(1)?)?;
    (!state.is_empty()).then_some(*state)
}

/// `(first ZIP prefix, state)`, ascending; "" marks prefixes no state uses.
const ZIP_PREFIXES: &[(u16, &str)] = &[
    (0, ""),
    (5, "NY"),
    (6, "PR"),
    (8, "VI"),
    (9, "PR"),
    (10, "MA"),
    (28, "RI"),
    (30, "NH"),
    (39, "ME"),
    (50, "VT"),
    (55, "MA"),
    (56, "VT"),
    (60, "CT"),
    (70, "NJ"),
    (90, "AE"),
    (100, "NY"),
    (150, "PA"),
    (197, "DE"),
    (200, "DC"),
    (201, "VA"),
    (202, "DC"),
    (206, "MD"),
    (220, "VA"),
    (247, "WV"),
    (270, "NC"),
    (290, "SC"),
    (300, "GA"),
    (320, "FL"),
    (340, "AA"),
    (341, "FL"),
    (350, "AL"),
    (370, "TN"),
    (386, "MS"),
    (398, "GA"),
    (400, "KY"),
    (428, ""),
    (430, "OH"),
    (460, "IN"),
    (480, "MI"),
    (500, "IA"),
    (529, ""),
    (530, "WI"),
    (550, "MN"),
    (568, ""),
    (569, "DC"),
    (570, "SD"),
    (578, ""),
    (580, "ND"),
    (589, ""),
    (590, "MT"),
    (600, "IL"),
    (630, "MO"),
    (659, ""),
    (660, "KS"),
    (680, "NE"),
    (694, ""),
    (700, "LA"),
    (715, ""),
    (716, "AR"),
    (730, "OK"),
    (733, "TX"),
    (734, "OK"),
    (750, "TX"),
    (800, "CO"),
    (817, ""),
    (820, "WY"),
    (832, "ID"),
    (839, ""),
    (840, "UT"),
    (848, ""),
    (850, "AZ"),
    (866, ""),
    (870, "NM"),
    (885, "TX"),
    (886, ""),
    (889, "NV"),
    (899, ""),
    (900, "CA"),
    (962, "AP"),
    (967, "HI"),
    (969, "GU"),
    (970, "OR"),
    (980, "WA"),
    (995, "AK"),
];

fn canadian_province(postcode: &str) -> Option<&'static str> {
    let code: Vec<char> = postcode
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if code.len() != 6 {
        return None;
    }
    Some(match code[0] {
        'A' => "NL",
        'B' => "NS",
        'C' => "PE",
        'E' => "NB",
        'G' | 'H' | 'J' => "QC",
        'K' | 'L' | 'M' | 'N' | 'P' => "ON",
        'R' => "MB",
        'S' => "SK",
        'T' => "AB",
        'V' => "BC",
        // X0A, X0B and X0C are Nunavut; the rest of X the Northwest Territories.
        'X' if code[1] == '0' && matches!(code[2], 'A' | 'B' | 'C') => "NU",
        'X' => "NT",
        'Y' => "YT",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::of;

    #[test]
    fn us_zip_codes_name_their_state() {
        for (zip, state) in [
            ("10001", Some("NY")),
            ("02139", Some("MA")),
            ("05501", Some("MA")),
            ("20500", Some("DC")),
            ("22202", Some("VA")),
            ("30301", Some("GA")),
            ("33101", Some("FL")),
            ("60601", Some("IL")),
            ("73301", Some("TX")),
            ("73102", Some("OK")),
            ("75201", Some("TX")),
            ("79901", Some("TX")),
            ("88510", Some("TX")),
            ("89501", Some("NV")),
            ("90210", Some("CA")),
            ("96813", Some("HI")),
            ("98101", Some("WA")),
            ("99501", Some("AK")),
            ("10001-1234", Some("NY")),
            ("00100", None),
            ("1000", None),
            ("ABCDE", None),
        ] {
            assert_eq!(of("US", zip), state, "{zip}");
        }
    }

    #[test]
    fn canadian_postcodes_name_their_province() {
        for (code, province) in [
            ("M5V 3L9", Some("ON")),
            ("h2x1y4", Some("QC")),
            ("V6B 1A1", Some("BC")),
            ("X0A 0H0", Some("NU")),
            ("X1A 2P7", Some("NT")),
            ("Y1A 1A1", Some("YT")),
            ("D1A 1A1", None),
            ("M5V", None),
        ] {
            assert_eq!(of("CA", code), province, "{code}");
        }
        assert_eq!(of("DE", "53113"), None);
    }
}
