//! Compact roots: the host's mirror of `kernels/explore/compact.cuh`, which
//! keeps tree storage's root pairs in 47 bits a slot by Cleary's
//! quotienting (the slot's bucket gives back the bits it does not store).
//! The host decodes slots with it to rebuild traces and read findings; the
//! layout and the arithmetic must stay the kernel's (the kernel divides by
//! an estimate and corrects it, the host in 128 bits: the tests check that
//! both agree).

/// Bits of a stored value that count the probes from the home bucket.
pub(super) const PROBE_BITS: u32 = 5;
/// Buckets an insertion tries before the table counts as full.
pub(super) const MAX_PROBES: u64 = 1 << PROBE_BITS;
/// The fewest buckets a compact table has: a quotient then has at most
/// 63 - 21 bits, and with the probe count the value fits the 47 bits of a
/// head (31) and a side (16).
pub(super) const MIN_BUCKETS: u64 = 1 << (63 - 47 + PROBE_BITS);
/// Slots in a bucket (one 128-byte line) without predecessor links.
pub(super) const SLOTS: usize = 21;
/// Slots in a bucket with 40-bit predecessor links.
pub(super) const SLOTS_WITH_LINKS: usize = 11;

// A slot takes a 32-bit head and a 16-bit side, and a 40-bit link with
// traces: as many as fit a 128-byte line.
const _: () = assert!(SLOTS * 48 <= 1024 && (SLOTS + 1) * 48 > 1024);
const _: () = assert!(SLOTS_WITH_LINKS * 88 <= 1024 && (SLOTS_WITH_LINKS + 1) * 88 > 1024);

const KEY_SPACE: u64 = (1 << 63) - 1;
const SPREAD_M1_INVERSE: u64 = 0x96DE_1B17_3F11_9089;
const SPREAD_M2: u64 = 0x94D0_49BB_1331_11EB;
const SPREAD_M2_INVERSE: u64 = 0x3196_42B2_D24D_8EC3;
const NO_LINK: u64 = (1 << 40) - 1;

/// The inverse of the kernel's `spread`, a bijection of [0, 2^63) that
/// only the kernels compute (the tests mirror it).
fn unspread(mut x: u64) -> u64 {
    x ^= x >> 32;
    x = x.wrapping_mul(SPREAD_M2_INVERSE) & KEY_SPACE;
    x ^= x >> 32;
    x = x.wrapping_mul(SPREAD_M1_INVERSE) & KEY_SPACE;
    x ^ (x >> 32)
}

/// The probe step of a remainder, in [1, buckets - 1].
fn remainder_step(remainder: u64, buckets: u64) -> u64 {
    let mut h = remainder
        .wrapping_add(0x9E37_79B9_7F4A_7C15)
        .wrapping_mul(SPREAD_M2);
    h ^= h >> 29;
    if buckets > 1 {
        1 + ((u128::from(h) * u128::from(buckets - 1)) >> 64) as u64
    } else {
        1
    }
}

/// floor(log2 `buckets`): the low bits of a remainder a slot drops.
fn bucket_shift(buckets: u64) -> u32 {
    63 - buckets.leading_zeros()
}

/// The spread value whose home bucket and remainder these are: the one
/// multiple of `buckets` in [t, t + 2^shift), t = home * 2^63 + remainder *
/// 2^shift, divided by `buckets`.
fn value_of(home: u64, remainder: u64, buckets: u64) -> u64 {
    let t = (u128::from(home) << 63) | (u128::from(remainder) << bucket_shift(buckets));
    t.div_ceil(u128::from(buckets)) as u64
}

/// The layout of one compact bucket: where a slot's head, side and link
/// are, in 32-bit words and smaller units of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    slots: usize,
}

impl Layout {
    fn side_halfword(self, index: usize) -> usize {
        2 * self.slots + index
    }
    fn link_word(self, index: usize) -> usize {
        self.slots + self.slots.div_ceil(2) + index
    }
    fn link_high_byte(self, index: usize) -> usize {
        4 * (self.slots + self.slots.div_ceil(2) + self.slots) + index
    }
}

/// A decoded slot: the root pair and, with links, the predecessor's slot
/// (`None` for the initial state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Decoded {
    pub(super) key: [u32; 2],
    pub(super) link: Option<u64>,
}

