//! UMB, the "unified Markov binary" format that Storm
//! (`stormpy.io.export_to_umb`, `--exportbuild FILE umb`) and PRISM 4.9+
//! write: a tar archive, plain or compressed with xz or gzip (recognised by
//! their magic bytes, and decompressed at most to [`super::explicit_limit`]
//! bytes), of an `index.json` with the model's type and sizes
//! and of little-endian binary arrays: CSR offsets (`state-to-choices.bin`,
//! `choice-to-branches.bin`), branch targets and probabilities, exit rates
//! (CTMC), a bitset of initial states, and annotations (atomic propositions
//! as bitsets, rewards as doubles).
//!
//! DTMCs, CTMCs and MDPs with `double` probabilities are read into the same
//! [`ProbModel`] as PRISM's explicit files ([`super::prism`]): a CTMC's
//! branch probabilities times its states' exit rates give its rates, atomic
//! propositions become state labels (with `init` from the initial states
//! when no proposition has that name), and each reward annotation becomes
//! a reward structure: its values on states are state rewards (rates in a
//! CTMC), those on choices and on branches are earned when the choice is
//! taken or the branch followed (Storm's state-action and transition
//! rewards; a CTMC's one choice per state is its jump). Other model types,
//! rational or interval values, and rewards on anything else are refused.
//! Every array is checked against the counts of the index; a fault names
//! the archive member and the byte offset in it.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use hashbrown::HashMap;
use rayon::prelude::*;
use serde::Deserialize;

use flate2::read::MultiGzDecoder;

use super::{LoadError, explicit_limit, is_gzip, read_raw};
use crate::explicit::offsets::first_window;
use crate::explicit::{
    ExplicitModel, MAX_STATES, MarkovChain, Mdp, ProbModel, RewardStructure, StateLabels,
};

/// The first bytes of every xz stream.
const XZ_MAGIC: [u8; 6] = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];

/// Words of a bitset member listed by one task (2^20 states).
const BITSET_PIECE_WORDS: usize = 1 << 14;

/// Reads a UMB archive (plain, xz or gzip) as a probabilistic model.
pub fn load(path: &Path) -> Result<ProbModel, LoadError> {
    parse(&read_raw(path)?, path)
}

/// Parses the bytes of a UMB archive, a tar file, plain or compressed with
/// xz or gzip; `path` names it in errors.
pub fn parse(bytes: &[u8], path: &Path) -> Result<ProbModel, LoadError> {
    if bytes.starts_with(&XZ_MAGIC) {
        let decoder = liblzma::read::XzDecoder::new_multi_decoder(bytes);
        return parse_tar(&decompress(decoder, "xz", path)?, path);
    }
    if is_gzip(bytes) {
        return parse_tar(&decompress(MultiGzDecoder::new(bytes), "gzip", path)?, path);
    }
    parse_tar(bytes, path)
}

/// What `decoder` gives, at most [`explicit_limit`] bytes. A failure names
/// the member of the tar archive that was being decompressed.
fn decompress(decoder: impl Read, format: &str, path: &Path) -> Result<Vec<u8>, LoadError> {
    let limit = explicit_limit();
    let mut tar = Vec::new();
    if let Err(e) = decoder.take(limit + 1).read_to_end(&mut tar) {
        let mut place = format!("at byte {} of the tar archive", tar.len());
        if let Ok(entries) = tar::Archive::new(&tar[..]).entries()
            && let Some(name) = entries
                .map_while(Result::ok)
                .map(|entry| String::from_utf8_lossy(&entry.path_bytes()).into_owned())
                .last()
        {
            place = format!("in member {name}, {place}");
        }
        return Err(LoadError::invalid(
            path,
            format!("corrupt or truncated {format} data {place}: {e}"),
        ));
    }
    if tar.len() as u64 > limit {
        return Err(LoadError::invalid(
            path,
            format!("decompresses to more than {limit} bytes, the most read from one file"),
        ));
    }
    Ok(tar)
}

