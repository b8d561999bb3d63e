//! The time zone of a place (DESIGN §7): carriers that ask for local times (MyDHL's planned
//! shipping time, customs dates) get them in the zone of the shipment's origin. A country's zone
//! comes from the IANA database's `zone.tab`; where a country has several, the zone of its
//! capital or most people, except where the postcode tells the region (Spain's Canary Islands,
//! Portugal's Madeira and Azores). Times are converted with jiff and its bundled database, so
//! a host without `/usr/share/zoneinfo` converts them too.

/// The IANA zone of an address in `country` (ISO 3166-1 alpha-2) with `postcode`; UTC for a
/// country the table does not know.
pub fn zone_of(country: &str, postcode: &str) -> &'static str {
    let digits: String = postcode.chars().filter(char::is_ascii_digit).collect();
    let number = |len: usize| digits.get(..len).and_then(|d| d.parse::<u32>().ok());
    match country {
        // Las Palmas (35) and Santa Cruz de Tenerife (38).
        "ES" if matches!(number(2), Some(35 | 38)) => "Atlantic/Canary",
        // Madeira 9000–9399, the Azores 9500–9999.
        "PT" if matches!(number(4), Some(9000..=9399)) => "Atlantic/Madeira",
        "PT" if matches!(number(4), Some(9500..=9999)) => "Atlantic/Azores",
        _ => ZONES
            .binary_search_by(|(code, _)| code.cmp(&country))
            .map_or("UTC", |i| ZONES[i].1),
    }
}

/// `at` as the local time in `zone` (UTC when the zone is unknown).
pub fn local(at: ::time::OffsetDateTime, zone: &str) -> jiff::ZonedDateTime {
    let timestamp = jiff::Timestamp::from_second(at.unix_timestamp()).unwrap_or_default();
    let tz = jiff::tz::TimeZone::get(zone).unwrap_or(jiff::tz::TimeZone::UTC);
    timestamp.to_zoned_datetime(tz)
}

