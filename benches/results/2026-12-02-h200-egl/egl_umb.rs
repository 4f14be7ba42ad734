//! Writes the QVBS DTMC `egl` (`benchmarks/dtmc/egl/egl.prism`, constants N
//! and L, with `label "done" = phase=4;` appended as in `scripts/prob_bench.py`)
//! as the members of an uncompressed UMB archive, in the order and numbering
//! Storm's explicit builder gives them (breadth first from the initial state,
//! successors numbered in the order of the PRISM updates).
//!
//! Why: Storm builds egl-10-8 (3.2·10^8 states) far too slowly for one device
//! call (its explicit builder needed 6,098 s for egl-10-6 in QVBS's logs, and
//! converting its symbolic model ran past 27 minutes), while the issue asks
//! for Storm and warpcheck side by side on it, both loading the same UMB file.
//! This program knows the one model and writes it in about a minute.
//!
//! It is checked against Storm: for instances Storm can build, every member
//! it writes must equal Storm's byte for byte (`check.sh`), index.json apart
//! from its creation date.
//!
//! Build: `rustc -O --edition 2021 egl_umb.rs`.
//! Usage: `egl_umb N L DIR` writes DIR/index.json and DIR/**/*.bin; then
//! `tar cf NAME.umb -C DIR index.json ...` in the order `members` prints.

use std::collections::HashMap;
use std::fs::{create_dir_all, File};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufWriter, Write};
use std::path::Path;

/// A state of the PRISM program. `a_knows[j]` is partyA's variable of pair
/// slot j in four bits (slot k < N is PRISM's `b{k}`, slot N + k is
/// `b{20+k}`); `b_knows` likewise for partyB (`a{k}`, `a{20+k}`). Variables of
/// pairs at or beyond N never change from 0, so they are not stored.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct State {
    a_knows: u128,
    b_knows: u128,
    /// counter module: bit `b` (1..L), `n` (0..N-1), `phase` (1..5), `party` (1..2).
    bit: u8,
    n: u8,
    phase: u8,
    party: u8,
}

impl std::hash::Hash for State {
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        hasher.write_u128(self.a_knows);
        hasher.write_u128(self.b_knows);
        hasher.write_u64(u32::from_le_bytes([self.bit, self.n, self.phase, self.party]) as u64);
    }
}

/// A multiplicative hasher: the keys are few per level and well mixed.
#[derive(Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(23) ^ value).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u128(&mut self, value: u128) {
        self.write_u64(value as u64);
        self.write_u64((value >> 64) as u64);
    }
}

struct Model {
    pairs: u32,
    bits: u8,
}

fn field(vars: u128, slot: u32) -> u8 {
    ((vars >> (4 * slot)) & 0xF) as u8
}

fn with_field(vars: u128, slot: u32, value: u8) -> u128 {
    (vars & !(0xF << (4 * slot))) | ((value as u128) << (4 * slot))
}

impl Model {
    fn initial(&self) -> State {
        State { a_knows: 0, b_knows: 0, bit: 1, n: 0, phase: 1, party: 1 }
    }

    /// PRISM's formula kA (over partyA's variables) or kB (over partyB's).
    fn knows_a_pair(&self, vars: u128) -> bool {
        (0..self.pairs).any(|k| {
            field(vars, k) == self.bits && field(vars, self.pairs + k) == self.bits
        })
    }

    /// Steps from the initial state: the counter module runs one fixed cycle,
    /// so every path to a state has this length (phase 4 loops on itself).
    fn time(&self, s: &State) -> u64 {
        let (pairs, bits) = (self.pairs as u64, self.bits as u64);
        let (n, party) = (s.n as u64, s.party as u64);
        match s.phase {
            1 => 2 * n + (party - 1),
            2 | 3 => {
                let within = match (party, n) {
                    (1, 0) => 0,
                    (2, _) => 1 + n,
                    _ => pairs + n,
                };
                2 * pairs + (s.phase as u64 - 2) * bits * 2 * pairs + (s.bit as u64 - 1) * 2 * pairs + within
            }
            _ => 2 * pairs + 2 * bits * 2 * pairs,
        }
    }

