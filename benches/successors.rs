//! Successor generation: the cost of `SuccessorGenerator::for_each` per
//! state, on the counters family (synchronising resets) and on Model
//! Checking Contest nets of the test data (many processes, many rules, the
//! 1-safety process in every overflow rule) when they are present.

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warpcheck::encode::{EncodedNetwork, SuccessorGenerator};
use warpcheck::testing;

/// The first `count` reachable states of `net`, breadth-first.
fn sample_states(net: &EncodedNetwork, count: usize) -> Vec<Vec<u32>> {
    let mut states = vec![net.initial.clone()];
    let mut generator = SuccessorGenerator::new(net);
    let mut seen: std::collections::HashSet<Vec<u32>> = states.iter().cloned().collect();
    let mut at = 0;
    while at < states.len() && states.len() < count {
        let current = states[at].clone();
        generator.for_each(&current, |s| {
            if seen.insert(s.state.to_vec()) {
                states.push(s.state.to_vec());
            }
        });
        at += 1;
    }
    states
}

fn bench_network(c: &mut Criterion, name: &str, net: &EncodedNetwork) {
    let states = sample_states(net, 4096);
    let mut group = c.benchmark_group("successors");
    group.throughput(Throughput::Elements(states.len() as u64));
    group.bench_function(name, |b| {
        let mut generator = SuccessorGenerator::new(net);
        b.iter(|| {
            let mut transitions = 0u64;
            for state in &states {
                transitions += generator
                    .for_each(state, |s| {
                        std::hint::black_box(s.state);
                    })
                    .successors;
            }
            transitions
        });
    });
    group.finish();
}

fn successors(c: &mut Criterion) {
    let counters = EncodedNetwork::new(&testing::counters(8, 6, true)).expect("encodes");
    bench_network(c, "counters_8x6", &counters);
    let mcc = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcc");
    for model in [
        "Dekker-PT-010",
        "Peterson-PT-2",
        "FlexibleBarrier-PT-04a",
        "Referendum-PT-0010",
    ] {
        if let Ok(net) = warpcheck::frontend::load(&mcc.join(model).join("model.pnml")) {
            let encoded = EncodedNetwork::new(&net).expect("encodes");
            bench_network(c, model, &encoded);
        }
    }
}

criterion_group!(benches, successors);
criterion_main!(benches);
