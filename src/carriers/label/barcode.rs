//! The Code 128 symbol of a tracking number.

use barcoders::sym::code128::Code128;

use crate::error::{Error, Result};

/// The Code 128 module pattern (1 = bar, 0 = space, one entry per module) of `tracking`.
pub(super) fn barcode_modules(tracking: &str) -> Result<Vec<u8>> {
    let invalid = |message: &str| Error::invalid("trackingNumber", message);
    if tracking.is_empty() {
        return Err(invalid("is required to print a label"));
    }
    if !tracking.chars().all(|c| matches!(c, ' '..='~')) {
        return Err(invalid(
            "must be printable ASCII to be encoded as a Code 128 barcode",
        ));
    }
    let barcode = Code128::new(code128_data(tracking))
        .map_err(|e| invalid(&format!("cannot be encoded as Code 128: {e}")))?;
    Ok(barcode.encode())
}

/// `tracking` in barcoders' Code 128 notation: each run of code set B starts with `Ɓ`, each run
/// of set C (digit pairs, half the width) with `Ć`. Set C is used where it makes the symbol
/// shorter: a digit run of 4 or more at either end (2 or more when all of it is digits), 6 or
/// more in the middle. `tracking` must be printable ASCII.
pub(super) fn code128_data(tracking: &str) -> String {
    let chars: Vec<char> = tracking.chars().collect();
    let mut out = String::with_capacity(tracking.len() + 4);
    let mut set = None;
    let mut switch = |out: &mut String, to: char| {
        if set != Some(to) {
            out.push(to);
            set = Some(to);
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let run = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let at_start = i == 0;
        let at_end = i + run == chars.len();
        let worth_c = match (at_start, at_end) {
            (true, true) => run >= 2,
            (true, false) | (false, true) => run >= 4,
            (false, false) => run >= 6,
        };
        if worth_c {
            let mut digits = &chars[i..i + run];
            if run % 2 == 1 {
                // Set C takes digit pairs: the odd one out goes in set B first.
                switch(&mut out, 'Ɓ');
                out.push(digits[0]);
                digits = &digits[1..];
            }
            switch(&mut out, 'Ć');
            out.extend(digits);
            i += run;
        } else {
            switch(&mut out, 'Ɓ');
            let len = run.max(1);
            out.extend(&chars[i..i + len]);
            i += len;
        }
    }
    out
}