/// Each country's zone, sorted by country code.
const ZONES: &[(&str, &str)] = &[
    ("AD", "Europe/Andorra"),
    ("AE", "Asia/Dubai"),
    ("AF", "Asia/Kabul"),
    ("AG", "America/Antigua"),
    ("AI", "America/Anguilla"),
    ("AL", "Europe/Tirane"),
    ("AM", "Asia/Yerevan"),
    ("AO", "Africa/Luanda"),
    ("AQ", "Antarctica/McMurdo"),
    ("AR", "America/Argentina/Buenos_Aires"),
    ("AS", "Pacific/Pago_Pago"),
    ("AT", "Europe/Vienna"),
    ("AU", "Australia/Sydney"),
    ("AW", "America/Aruba"),
    ("AX", "Europe/Mariehamn"),
    ("AZ", "Asia/Baku"),
    ("BA", "Europe/Sarajevo"),
    ("BB", "America/Barbados"),
    ("BD", "Asia/Dhaka"),
    ("BE", "Europe/Brussels"),
    ("BF", "Africa/Ouagadougou"),
    ("BG", "Europe/Sofia"),
    ("BH", "Asia/Bahrain"),
    ("BI", "Africa/Bujumbura"),
    ("BJ", "Africa/Porto-Novo"),
    ("BL", "America/St_Barthelemy"),
    ("BM", "Atlantic/Bermuda"),
    ("BN", "Asia/Brunei"),
    ("BO", "America/La_Paz"),
    ("BQ", "America/Kralendijk"),
    ("BR", "America/Sao_Paulo"),
    ("BS", "America/Nassau"),
    ("BT", "Asia/Thimphu"),
    ("BW", "Africa/Gaborone"),
    ("BY", "Europe/Minsk"),
    ("BZ", "America/Belize"),
    ("CA", "America/Toronto"),
    ("CC", "Indian/Cocos"),
    ("CD", "Africa/Kinshasa"),
    ("CF", "Africa/Bangui"),
    ("CG", "Africa/Brazzaville"),
    ("CH", "Europe/Zurich"),
    ("CI", "Africa/Abidjan"),
    ("CK", "Pacific/Rarotonga"),
    ("CL", "America/Santiago"),
    ("CM", "Africa/Douala"),
    ("CN", "Asia/Shanghai"),
    ("CO", "America/Bogota"),
    ("CR", "America/Costa_Rica"),
    ("CU", "America/Havana"),
    ("CV", "Atlantic/Cape_Verde"),
    ("CW", "America/Curacao"),
    ("CX", "Indian/Christmas"),
    ("CY", "Asia/Nicosia"),
    ("CZ", "Europe/Prague"),
    ("DE", "Europe/Berlin"),
    ("DJ", "Africa/Djibouti"),
    ("DK", "Europe/Copenhagen"),
    ("DM", "America/Dominica"),
    ("DO", "America/Santo_Domingo"),
    ("DZ", "Africa/Algiers"),
    ("EC", "America/Guayaquil"),
    ("EE", "Europe/Tallinn"),
    ("EG", "Africa/Cairo"),
    ("EH", "Africa/El_Aaiun"),
    ("ER", "Africa/Asmara"),
    ("ES", "Europe/Madrid"),
    ("ET", "Africa/Addis_Ababa"),
    ("FI", "Europe/Helsinki"),
    ("FJ", "Pacific/Fiji"),
    ("FK", "Atlantic/Stanley"),
    ("FM", "Pacific/Pohnpei"),
    ("FO", "Atlantic/Faroe"),
    ("FR", "Europe/Paris"),
    ("GA", "Africa/Libreville"),
    ("GB", "Europe/London"),
    ("GD", "America/Grenada"),
    ("GE", "Asia/Tbilisi"),
    ("GF", "America/Cayenne"),
    ("GG", "Europe/Guernsey"),
    ("GH", "Africa/Accra"),
    ("GI", "Europe/Gibraltar"),
    ("GL", "America/Nuuk"),
    ("GM", "Africa/Banjul"),
    ("GN", "Africa/Conakry"),
    ("GP", "America/Guadeloupe"),
    ("GQ", "Africa/Malabo"),
    ("GR", "Europe/Athens"),
    ("GS", "Atlantic/South_Georgia"),
    ("GT", "America/Guatemala"),
    ("GU", "Pacific/Guam"),
    ("GW", "Africa/Bissau"),
    ("GY", "America/Guyana"),
    ("HK", "Asia/Hong_Kong"),
    ("HN", "America/Tegucigalpa"),
    ("HR", "Europe/Zagreb"),
    ("HT", "America/Port-au-Prince"),
    ("HU", "Europe/Budapest"),
    ("ID", "Asia/Jakarta"),
    ("IE", "Europe/Dublin"),
    ("IL", "Asia/Jerusalem"),
    ("IM", "Europe/Isle_of_Man"),
    ("IN", "Asia/Kolkata"),
    ("IO", "Indian/Chagos"),
    ("IQ", "Asia/Baghdad"),
    ("IR", "Asia/Tehran"),
    ("IS", "Atlantic/Reykjavik"),
    ("IT", "Europe/Rome"),
    ("JE", "Europe/Jersey"),
    ("JM", "America/Jamaica"),
    ("JO", "Asia/Amman"),
    ("JP", "Asia/Tokyo"),
    ("KE", "Africa/Nairobi"),
    ("KG", "Asia/Bishkek"),
    ("KH", "Asia/Phnom_Penh"),
    ("KI", "Pacific/Tarawa"),
    ("KM", "Indian/Comoro"),
    ("KN", "America/St_Kitts"),
    ("KP", "Asia/Pyongyang"),
    ("KR", "Asia/Seoul"),
    ("KW", "Asia/Kuwait"),
    ("KY", "America/Cayman"),
    ("KZ", "Asia/Almaty"),
    ("LA", "Asia/Vientiane"),
    ("LB", "Asia/Beirut"),
    ("LC", "America/St_Lucia"),
    ("LI", "Europe/Vaduz"),
    ("LK", "Asia/Colombo"),
    ("LR", "Africa/Monrovia"),
    ("LS", "Africa/Maseru"),
    ("LT", "Europe/Vilnius"),
    ("LU", "Europe/Luxembourg"),
    ("LV", "Europe/Riga"),
    ("LY", "Africa/Tripoli"),
    ("MA", "Africa/Casablanca"),
    ("MC", "Europe/Monaco"),
    ("MD", "Europe/Chisinau"),
    ("ME", "Europe/Podgorica"),
    ("MF", "America/Marigot"),
    ("MG", "Indian/Antananarivo"),
    ("MH", "Pacific/Majuro"),
    ("MK", "Europe/Skopje"),
    ("ML", "Africa/Bamako"),
    ("MM", "Asia/Yangon"),
    ("MN", "Asia/Ulaanbaatar"),
    ("MO", "Asia/Macau"),
    ("MP", "Pacific/Saipan"),
    ("MQ", "America/Martinique"),
    ("MR", "Africa/Nouakchott"),
    ("MS", "America/Montserrat"),
    ("MT", "Europe/Malta"),
    ("MU", "Indian/Mauritius"),
    ("MV", "Indian/Maldives"),
    ("MW", "Africa/Blantyre"),
    ("MX", "America/Mexico_City"),
    ("MY", "Asia/Kuala_Lumpur"),
    ("MZ", "Africa/Maputo"),
    ("NA", "Africa/Windhoek"),
    ("NC", "Pacific/Noumea"),
    ("NE", "Africa/Niamey"),
    ("NF", "Pacific/Norfolk"),
    ("NG", "Africa/Lagos"),
    ("NI", "America/Managua"),
    ("NL", "Europe/Amsterdam"),
    ("NO", "Europe/Oslo"),
    ("NP", "Asia/Kathmandu"),
    ("NR", "Pacific/Nauru"),
    ("NU", "Pacific/Niue"),
    ("NZ", "Pacific/Auckland"),
    ("OM", "Asia/Muscat"),
    ("PA", "America/Panama"),
    ("PE", "America/Lima"),
    ("PF", "Pacific/Tahiti"),
    ("PG", "Pacific/Port_Moresby"),
    ("PH", "Asia/Manila"),
    ("PK", "Asia/Karachi"),
    ("PL", "Europe/Warsaw"),
    ("PM", "America/Miquelon"),
    ("PN", "Pacific/Pitcairn"),
    ("PR", "America/Puerto_Rico"),
    ("PS", "Asia/Gaza"),
    ("PT", "Europe/Lisbon"),
    ("PW", "Pacific/Palau"),
    ("PY", "America/Asuncion"),
    ("QA", "Asia/Qatar"),
    ("RE", "Indian/Reunion"),
    ("RO", "Europe/Bucharest"),
    ("RS", "Europe/Belgrade"),
    ("RU", "Europe/Moscow"),
    ("RW", "Africa/Kigali"),
    ("SA", "Asia/Riyadh"),
    ("SB", "Pacific/Guadalcanal"),
    ("SC", "Indian/Mahe"),
    ("SD", "Africa/Khartoum"),
    ("SE", "Europe/Stockholm"),
    ("SG", "Asia/Singapore"),
    ("SH", "Atlantic/St_Helena"),
    ("SI", "Europe/Ljubljana"),
    ("SJ", "Arctic/Longyearbyen"),
    ("SK", "Europe/Bratislava"),
    ("SL", "Africa/Freetown"),
    ("SM", "Europe/San_Marino"),
    ("SN", "Africa/Dakar"),
    ("SO", "Africa/Mogadishu"),
    ("SR", "America/Paramaribo"),
    ("SS", "Africa/Juba"),
    ("ST", "Africa/Sao_Tome"),
    ("SV", "America/El_Salvador"),
    ("SX", "America/Lower_Princes"),
    ("SY", "Asia/Damascus"),
    ("SZ", "Africa/Mbabane"),
    ("TC", "America/Grand_Turk"),
    ("TD", "Africa/Ndjamena"),
    ("TF", "Indian/Kerguelen"),
    ("TG", "Africa/Lome"),
    ("TH", "Asia/Bangkok"),
    ("TJ", "Asia/Dushanbe"),
    ("TK", "Pacific/Fakaofo"),
    ("TL", "Asia/Dili"),
    ("TM", "Asia/Ashgabat"),
    ("TN", "Africa/Tunis"),
    ("TO", "Pacific/Tongatapu"),
    ("TR", "Europe/Istanbul"),
    ("TT", "America/Port_of_Spain"),
    ("TV", "Pacific/Funafuti"),
    ("TW", "Asia/Taipei"),
    ("TZ", "Africa/Dar_es_Salaam"),
    ("UA", "Europe/Kyiv"),
    ("UG", "Africa/Kampala"),
    ("UM", "Pacific/Honolulu"),
    ("US", "America/New_York"),
    ("UY", "America/Montevideo"),
    ("UZ", "Asia/Tashkent"),
    ("VA", "Europe/Vatican"),
    ("VC", "America/St_Vincent"),
    ("VE", "America/Caracas"),
    ("VG", "America/Tortola"),
    ("VI", "America/St_Thomas"),
    ("VN", "Asia/Ho_Chi_Minh"),
    ("VU", "Pacific/Efate"),
    ("WF", "Pacific/Wallis"),
    ("WS", "Pacific/Apia"),
    ("YE", "Asia/Aden"),
    ("YT", "Indian/Mayotte"),
    ("ZA", "Africa/Johannesburg"),
    ("ZM", "Africa/Lusaka"),
    ("ZW", "Africa/Harare"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_every_zone_is_known() {
        assert!(ZONES.windows(2).all(|w| w[0].0 < w[1].0));
        for (country, zone) in ZONES {
            assert!(jiff::tz::TimeZone::get(zone).is_ok(), "{country}: {zone}");
        }
    }

    #[test]
    fn zones_of_places() {
        assert_eq!(zone_of("DK", "8000"), "Europe/Copenhagen");
        assert_eq!(zone_of("ES", "28001"), "Europe/Madrid");
        assert_eq!(zone_of("ES", "35001"), "Atlantic/Canary");
        assert_eq!(zone_of("ES", "38001"), "Atlantic/Canary");
        assert_eq!(zone_of("PT", "1000-001"), "Europe/Lisbon");
        assert_eq!(zone_of("PT", "9000-018"), "Atlantic/Madeira");
        assert_eq!(zone_of("PT", "9500-150"), "Atlantic/Azores");
        assert_eq!(zone_of("US", "10001"), "America/New_York");
        assert_eq!(zone_of("XX", ""), "UTC");
    }

    #[test]
    fn local_times_follow_summer_time() {
        let winter = ::time::macros::datetime!(2026-01-15 09:30 UTC);
        let summer = ::time::macros::datetime!(2026-07-15 09:30 UTC);
        let at = |t| {
            local(t, "Europe/Copenhagen")
                .strftime("%H:%M %:z")
                .to_string()
        };
        assert_eq!(at(winter), "10:30 +01:00");
        assert_eq!(at(summer), "11:30 +02:00");
        assert_eq!(
            local(winter, "Atlantic/Canary")
                .strftime("%H:%M %:z")
                .to_string(),
            "09:30 +00:00"
        );
    }
}
