//! Networks as the configuration writes them: an address (`10.0.0.1`) or a CIDR block
//! (`10.0.0.0/8`, `fd00::/8`).

use std::net::IpAddr;

use ipnet::IpNet;

/// Parses one entry; the error names it.
pub fn parse(entry: &str) -> Result<IpNet, String> {
    let entry = entry.trim();
    entry
        .parse::<IpNet>()
        .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
        .map(|net| net.trunc())
        .map_err(|_| format!("{entry:?} is not an address or a CIDR block such as 10.0.0.0/8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_blocks() {
        assert_eq!(
            parse("10.0.0.1").map(|n| n.to_string()),
            Ok("10.0.0.1/32".into())
        );
        assert_eq!(
            parse(" 10.1.2.3/8 ").map(|n| n.to_string()),
            Ok("10.0.0.0/8".into())
        );
        assert_eq!(
            parse("fd00::/8").map(|n| n.to_string()),
            Ok("fd00::/8".into())
        );
        assert!(parse("10.0.0.0/33").is_err());
        assert!(parse("printer.local").is_err());
    }
}
