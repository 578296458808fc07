//! Which IP addresses a page fetch may connect to.
//!
//! Only global unicast addresses pass. Everything a request could use to
//! reach the user's machine, network or cloud metadata service is refused
//! with a short reason: loopback, private ranges, link-local (with the
//! metadata address 169.254.169.254), CGNAT, multicast, unspecified,
//! documentation and benchmarking ranges, IPv6 unique-local (with AWS's
//! `fd00:ec2::254`), site-local, NAT64/6to4/Teredo translations and
//! IPv4-mapped or -compatible IPv6 forms (checked as the IPv4 they carry).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` may not be contacted, or `None` when it is a public address.
pub fn refusal(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refusal_v4(v4),
        IpAddr::V6(v6) => refusal_v6(v6),
    }
}

fn refusal_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let o = ip.octets();
    let reason = match o {
        [169, 254, 169, 254] => "a cloud metadata address",
        [0, ..] => "an unspecified or \"this network\" address",
        [127, ..] => "a loopback address",
        [10, ..] => "a private address",
        [172, b, ..] if (16..32).contains(&b) => "a private address",
        [192, 168, ..] => "a private address",
        [100, b, ..] if (64..128).contains(&b) => "a carrier-grade NAT (100.64.0.0/10) address",
        [169, 254, ..] => "a link-local address",
        [192, 0, 0, _] => "an IETF protocol assignment address",
        [192, 0, 2, _] | [198, 51, 100, _] | [203, 0, 113, _] => "a documentation address",
        [198, b, ..] if b == 18 || b == 19 => "a benchmarking address",
        [192, 88, 99, _] => "a 6to4 relay address",
        [192, 31, 196, _] | [192, 52, 193, _] | [192, 175, 48, _] => "a special-purpose address",
        [a, ..] if (224..240).contains(&a) => "a multicast address",
        [a, ..] if a >= 240 => "a reserved or broadcast address",
        _ => return None,
    };
    Some(reason)
}

fn refusal_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    if ip.is_unspecified() {
        return Some("an unspecified address");
    }
    if ip.is_loopback() {
        return Some("a loopback address");
    }
    // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible
    // (::a.b.c.d) forms reach the IPv4 address they carry.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return refusal_v4(v4).or(Some("an IPv4-mapped address"));
    }
    if s[..6] == [0; 6] {
        return Some("an IPv4-compatible address");
    }
    if s == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254] {
        return Some("a cloud metadata address");
    }
    let reason = match s[0] {
        0xfe80..=0xfebf => "a link-local address",
        0xfec0..=0xfeff => "a site-local address",
        0xfc00..=0xfdff => "a unique-local (private) address",
        0xff00..=0xffff => "a multicast address",
        0x0064 if s[1] == 0xff9b => "a NAT64 address",
        0x0100 if s[1..4] == [0, 0, 0] => "a discard-only address",
        0x2001 if s[1] < 0x0200 => "an IETF special-purpose address (Teredo, ORCHID, benchmarking)",
        0x2001 if s[1] == 0x0db8 => "a documentation address",
        0x2002 => "a 6to4 address",
        0x3fff if s[1] < 0x1000 => "a documentation address",
        0x2000..=0x3fff => return None,
        _ => "an address outside global unicast",
    };
    Some(reason)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn r(s: &str) -> Option<&'static str> {
        refusal(s.parse().unwrap())
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "93.184.216.34",
            "1.1.1.1",
            "8.8.8.8",
            "2606:4700::1111",
            "2a00:1450::1",
        ] {
            assert_eq!(r(ip), None, "{ip}");
        }
    }

    #[test]
    fn every_special_range_is_refused_with_its_reason() {
        let cases = [
            ("127.0.0.1", "loopback"),
            ("127.9.9.9", "loopback"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("100.64.0.1", "carrier-grade NAT"),
            ("100.127.255.255", "carrier-grade NAT"),
            ("169.254.169.254", "metadata"),
            ("169.254.1.1", "link-local"),
            ("0.0.0.0", "unspecified"),
            ("224.0.0.1", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("198.18.0.1", "benchmarking"),
            ("192.0.2.1", "documentation"),
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:169.254.169.254", "metadata"),
            ("::ffff:10.0.0.1", "private"),
            ("::127.0.0.1", "IPv4-compatible"),
            ("fe80::1", "link-local"),
            ("fc00::1", "unique-local"),
            ("fd12:3456::1", "unique-local"),
            ("fd00:ec2::254", "metadata"),
            ("ff02::1", "multicast"),
            ("64:ff9b::7f00:1", "NAT64"),
            ("2001:db8::1", "documentation"),
            ("2002:7f00:1::", "6to4"),
            ("2001::1", "Teredo"),
            ("fec0::1", "site-local"),
        ];
        for (ip, want) in cases {
            let got = r(ip).unwrap_or("");
            assert!(got.contains(want), "{ip}: {got:?} lacks {want:?}");
        }
        assert_eq!(r("172.32.0.1"), None);
        assert_eq!(r("100.128.0.1"), None);
    }
}