/// The members of a tar archive that are files: name (without a leading
/// `./`) to their bytes within `tar`.
fn members<'a>(tar: &'a [u8], path: &Path) -> Result<HashMap<String, &'a [u8]>, LoadError> {
    let fail = |message: String| LoadError::invalid(path, message);
    let mut archive = tar::Archive::new(tar);
    let entries = archive
        .entries()
        .map_err(|e| fail(format!("not a tar archive: {e}")))?;
    let mut found = HashMap::new();
    let mut next_header = 0u64;
    let mut previous: Option<String> = None;
    for entry in entries {
        let entry = entry.map_err(|e| {
            let place = match &previous {
                Some(name) => format!("after member {name}, at byte {next_header}"),
                None => "at byte 0".to_string(),
            };
            fail(format!("corrupt or truncated tar archive {place}: {e}"))
        })?;
        let name = String::from_utf8_lossy(&entry.path_bytes())
            .trim_start_matches("./")
            .trim_start_matches('/')
            .to_string();
        let start = entry.raw_file_position();
        let size = entry.size();
        next_header = start + size.div_ceil(512) * 512;
        previous = Some(name.clone());
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let end = start.checked_add(size).filter(|&end| end <= tar.len() as u64).ok_or_else(|| {
            fail(format!(
                "member {name} is truncated: {size} bytes from byte {start}, but the archive ends at byte {}",
                tar.len()
            ))
        })?;
        found.insert(name, &tar[start as usize..end as usize]);
    }
    if found.is_empty() {
        return Err(fail(
            "not a UMB archive: the tar archive holds no file".into(),
        ));
    }
    Ok(found)
}

/// `index.json`, the parts warpcheck reads.
#[derive(Debug, Deserialize)]
struct Index {
    #[serde(rename = "transition-system")]
    system: TransitionSystem,
    #[serde(default)]
    annotations: BTreeMap<String, BTreeMap<String, Annotation>>,
}

/// The `transition-system` object of `index.json`.
#[derive(Debug, Deserialize)]
struct TransitionSystem {
    time: String,
    #[serde(rename = "#players")]
    players: u64,
    #[serde(rename = "#states")]
    states: u64,
    #[serde(rename = "#initial-states")]
    initial_states: u64,
    #[serde(rename = "#choices")]
    choices: u64,
    #[serde(rename = "#branches")]
    branches: u64,
    #[serde(rename = "branch-probability-type")]
    branch_probability_type: Option<ValueType>,
    #[serde(rename = "exit-rate-type")]
    exit_rate_type: Option<ValueType>,
}

/// A UMB value type: `{"type": "double", "size": 64}`.
#[derive(Debug, Deserialize)]
struct ValueType {
    #[serde(rename = "type")]
    name: String,
    size: Option<u64>,
}

impl ValueType {
    /// Whether this is a 64-bit IEEE double.
    fn is_double(&self) -> bool {
        self.name == "double" && self.size.is_none_or(|size| size == 64)
    }

    /// Whether this is a one-bit Boolean.
    fn is_bool(&self) -> bool {
        self.name == "bool" && self.size.is_none_or(|size| size == 1)
    }
}

/// One annotation of `index.json`.
#[derive(Debug, Deserialize)]
struct Annotation {
    alias: Option<String>,
    #[serde(rename = "applies-to")]
    applies_to: Vec<String>,
    #[serde(rename = "type")]
    value_type: ValueType,
}

/// The archive's members, with `path` for errors.
struct Archive<'a> {
    path: &'a Path,
    members: HashMap<String, &'a [u8]>,
}

impl<'a> Archive<'a> {
    /// An error about the archive as a whole.
    fn fail(&self, message: String) -> LoadError {
        LoadError::invalid(self.path, message)
    }

