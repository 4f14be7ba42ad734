//! Structural bounds of places from place invariants.
//!
//! A non-negative vector `y` over the places with `y·C = 0` (`C` the
//! incidence matrix: tokens a transition puts into a place minus those it
//! takes) is a P-semiflow: every firing keeps `y·m` unchanged, so in every
//! reachable marking `y_p · m(p) <= y·m = y·m0`, and place `p` never holds
//! more than `floor(y·m0 / y_p)` tokens when `y_p > 0`. Any such `y` gives a
//! sound bound, so the search below may drop candidates whenever its budget
//! says so: it then finds fewer bounds, never wrong ones.
//!
//! The semiflows come from the Farkas algorithm (as in Martínez and Silva's
//! formulation): start from one row per place (`y = e_p`, its row of `C`),
//! and eliminate the transitions one at a time, each time replacing the
//! rows whose entry for it is not zero by the non-negative combinations of
//! one positive and one negative row that cancel it. Rows whose places are
//! a superset of another row's places are dropped as they appear (only the
//! minimal ones are needed). The number of rows can grow exponentially, so
//! [`MAX_ROWS`] and [`MAX_WORK`] cap it. Where P-semiflows leave a place
//! unbounded, the same search with slack variables finds sub-conservative
//! vectors (`y·C <= 0`), which bound it just as soundly.

use super::PetriNet;

/// Most candidate rows kept at once; combinations beyond it are dropped.
pub const MAX_ROWS: usize = 4_096;

/// Most entry operations (row entries read, combined or compared) spent
/// looking for semiflows; the search stops when it is spent. A few tens of
/// milliseconds at most.
pub const MAX_WORK: u64 = 30_000_000;

/// A candidate semiflow: place weights `y` and what it still changes.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    /// `(place, y_p)` with `y_p > 0`, sorted by place.
    weights: Vec<(u32, u64)>,
    /// `(transition, (y·C)_t)` with a non-zero value, for the transitions
    /// not eliminated yet, sorted by transition.
    effect: Vec<(u32, i64)>,
}

impl Row {
    /// `self · b + other · a`, for `self` changing the eliminated transition
    /// by `a > 0` and `other` by `-b < 0`, divided by the greatest common
    /// divisor of its entries; `None` when a number would not fit.
    fn cancel(&self, a: u64, other: &Row, b: u64) -> Option<Row> {
        let weights = merge(&self.weights, b, &other.weights, a)?;
        let (a, b) = (i64::try_from(a).ok()?, i64::try_from(b).ok()?);
        let effect = merge_signed(&self.effect, b, &other.effect, a)?;
        let mut row = Row { weights, effect };
        row.normalise();
        Some(row)
    }

    /// Divides every entry by their greatest common divisor.
    fn normalise(&mut self) {
        let divisor = self
            .weights
            .iter()
            .map(|&(_, w)| w)
            .chain(self.effect.iter().map(|&(_, e)| e.unsigned_abs()))
            .fold(0, gcd);
        if divisor > 1 {
            for (_, w) in &mut self.weights {
                *w /= divisor;
            }
            for (_, e) in &mut self.effect {
                // |e| is a multiple of the divisor, so the quotient fits.
                *e /= divisor as i64;
            }
        }
    }

    /// The value of the eliminated `transition` in this row (0 if absent).
    fn effect_on(&self, transition: u32) -> i64 {
        self.effect
            .binary_search_by_key(&transition, |&(t, _)| t)
            .map_or(0, |i| self.effect[i].1)
    }

    /// Whether every place of `self` is a place of `other`.
    fn support_within(&self, other: &Row) -> bool {
        if self.weights.len() > other.weights.len() {
            return false;
        }
        let mut theirs = other.weights.iter().map(|&(p, _)| p);
        self.weights
            .iter()
            .all(|&(p, _)| theirs.by_ref().any(|q| q == p))
    }
}

/// Greatest common divisor.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `x · k + y · l` of two sparse sorted vectors; `None` when a number would
/// not fit.
fn merge(x: &[(u32, u64)], k: u64, y: &[(u32, u64)], l: u64) -> Option<Vec<(u32, u64)>> {
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        if j == y.len() || (i < x.len() && x[i].0 < y[j].0) {
            out.push((x[i].0, x[i].1.checked_mul(k)?));
            i += 1;
        } else if i == x.len() || y[j].0 < x[i].0 {
            out.push((y[j].0, y[j].1.checked_mul(l)?));
            j += 1;
        } else {
            let sum = x[i].1.checked_mul(k)?.checked_add(y[j].1.checked_mul(l)?)?;
            out.push((x[i].0, sum));
            i += 1;
            j += 1;
        }
    }
    Some(out)
}