    /// The synchronised step of the counter and the party that receives:
    /// successors with their probabilities, in the order of the updates.
    fn successors(&self, s: &State) -> ([(State, f64); 2], usize) {
        let (last, bits) = ((self.pairs - 1) as u8, self.bits);
        if s.phase == 4 {
            return ([(*s, 1.0); 2], 1);
        }
        assert!((1..=3).contains(&s.phase), "unexpected phase in {s:?}");
        // The counter module's command for the action this party enables.
        let mut next = *s;
        match (s.phase, s.party) {
            (1, 1) => next.party = 2,
            (1, _) if s.n < last => {
                next.party = 1;
                next.n += 1;
            }
            (1, _) => {
                next.party = 1;
                next.phase = 2;
                next.n = 0;
            }
            (_, 1) if s.n == 0 => next.party = 2,
            (_, 2) if s.n < last => next.n += 1,
            (_, 2) => {
                next.party = 1;
                next.n = 1;
            }
            (_, _) if s.n < last => next.n += 1,
            (_, _) if s.bit < bits => {
                next.n = 0;
                next.bit += 1;
            }
            (2, _) => {
                next.phase = 3;
                next.n = 0;
                next.bit = 1;
            }
            (_, _) => next.phase = 4,
        }
        // party 1 sends (action receiveB: partyB learns); party 2 sends
        // (receiveA: partyA learns). The receiving module's command for `n`.
        let learns_b = s.party == 1;
        let vars = if learns_b { s.b_knows } else { s.a_knows };
        let set = |state: State, vars: u128| {
            let mut state = state;
            if learns_b {
                state.b_knows = vars;
            } else {
                state.a_knows = vars;
            }
            state
        };
        let n = s.n as u32;
        match s.phase {
            1 => (
                [
                    (set(next, with_field(vars, n, bits)), 0.5),
                    (set(next, with_field(vars, self.pairs + n, bits)), 0.5),
                ],
                2,
            ),
            phase => {
                let slot = if phase == 2 { n } else { self.pairs + n };
                let value = (field(vars, slot) + 1).min(bits);
                let only = (set(next, with_field(vars, slot, value)), 1.0);
                ([only; 2], 1)
            }
        }
    }
}

/// A bitmap of 64-bit little-endian words, bit i of word i / 64 for state i.
struct Bits(Vec<u64>);

impl Bits {
    fn set(&mut self, index: u64, value: bool) {
        let word = (index / 64) as usize;
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        if value {
            self.0[word] |= 1 << (index % 64);
        }
    }
    fn write(&self, path: &Path) {
        let mut out = writer(path);
        for word in &self.0 {
            out.write_all(&word.to_le_bytes()).unwrap();
        }
        out.flush().unwrap();
    }
}

fn writer(path: &Path) -> BufWriter<File> {
    create_dir_all(path.parent().unwrap()).unwrap();
    BufWriter::with_capacity(1 << 23, File::create(path).unwrap())
}

const APS: [(&str, &str); 5] = [
    ("deadlock", "deadlock"),
    ("done", "done"),
    ("know0x41", "knowA"),
    ("know0x42", "knowB"),
    ("unfair0x41", "unfairA"),
];
const REWARDS: [(&str, &str); 2] =
    [("messages_0x41_needs", "messages_A_needs"), ("messages_0x42_needs", "messages_B_needs")];

/// The archive's members in Storm's order (directories end in `/`).
fn members() -> Vec<String> {
    let mut names: Vec<String> = ["index.json", "state-is-initial.bin", "choice-to-branches.bin",
        "branch-to-target.bin", "branch-to-probability.bin"]
        .iter()
        .map(|name| name.to_string())
        .collect();
    for (ap, _) in APS {
        names.push(format!("annotations/aps/{ap}/states/values.bin"));
    }
    for (reward, _) in REWARDS {
        names.push(format!("annotations/rewards/{reward}/choices/values.bin"));
    }
    names.push("valuations/".to_string());
    names
}

fn index_json(states: u64, branches: u64) -> String {
    let mut aps = Vec::new();
    for (ap, alias) in APS {
        aps.push(format!(
            "            \"{ap}\": {{\n                \"alias\": \"{alias}\",\n                \"applies-to\": [\n                    \"states\"\n                ],\n                \"type\": {{\n                    \"size\": 1,\n                    \"type\": \"bool\"\n                }}\n            }}"
        ));
    }
    let mut rewards = Vec::new();
    for (reward, alias) in REWARDS {
        rewards.push(format!(
            "            \"{reward}\": {{\n                \"alias\": \"{alias}\",\n                \"applies-to\": [\n                    \"choices\"\n                ],\n                \"lower\": 0,\n                \"type\": {{\n                    \"size\": 64,\n                    \"type\": \"double\"\n                }}\n            }}"
        ));
    }
    format!(
        "{{\n    \"annotations\": {{\n        \"aps\": {{\n{}\n        }},\n        \"rewards\": {{\n{}\n        }}\n    }},\n    \"file-data\": {{\n        \"creation-date\": 0,\n        \"tool\": \"egl_umb\"\n    }},\n    \"format-revision\": 0,\n    \"format-version\": 1,\n    \"transition-system\": {{\n        \"#branch-actions\": 0,\n        \"#branches\": {branches},\n        \"#choice-actions\": 0,\n        \"#choices\": {states},\n        \"#initial-states\": 1,\n        \"#observations\": 0,\n        \"#players\": 0,\n        \"#states\": {states},\n        \"branch-probability-type\": {{\n            \"size\": 64,\n            \"type\": \"double\"\n        }},\n        \"time\": \"discrete\"\n    }}\n}}",
        aps.join(",\n"),
        rewards.join(",\n")
    )
}

