//! The tracking number's Code 128 symbol as the printer draws it (`^BC` in mode N), sized here:
//! the field data starts with the subset's start code (`>;` subset C for an even number of
//! digits, else `>:` subset B; ZPL II defaults to B, but naming it leaves nothing to the
//! firmware), so the symbol's width in modules is known exactly, and the module width (`^BY`) is
//! the widest of 3, 2 or 1 dots at which the symbol and its quiet zones fit the label.
//!
//! At one dot a subset B symbol of up to 67 characters fits the 800-dot label (11 modules per
//! character, 35 for start, check and stop, 20 of quiet zones); subset C fits 134 digits. A
//! longer number gets no barcode (the label prints it, and "NO BARCODE").

/// Quiet zone on either side of the symbol, in modules (ISO/IEC 15417).
pub(super) const QUIET_ZONE: u32 = 10;
/// Narrowest and widest module, in dots.
const WIDTHS: std::ops::RangeInclusive<u32> = 1..=3;

/// A tracking number as `^BC` field data (for `^FH`) and the width of its symbol in modules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Symbol {
    pub data: String,
    pub modules: u32,
}

/// The symbol of `tracking`; `None` when it is empty or not printable ASCII.
pub(super) fn symbol(tracking: &str) -> Option<Symbol> {
    if tracking.is_empty() || !tracking.chars().all(|c| matches!(c, ' '..='~')) {
        return None;
    }
    let count = u32::try_from(tracking.len()).ok()?;
    if tracking.len().is_multiple_of(2) && tracking.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Symbol {
            data: format!(">;{tracking}"),
            modules: modules(count / 2),
        });
    }
    let mut data = String::from(">:");
    for c in tracking.chars() {
        match c {
            // `>` starts an invocation code; `><` is the character itself.
            '>' => data.push_str("><"),
            '^' => data.push_str("_5E"),
            '~' => data.push_str("_7E"),
            '_' => data.push_str("_5F"),
            c => data.push(c),
        }
    }
    Some(Symbol {
        data,
        modules: modules(count),
    })
}

/// Modules of a symbol with `symbols` data characters: start, data and check symbol of 11
/// modules each, and the 13-module stop.
fn modules(symbols: u32) -> u32 {
    11 * (symbols + 2) + 13
}

/// The widest module (dots) at which `modules` plus the quiet zones fit in `available` dots.
pub(super) fn module_width(modules: u32, available: u32) -> Option<u32> {
    WIDTHS
        .rev()
        .find(|w| (modules + 2 * QUIET_ZONE) * w <= available)
}