    /// The member `name`, or `None` when the archive has none.
    fn optional(&self, name: &str) -> Option<&'a [u8]> {
        self.members.get(name).copied()
    }

    /// The member `name`, which must be there.
    fn required(&self, name: &str) -> Result<&'a [u8], LoadError> {
        self.optional(name)
            .ok_or_else(|| self.fail(format!("the archive has no member {name}")))
    }

    /// Checks that member `name` holds `count` entries of `width` bytes.
    fn check_length(
        &self,
        name: &str,
        bytes: &[u8],
        count: u64,
        width: u64,
    ) -> Result<(), LoadError> {
        let expected = count.checked_mul(width);
        if expected != Some(bytes.len() as u64) {
            return Err(self.fail(format!(
                "member {name} has {} bytes; {count} entries of {width} bytes were expected",
                bytes.len()
            )));
        }
        Ok(())
    }

    /// Member `name` as `count` little-endian `u64`s, converted on the
    /// current rayon pool.
    fn words(&self, name: &str, bytes: &[u8], count: u64) -> Result<Vec<u64>, LoadError> {
        self.check_length(name, bytes, count, 8)?;
        Ok(bytes.par_chunks_exact(8).map(little_endian_word).collect())
    }

    /// Member `name` as `count` little-endian doubles, converted on the
    /// current rayon pool.
    fn doubles(&self, name: &str, bytes: &[u8], count: u64) -> Result<Vec<f64>, LoadError> {
        self.check_length(name, bytes, count, 8)?;
        Ok(bytes
            .par_chunks_exact(8)
            .map(|word| f64::from_bits(little_endian_word(word)))
            .collect())
    }

    /// The CSR offsets of member `name` for `rows` rows into `entries`
    /// entries; `None` without the member, where each row has one entry
    /// (the UMB default), which needs `rows == entries`.
    fn offsets(&self, name: &str, rows: u64, entries: u64) -> Result<Option<Vec<u64>>, LoadError> {
        let Some(bytes) = self.optional(name) else {
            if rows != entries {
                return Err(self.fail(format!(
                    "the archive has no member {name}, which only {rows} rows of one entry each may leave out, but there are {entries} entries"
                )));
            }
            return Ok(None);
        };
        let offsets = self.words(name, bytes, rows.saturating_add(1))?;
        if offsets[0] != 0 {
            return Err(self.fail(format!(
                "member {name}: byte 0: the first offset is {}, not 0",
                offsets[0]
            )));
        }
        if let Some(row) = first_window(&offsets, 2, |pair| pair[1] < pair[0]).map(|i| i + 1) {
            return Err(self.fail(format!(
                "member {name}: byte {}: offset {} is below the previous offset {}",
                row * 8,
                offsets[row],
                offsets[row - 1]
            )));
        }
        let last = offsets[offsets.len() - 1];
        if last != entries {
            return Err(self.fail(format!(
                "member {name}: byte {}: the last offset is {last}, but there are {entries} entries",
                (offsets.len() - 1) * 8
            )));
        }
        Ok(Some(offsets))
    }

    /// The states whose bit is set in the bitset member `name` of
    /// `states` bits; `None` without the member.
    fn bitset(&self, name: &str, states: u64) -> Result<Option<Vec<u32>>, LoadError> {
        let Some(bytes) = self.optional(name) else {
            return Ok(None);
        };
        let words = self.words(name, bytes, states.div_ceil(64))?;
        // Only the last word has bits beyond the states.
        let last = words.len() - 1;
        let beyond = words[last] & !(u64::MAX >> (words.len() as u64 * 64 - states));
        if beyond != 0 {
            let state = last as u64 * 64 + u64::from(beyond.trailing_zeros());
            return Err(self.fail(format!(
                "member {name}: byte {}: bit {state} is set, but there are {states} states",
                last * 8
            )));
        }
        Ok(Some(set_bits(&words, BITSET_PIECE_WORDS)))
    }
}