/// Slot `slot` of a compact table of `buckets` buckets, whose bucket's
/// line is `line` (32 words); `links`: the table keeps predecessor links.
/// `None` when the slot is empty.
pub(super) fn decode(line: &[u32], slot: u64, buckets: u64, links: bool) -> Option<Decoded> {
    let layout = Layout {
        slots: if links { SLOTS_WITH_LINKS } else { SLOTS },
    };
    let bucket = slot / layout.slots as u64;
    let index = (slot % layout.slots as u64) as usize;
    let head = line[index];
    if head == u32::MAX {
        return None;
    }
    let half = layout.side_halfword(index);
    let side = (line[half / 2] >> (16 * (half % 2))) & 0xffff;
    let value = (u64::from(head) << 16) | u64::from(side);
    let probes = value & (MAX_PROBES - 1);
    let remainder = value >> PROBE_BITS;
    let step = remainder_step(remainder, buckets);
    let mut home = bucket;
    for _ in 0..probes {
        home = if home >= step {
            home - step
        } else {
            home + buckets - step
        };
    }
    let pair = unspread(value_of(home, remainder, buckets));
    let link = links.then(|| {
        let byte = layout.link_high_byte(index);
        let high = (line[byte / 4] >> (8 * (byte % 4))) & 0xff;
        u64::from(line[layout.link_word(index)]) | (u64::from(high) << 32)
    });
    Some(Decoded {
        key: [(pair >> 32) as u32, pair as u32],
        link: link.filter(|&link| link != NO_LINK),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const SPREAD_M1: u64 = 0xBF58_476D_1CE4_E5B9;

    /// The kernel's `spread`.
    fn spread(mut x: u64) -> u64 {
        x ^= x >> 32;
        x = x.wrapping_mul(SPREAD_M1) & KEY_SPACE;
        x ^= x >> 32;
        x = x.wrapping_mul(SPREAD_M2) & KEY_SPACE;
        x ^ (x >> 32)
    }

    /// What an insertion stores for `key` after `probes` probes in a table
    /// of `buckets` buckets, with `link` when the table keeps links: the
    /// slot, and the line with that slot filled (the kernel's
    /// `compact_insert`).
    fn encode(
        key: [u32; 2],
        probes: u64,
        buckets: u64,
        index: usize,
        link: Option<Option<u64>>,
    ) -> (u64, Vec<u32>) {
        let layout = Layout {
            slots: if link.is_some() {
                SLOTS_WITH_LINKS
            } else {
                SLOTS
            },
        };
        let p = spread((u64::from(key[0] & 0x7fff_ffff) << 32) | u64::from(key[1]));
        let (remainder, mut bucket) = address(p, buckets);
        let step = remainder_step(remainder, buckets);
        for _ in 0..probes {
            bucket = (bucket + step) % buckets;
        }
        let value = (remainder << PROBE_BITS) | probes;
        assert!(value < 1 << 47, "{value:#x} needs more than 47 bits");
        let mut line = vec![u32::MAX; 32];
        line[index] = (value >> 16) as u32;
        let half = layout.side_halfword(index);
        line[half / 2] &= !(0xffff << (16 * (half % 2)));
        line[half / 2] |= ((value & 0xffff) as u32) << (16 * (half % 2));
        if let Some(link) = link {
            let link = link.unwrap_or(NO_LINK);
            line[layout.link_word(index)] = link as u32;
            let byte = layout.link_high_byte(index);
            line[byte / 4] &= !(0xff << (8 * (byte % 4)));
            line[byte / 4] |= ((link >> 32) as u32 & 0xff) << (8 * (byte % 4));
        }
        (bucket * layout.slots as u64 + index as u64, line)
    }

    /// The kernel's `compact_address`: remainder and home bucket of `p`.
    fn address(p: u64, buckets: u64) -> (u64, u64) {
        let t = u128::from(p) * u128::from(buckets);
        let remainder = (t as u64 & KEY_SPACE) >> bucket_shift(buckets);
        ((remainder), (t >> 63) as u64)
    }

    /// The kernel's `compact_value`: a division by an estimate in double
    /// precision, corrected in 64-bit integers.
    fn value_by_estimate(home: u64, remainder: u64, buckets: u64) -> u64 {
        let low = (home << 63) | (remainder << bucket_shift(buckets));
        let b = buckets as f64;
        let estimate = (home as f64 * 9_223_372_036_854_775_808.0 + (low & KEY_SPACE) as f64) / b;
        let p = if estimate >= 9_223_372_036_854_775_807.0 {
            KEY_SPACE
        } else {
            estimate as u64
        };
        let gap = low.wrapping_sub(p.wrapping_mul(buckets)) as i64;
        let mut k = (gap as f64 / b).floor() as i64;
        let mut rest = gap - k * buckets as i64;
        while rest > 0 {
            k += 1;
            rest -= buckets as i64;
        }
        while rest <= -(buckets as i64) {
            k -= 1;
            rest += buckets as i64;
        }
        (p as i64 + k) as u64
    }

    #[test]
    fn the_multipliers_have_their_inverses() {
        assert_eq!(SPREAD_M1.wrapping_mul(SPREAD_M1_INVERSE), 1);
        assert_eq!(SPREAD_M2.wrapping_mul(SPREAD_M2_INVERSE), 1);
    }

    #[test]
    fn the_layouts_fill_at_most_a_line() {
        let without = Layout { slots: SLOTS };
        assert!(without.side_halfword(SLOTS - 1) < 64);
        let with = Layout {
            slots: SLOTS_WITH_LINKS,
        };
        assert!(with.link_high_byte(SLOTS_WITH_LINKS - 1) < 128);
        assert!(with.side_halfword(SLOTS_WITH_LINKS - 1) / 2 < with.link_word(0));
        assert!(with.link_word(SLOTS_WITH_LINKS - 1) < with.link_high_byte(0) / 4);
    }

    #[test]
    fn the_largest_key_fits_the_smallest_table() {
        let (slot, line) = encode(
            [u32::MAX >> 1, u32::MAX],
            MAX_PROBES - 1,
            MIN_BUCKETS,
            20,
            None,
        );
        let decoded = decode(&line, slot, MIN_BUCKETS, false).unwrap();
        assert_eq!(decoded.key, [u32::MAX >> 1, u32::MAX]);
    }

    #[test]
    fn the_division_by_an_estimate_is_exact_at_the_edges() {
        for buckets in [MIN_BUCKETS, MIN_BUCKETS + 1, 3 << 30, (1 << 40) - 1] {
            for p in [0, 1, buckets - 1, buckets, KEY_SPACE - 1, KEY_SPACE] {
                let (remainder, home) = address(p, buckets);
                assert_eq!(
                    value_by_estimate(home, remainder, buckets),
                    p,
                    "{p} {buckets}"
                );
                assert_eq!(value_of(home, remainder, buckets), p, "{p} {buckets}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn spread_is_a_bijection_of_63_bits(x in 0u64..(1 << 63)) {
            prop_assert!(spread(x) < 1 << 63);
            prop_assert_eq!(unspread(spread(x)), x);
        }

        #[test]
        fn the_kernels_division_by_an_estimate_is_exact(
            p in 0u64..(1 << 63),
            buckets in prop_oneof![MIN_BUCKETS..(1u64 << 24), MIN_BUCKETS..(1u64 << 40)],
        ) {
            let (remainder, home) = address(p, buckets);
            prop_assert!(home < buckets);
            prop_assert!(remainder < 1 << (63 - bucket_shift(buckets)));
            prop_assert_eq!(value_of(home, remainder, buckets), p);
            prop_assert_eq!(value_by_estimate(home, remainder, buckets), p);
        }

        #[test]
        fn a_slot_decodes_to_the_key_it_stored(
            word0 in 0u32..(1 << 31),
            value in any::<u32>(),
            probes in 0..MAX_PROBES,
            buckets in MIN_BUCKETS..(1u64 << 36),
            index in 0usize..SLOTS,
            link in proptest::option::of(proptest::option::of(0u64..NO_LINK)),
        ) {
            let index = if link.is_some() { index % SLOTS_WITH_LINKS } else { index };
            let (slot, line) = encode([word0, value], probes, buckets, index, link);
            let decoded = decode(&line, slot, buckets, link.is_some()).unwrap();
            prop_assert_eq!(decoded, Decoded { key: [word0, value], link: link.flatten() });
        }
    }

    #[test]
    fn an_empty_slot_decodes_to_nothing() {
        assert_eq!(decode(&[u32::MAX; 32], 5, MIN_BUCKETS, true), None);
    }
}
