//! ISO 3166-1 alpha-2 country codes (the 249 assigned ones plus XK, which carriers use for Kosovo),
//! and which of them are members of the European Union.

const ALPHA2: &str = "\
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ \
BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ \
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ \
DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR \
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU \
ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ \
LA LB LC LI LK LR LS LT LU LV LY \
MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ \
NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA \
RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ \
TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ \
VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW";

/// Whether `code` is an assigned ISO 3166-1 alpha-2 code (upper case, as the standard writes it).
pub fn is_alpha2(code: &str) -> bool {
    // A binary search of the sorted list, each code two letters and a space (every party of every
    // shipment written is checked; scanning the list was 1 % of a create's samples).
    let (list, code) = (ALPHA2.as_bytes(), code.as_bytes());
    if code.len() != 2 {
        return false;
    }
    let (mut low, mut high) = (0, list.len().div_ceil(3));
    while low < high {
        let mid = (low + high) / 2;
        match list[3 * mid..3 * mid + 2].cmp(code) {
            std::cmp::Ordering::Less => low = mid + 1,
            std::cmp::Ordering::Greater => high = mid,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// The 27 member states of the European Union.
const EU: [&str; 27] = [
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT",
    "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
];

/// Whether `code` is a member state of the European Union; Greece may be written `GR` (ISO) or
/// `EL` (as the EU writes it), and case does not matter.
pub fn in_eu(code: &str) -> bool {
    let code = code.trim().to_ascii_uppercase();
    let code = if code == "EL" { "GR" } else { code.as_str() };
    EU.contains(&code)
}

/// Whether goods sent from `from` to `to` cross a customs border: different countries, not
/// both in the EU's customs union.
pub fn crosses_customs_border(from: &str, to: &str) -> bool {
    let same_union = in_eu(from) && in_eu(to);
    !(from.eq_ignore_ascii_case(to) || same_union)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goods_cross_a_customs_border_out_of_the_union_only() {
        assert!(!crosses_customs_border("DK", "DE"));
        assert!(!crosses_customs_border("NO", "no"));
        assert!(crosses_customs_border("DK", "NO"));
        assert!(crosses_customs_border("CH", "DE"));
    }

    #[test]
    fn the_list_has_every_assigned_code_once() {
        let codes: Vec<&str> = ALPHA2.split(' ').collect();
        assert_eq!(codes.len(), 250);
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, codes, "codes are sorted and unique");
    }

    #[test]
    fn known_and_unknown_codes() {
        for code in ["DK", "SE", "DE", "US", "GB", "XK"] {
            assert!(is_alpha2(code), "{code}");
        }
        for code in [
            "", "D", "dk", "UK", "XX", "DNK", "EU", "A ", " A", "AA", "ZZ", "ÅA",
        ] {
            assert!(!is_alpha2(code), "{code}");
        }
        // Every listed code is found, the first and the last included.
        for code in ALPHA2.split(' ') {
            assert!(is_alpha2(code), "{code}");
        }
    }

    #[test]
    fn the_eu_has_27_members_and_greece_by_either_code() {
        assert!(EU.iter().all(|code| is_alpha2(code)));
        for code in ["DE", "FR", "GR", "EL", "el", "IE", "HR", "CY", "HU", "de"] {
            assert!(in_eu(code), "{code}");
        }
        for code in ["US", "NO", "GB", "CH", "IS", "LI", "XK", "EU", ""] {
            assert!(!in_eu(code), "{code}");
        }
    }
}