type Level = HashMap<State, u64, BuildHasherDefault<Mix>>;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 2 && args[1] == "members" {
        println!("{}", members().join(" "));
        return;
    }
    assert!(args.len() == 4, "usage: egl_umb N L DIR | egl_umb members");
    let model = Model { pairs: args[1].parse().unwrap(), bits: args[2].parse().unwrap() };
    // L = 1 is left out: there Storm's states differ from the PRISM text (README).
    assert!((2..=20).contains(&model.pairs) && (2..=15).contains(&model.bits));
    let dir = Path::new(&args[3]);
    let mut offsets = writer(&dir.join("choice-to-branches.bin"));
    let mut targets = writer(&dir.join("branch-to-target.bin"));
    let mut probabilities = writer(&dir.join("branch-to-probability.bin"));
    let mut rewards: Vec<BufWriter<File>> = REWARDS
        .iter()
        .map(|(name, _)| writer(&dir.join(format!("annotations/rewards/{name}/choices/values.bin"))))
        .collect();
    let mut labels: Vec<Bits> = APS.iter().map(|_| Bits(Vec::new())).collect();
    let mut initial = Bits(Vec::new());
    create_dir_all(dir.join("valuations")).unwrap();

    let mut level = vec![model.initial()];
    let mut next = Vec::new();
    let mut found = Level::default();
    let (mut first, mut branches) = (0u64, 0u64);
    initial.set(0, true);
    while !level.is_empty() {
        let next_first = first + level.len() as u64;
        found.clear();
        next.clear();
        for (offset, state) in level.iter().enumerate() {
            let index = first + offset as u64;
            offsets.write_all(&branches.to_le_bytes()).unwrap();
            let mut row: Vec<(u64, f64)> = Vec::with_capacity(2);
            let (successors, count) = model.successors(state);
            for &(successor, probability) in &successors[..count] {
                let target = if successor == *state {
                    index
                } else {
                    assert_eq!(model.time(&successor), model.time(state) + 1, "{state:?} -> {successor:?}");
                    *found.entry(successor).or_insert_with(|| {
                        next.push(successor);
                        next_first + next.len() as u64 - 1
                    })
                };
                match row.iter_mut().find(|(column, _)| *column == target) {
                    Some(entry) => entry.1 += probability,
                    None => row.push((target, probability)),
                }
            }
            row.sort_by_key(|&(column, _)| column);
            for (target, probability) in &row {
                targets.write_all(&target.to_le_bytes()).unwrap();
                probabilities.write_all(&probability.to_le_bytes()).unwrap();
            }
            branches += row.len() as u64;
            let (knows_a, knows_b) = (model.knows_a_pair(state.a_knows), model.knows_a_pair(state.b_knows));
            let flags = [false, state.phase == 4, knows_a, knows_b, !knows_a && knows_b];
            for (bits, flag) in labels.iter_mut().zip(flags) {
                bits.set(index, flag);
            }
            initial.set(index, index == 0);
            // Both reward structures reward the action receiveA (party 2 sends).
            let receive_a = state.party == 2 && state.phase <= 3;
            let earned = [receive_a && knows_b && !knows_a, receive_a && knows_a && !knows_b];
            for (out, earned) in rewards.iter_mut().zip(earned) {
                out.write_all(&(if earned { 1.0f64 } else { 0.0 }).to_le_bytes()).unwrap();
            }
        }
        first = next_first;
        std::mem::swap(&mut level, &mut next);
    }
    offsets.write_all(&branches.to_le_bytes()).unwrap();
    for out in [&mut offsets, &mut targets, &mut probabilities].into_iter().chain(rewards.iter_mut()) {
        out.flush().unwrap();
    }
    initial.write(&dir.join("state-is-initial.bin"));
    for ((ap, _), bits) in APS.iter().zip(&labels) {
        bits.write(&dir.join(format!("annotations/aps/{ap}/states/values.bin")));
    }
    std::fs::write(dir.join("index.json"), index_json(first, branches)).unwrap();
    println!("states {first} branches {branches}");
}