/// `x · k + y · l` of two sparse sorted signed vectors, without the zero
/// entries; `None` when a number would not fit.
fn merge_signed(x: &[(u32, i64)], k: i64, y: &[(u32, i64)], l: i64) -> Option<Vec<(u32, i64)>> {
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        let (key, value) = if j == y.len() || (i < x.len() && x[i].0 < y[j].0) {
            i += 1;
            (x[i - 1].0, x[i - 1].1.checked_mul(k)?)
        } else if i == x.len() || y[j].0 < x[i].0 {
            j += 1;
            (y[j - 1].0, y[j - 1].1.checked_mul(l)?)
        } else {
            i += 1;
            j += 1;
            let sum = x[i - 1]
                .1
                .checked_mul(k)?
                .checked_add(y[j - 1].1.checked_mul(l)?)?;
            (x[i - 1].0, sum)
        };
        if value != 0 {
            out.push((key, value));
        }
    }
    Some(out)
}

/// For every place of `net`, the least bound `floor(y·m0 / y_p)` over the
/// vectors `y` found with `y_p > 0`, or `None` when none was found: first
/// over the P-semiflows (`y·C = 0`), then, if some place is left without a
/// bound, also over the sub-conservative vectors (`y·C <= 0`, which keep
/// `y·m` from growing: as sound, and they bound nets where some transitions
/// destroy tokens).
pub(super) fn structural_bounds(net: &PetriNet) -> Vec<Option<u64>> {
    let mut bounds = bounds_from_rows(net, false);
    if bounds.iter().any(Option::is_none) {
        let tightest = |bounds: &mut Vec<Option<u64>>, more: Vec<Option<u64>>| {
            for (bound, other) in bounds.iter_mut().zip(more) {
                *bound = match (*bound, other) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
        };
        tightest(&mut bounds, bounds_from_rows(net, true));
        tightest(&mut bounds, token_count_bound(net));
    }
    bounds
}

/// Whether `structural` (from [`structural_bounds`]) bounds every place,
/// within [`super::MAX_PLACE_BOUND`], and some place above 1 token: a net
/// that looks 1-safe is then read as a place/transition net with these
/// proven bounds, since the invariants found cannot show it 1-safe.
pub(super) fn proves_bounded_not_safe(structural: &[Option<u64>]) -> bool {
    let proven = |bound: &Option<u64>| bound.is_some_and(|b| b <= super::MAX_PLACE_BOUND as u64);
    structural.iter().all(proven) && structural.iter().any(|&bound| bound > Some(1))
}

/// Why a net that looks 1-safe keeps the 1-safe reading although it may
/// not be: the places of `net` that `structural` leaves without a bound,
/// the first named and the others counted; `None` when every place has one
/// (then none above 1 token: the net is 1-safe).
pub(super) fn unbounded_places(net: &PetriNet, structural: &[Option<u64>]) -> Option<String> {
    let proven = |bound: &Option<u64>| bound.is_some_and(|b| b <= super::MAX_PLACE_BOUND as u64);
    let mut unbounded = net
        .places
        .iter()
        .zip(structural)
        .filter(|(_, bound)| !proven(bound));
    let (first, _) = unbounded.next()?;
    let others = match unbounded.count() {
        0 => String::new(),
        1 => " and 1 other place".to_string(),
        more => format!(" and {more} other places"),
    };
    Some(format!(
        "the place invariants found bound no place `{}`{others}, so no bound can be proven",
        first.name
    ))
}

/// The bound that `y = (1, ..., 1)` gives, when no transition produces more
/// tokens than it consumes: no place ever holds more tokens than the
/// initial marking has in all. The search with slack variables may run out
/// of budget before it finds this vector.
fn token_count_bound(net: &PetriNet) -> Vec<Option<u64>> {
    let weight = |arcs: &[super::Arc]| arcs.iter().map(|arc| arc.weight).sum::<u64>();
    let never_grows = net
        .transitions
        .iter()
        .all(|t| weight(&t.outputs) <= weight(&t.inputs));
    let total = net.places.iter().map(|p| p.tokens).sum::<u64>();
    vec![never_grows.then_some(total); net.places.len()]
}

/// The bounds of [`structural_bounds`] from the vectors `y >= 0` with
/// `y·C = 0`, or with `y·C <= 0` when `slack` is set. The latter are found
/// as semiflows of the net with one more row per transition `t`, a slack
/// variable whose only change is +1 by `t` (`y·C + s = 0` with `s >= 0`);
/// its entry is numbered after the places and bounds nothing.
fn bounds_from_rows(net: &PetriNet, slack: bool) -> Vec<Option<u64>> {
    let places = net.places.len();
    let mut rows: Vec<Row> = (0..places)
        .map(|p| Row {
            weights: vec![(p as u32, 1)],
            effect: Vec::new(),
        })
        .collect();
    for (t, transition) in net.transitions.iter().enumerate() {
        let changes = transition
            .inputs
            .iter()
            .map(|arc| (arc.place, -(arc.weight as i64)))
            .chain(
                transition
                    .outputs
                    .iter()
                    .map(|arc| (arc.place, arc.weight as i64)),
            );
        for (place, change) in changes {
            let effect = &mut rows[place].effect;
            match effect.last_mut() {
                Some((last, value)) if *last == t as u32 => *value += change,
                _ => effect.push((t as u32, change)),
            }
        }
    }
    for row in &mut rows {
        row.effect.retain(|&(_, e)| e != 0);
    }
    if slack {
        rows.extend((0..net.transitions.len()).map(|t| Row {
            weights: vec![((places + t) as u32, 1)],
            effect: vec![(t as u32, 1)],
        }));
    }
    let mut work = 0u64;
    while let Some(transition) = next_transition(&rows, &mut work) {
        rows = eliminate(rows, transition, &mut work);
    }
    let mut bounds: Vec<Option<u64>> = vec![None; places];
    for row in rows.iter().filter(|row| row.effect.is_empty()) {
        let on_places = || row.weights.iter().filter(|&&(p, _)| (p as usize) < places);
        let total: u128 = on_places()
            .map(|&(p, y)| y as u128 * net.places[p as usize].tokens as u128)
            .sum();
        for &(p, y) in on_places() {
            if let Ok(bound) = u64::try_from(total / y as u128) {
                let slot = &mut bounds[p as usize];
                *slot = Some(slot.map_or(bound, |b| b.min(bound)));
            }
        }
    }
    bounds
}

/// The transition to eliminate next: among those some row still changes,
/// the one with the fewest combinations (positive rows times negative
/// rows); `None` when none is left or the budget is spent.
fn next_transition(rows: &[Row], work: &mut u64) -> Option<u32> {
    if *work > MAX_WORK {
        return None;
    }
    let mut signs: std::collections::HashMap<u32, (u64, u64)> = Default::default();
    for row in rows {
        *work += 1 + row.effect.len() as u64;
        for &(t, e) in &row.effect {
            let entry = signs.entry(t).or_default();
            if e > 0 {
                entry.0 += 1;
            } else {
                entry.1 += 1;
            }
        }
    }
    signs
        .into_iter()
        .min_by_key(|&(t, (positive, negative))| (positive * negative, positive + negative, t))
        .map(|(t, _)| t)
}

/// The rows after eliminating `transition`: those that do not change it,
/// and the minimal cancelling combinations of the others, within
/// [`MAX_ROWS`] and [`MAX_WORK`].
fn eliminate(rows: Vec<Row>, transition: u32, work: &mut u64) -> Vec<Row> {
    let (mut kept, changing): (Vec<Row>, Vec<Row>) = rows
        .into_iter()
        .partition(|row| row.effect_on(transition) == 0);
    let (positive, negative): (Vec<&Row>, Vec<&Row>) = changing
        .iter()
        .partition(|row| row.effect_on(transition) > 0);
    for p in &positive {
        for n in &negative {
            if kept.len() >= MAX_ROWS || *work > MAX_WORK {
                return kept;
            }
            let a = p.effect_on(transition).unsigned_abs();
            let b = n.effect_on(transition).unsigned_abs();
            *work += (p.weights.len() + n.weights.len() + p.effect.len() + n.effect.len()) as u64;
            let Some(row) = p.cancel(a, n, b) else {
                continue;
            };
            *work += (kept.len() * row.weights.len()) as u64;
            if !kept.iter().any(|other| other.support_within(&row)) {
                kept.push(row);
            }
        }
    }
    kept
}