/// The numbers of the bits set in `words` (bit i of word w is number
/// 64 w + i), ascending: listed `piece_words` words a task on the current
/// rayon pool, and joined in order.
fn set_bits(words: &[u64], piece_words: usize) -> Vec<u32> {
    let pieces: Vec<Vec<u32>> = words
        .par_chunks(piece_words)
        .enumerate()
        .map(|(piece, words)| {
            let mut set = Vec::new();
            for (index, &word) in words.iter().enumerate() {
                let first = ((piece * piece_words + index) * 64) as u32;
                let mut bits = word;
                while bits != 0 {
                    set.push(first + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
            set
        })
        .collect();
    pieces.concat()
}

/// The little-endian `u64` of an 8-byte `word`.
fn little_endian_word(word: &[u8]) -> u64 {
    u64::from_le_bytes(word.try_into().unwrap_or_default())
}

/// Parses an uncompressed UMB tar archive.
fn parse_tar(tar: &[u8], path: &Path) -> Result<ProbModel, LoadError> {
    if tar.get(257..262) != Some(b"ustar") {
        return Err(LoadError::invalid(
            path,
            "not a UMB archive: neither a tar archive (no `ustar` at byte 257) nor xz or gzip data",
        ));
    }
    let archive = Archive {
        path,
        members: members(tar, path)?,
    };
    let index: Index = serde_json::from_slice(archive.required("index.json")?)
        .map_err(|e| archive.fail(format!("member index.json: {e}")))?;
    let system = &index.system;
    let (states, choices, branches) = (system.states, system.choices, system.branches);
    if states == 0 || states > MAX_STATES {
        return Err(archive.fail(format!(
            "member index.json: {states} states; a model has 1 to {MAX_STATES}"
        )));
    }
    let kind = match (system.time.as_str(), system.players) {
        ("discrete", 0) => "dtmc",
        ("discrete", 1) => "mdp",
        ("stochastic", 0) => "ctmc",
        (time, players) => {
            return Err(archive.fail(format!(
                "member index.json: a model with {time} time and {players} players is not a DTMC, CTMC or MDP, the types warpcheck reads"
            )));
        }
    };
    if !system
        .branch_probability_type
        .as_ref()
        .is_some_and(ValueType::is_double)
    {
        return Err(archive.fail(
            "member index.json: branch probabilities must be of type double (64 bits); rational and interval values are not read".into(),
        ));
    }
    let targets_name = "branch-to-target.bin";
    let target_bytes = archive.required(targets_name)?;
    archive.check_length(targets_name, target_bytes, branches, 8)?;
    // Straight from the bytes to `u32`, without a `u64` copy of the array,
    // on the current rayon pool; a target out of range becomes u32::MAX,
    // never a state (there are at most MAX_STATES = u32::MAX of them), and
    // the first such is reported.
    let targets: Vec<u32> = target_bytes
        .par_chunks_exact(8)
        .map(|word| {
            let target = little_endian_word(word);
            u32::try_from(target)
                .ok()
                .filter(|&t| u64::from(t) < states)
                .unwrap_or(u32::MAX)
        })
        .collect();
    if let Some(branch) = targets.par_iter().position_first(|&t| t == u32::MAX) {
        let target = little_endian_word(&target_bytes[branch * 8..branch * 8 + 8]);
        return Err(archive.fail(format!(
            "member {targets_name}: byte {}: target {target} is not among the {states} states",
            branch * 8
        )));
    }
    let probabilities_name = "branch-to-probability.bin";
    let probabilities = archive.doubles(
        probabilities_name,
        archive.required(probabilities_name)?,
        branches,
    )?;
    // After the arrays of branches, whose bytes bound the counts. Without
    // its member, each state has one choice (`None`: a Markov chain then
    // takes the branch offsets as its rows), or each choice one branch.
    let choice_offsets = archive.offsets("state-to-choices.bin", states, choices)?;
    let branch_offsets = archive
        .offsets("choice-to-branches.bin", choices, branches)?
        .unwrap_or_else(|| (0..=choices).collect());

    let initial = match archive.bitset("state-is-initial.bin", states)?.as_deref() {
        Some(&[initial]) if system.initial_states == 1 => initial,
        found => {
            let count = found.map_or(0, <[u32]>::len);
            return Err(archive.fail(format!(
                "member state-is-initial.bin: {count} initial states (the index says {}); exactly one is needed",
                system.initial_states
            )));
        }
    };
    // The state of each choice of a Markov chain whose states may lack a
    // choice, for its choice rewards, the rewards of that state's move.
    let owners: Option<Vec<u32>> =
        choice_offsets
            .as_ref()
            .filter(|_| kind != "mdp")
            .map(|choice_offsets| {
                let mut owners = vec![0u32; choices as usize];
                for state in 0..states as usize {
                    for choice in choice_offsets[state]..choice_offsets[state + 1] {
                        owners[choice as usize] = state as u32;
                    }
                }
                owners
            });
    let model = match kind {
        "mdp" => {
            let mdp = Mdp {
                choice_offsets: choice_offsets.unwrap_or_else(|| (0..=states).collect()),
                branch_offsets,
                targets,
                probabilities,
                choice_labels: None,
                initial,
            };
            mdp.validate().map_err(|e| archive.fail(e.to_string()))?;
            ExplicitModel::Mdp(mdp)
        }
        _ => {
            let offsets = match choice_offsets {
                None => branch_offsets,
                Some(choice_offsets) => {
                    let mut offsets = Vec::with_capacity(states as usize + 1);
                    for state in 0..states as usize {
                        let own = choice_offsets[state + 1] - choice_offsets[state];
                        if own > 1 {
                            return Err(archive.fail(format!(
                                "member state-to-choices.bin: byte {}: state {state} has {own} choices; a Markov chain's states have at most one",
                                state * 8
                            )));
                        }
                        offsets.push(branch_offsets[choice_offsets[state] as usize]);
                    }
                    offsets.push(branches);
                    offsets
                }
            };
            let mut chain = MarkovChain {
                offsets,
                targets,
                values: probabilities,
                initial,
            };
            if kind == "ctmc" {
                if !system
                    .exit_rate_type
                    .as_ref()
                    .is_some_and(ValueType::is_double)
                {
                    return Err(archive.fail(
                        "member index.json: a CTMC's exit rates must be of type double".into(),
                    ));
                }
                let rates_name = "state-to-exit-rate.bin";
                let rates = archive.doubles(rates_name, archive.required(rates_name)?, states)?;
                for (bounds, rate) in chain.offsets.windows(2).zip(rates) {
                    for value in &mut chain.values[bounds[0] as usize..bounds[1] as usize] {
                        *value *= rate;
                    }
                }
            }
            chain.validate().map_err(|e| archive.fail(e.to_string()))?;
            if kind == "dtmc" {
                if let Some((state, sum)) = chain.first_non_stochastic_row() {
                    return Err(archive.fail(format!(
                        "state {state}: probabilities sum to {sum}, not 1 (the rows of a DTMC sum to 1)"
                    )));
                }
                ExplicitModel::Dtmc(chain)
            } else {
                ExplicitModel::Ctmc(chain)
            }
        }
    };

    let mut labels = StateLabels::default();
    for (id, annotation) in index.annotations.get("aps").into_iter().flatten() {
        if !annotation.applies_to.iter().any(|a| a == "states") || !annotation.value_type.is_bool()
        {
            continue;
        }
        let member = format!("annotations/aps/{id}/states/values.bin");
        let set = archive.bitset(&member, states)?.unwrap_or_default();
        labels.insert(annotation.alias.as_deref().unwrap_or(id), set);
    }
    if labels.get("init").is_none() {
        labels.insert("init", vec![initial]);
    }
    let mut rewards = Vec::new();
    for (id, annotation) in index.annotations.get("rewards").into_iter().flatten() {
        if let Some(other) = annotation
            .applies_to
            .iter()
            .find(|to| !["states", "choices", "branches"].contains(&to.as_str()))
        {
            return Err(archive.fail(format!(
                "member index.json: reward {id} applies to {other}; rewards of states, choices and branches are read"
            )));
        }
        if !annotation.value_type.is_double() {
            return Err(archive.fail(format!(
                "member index.json: reward {id} is of type {}; only double rewards are read",
                annotation.value_type.name
            )));
        }
        let name = annotation.alias.clone().unwrap_or_else(|| id.clone());
        let mut structure: Option<RewardStructure> = None;
        for target in &annotation.applies_to {
            let member = format!("annotations/rewards/{id}/{target}/values.bin");
            let bytes = archive.required(&member)?;
            let part = match target.as_str() {
                "states" => {
                    RewardStructure::of_states(None, archive.doubles(&member, bytes, states)?)
                }
                "choices" => {
                    let values = archive.doubles(&member, bytes, choices)?;
                    let moves = match &owners {
                        // A chain has at most one choice per state.
                        Some(owners) => {
                            let mut moves = vec![0.0; states as usize];
                            for (choice, value) in values.into_iter().enumerate() {
                                moves[owners[choice] as usize] = value;
                            }
                            moves
                        }
                        // An MDP's choices, or a chain's one choice a state.
                        None => values,
                    };
                    RewardStructure::of_moves(None, states as u32, moves)
                }
                _ => {
                    let values = archive.doubles(&member, bytes, branches)?;
                    RewardStructure::of_moves(None, states as u32, model.mean_move_rewards(&values))
                }
            };
            match &mut structure {
                Some(structure) => structure.add(part),
                None => structure = Some(part),
            }
        }
        let mut structure = structure
            .unwrap_or_else(|| RewardStructure::of_states(None, vec![0.0; states as usize]));
        structure.name = Some(name);
        rewards.push(structure);
    }
    Ok(ProbModel {
        model,
        labels,
        rewards,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Listing in pieces gives every set bit once, in order, whatever
        /// the piece size.
        #[test]
        fn set_bits_lists_every_set_bit_in_order(
            words in proptest::collection::vec(any::<u64>(), 0..40),
            piece_words in 1usize..7,
        ) {
            let expected: Vec<u32> = (0..words.len() as u32 * 64)
                .filter(|&bit| words[bit as usize / 64] >> (bit % 64) & 1 == 1)
                .collect();
            prop_assert_eq!(set_bits(&words, piece_words), expected);
        }
    }
}
