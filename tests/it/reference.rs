//! The reference engine on the bundled examples: every reported trace is
//! replayed through the semantics, and findings agree with `--all` counts.

use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::{Completion, FindingKind, SearchOptions, reference};
use warpcheck::testing;

#[test]
fn every_spec_trace_replays_and_matches_the_full_search() {
    let mut findings = 0;
    for (name, net) in testing::spec_checks() {
        let first = reference::explore(
            &net,
            &SearchOptions {
                check_deadlock: true,
                ..SearchOptions::default()
            },
        );
        let all = reference::explore(
            &net,
            &SearchOptions {
                check_deadlock: true,
                keep_going: true,
                ..SearchOptions::default()
            },
        );
        assert_eq!(all.completion, Completion::Complete, "{name}");
        match &first.first {
            Some(finding) => {
                findings += 1;
                testing::check_finding(&net, finding).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(first.completion, Completion::StoppedAtFinding);
                let trace = finding.trace.as_ref().unwrap();
                assert!(trace.actions.len() as u32 <= all.depth, "{name}");
                match finding.kind {
                    FindingKind::Deadlock => assert!(all.deadlocks > 0, "{name}"),
                    FindingKind::Error(_) => assert!(all.errors > 0, "{name}"),
                }
            }
            None => {
                assert_eq!((all.deadlocks, all.errors), (0, 0), "{name}");
                assert_eq!(
                    (first.states, first.transitions),
                    (all.states, all.transitions)
                );
            }
        }
    }
    assert!(
        findings >= 2,
        "the examples include a deadlock and a violation"
    );
}

#[test]
fn random_network_traces_are_shortest_and_replay() {
    for seed in 0..300 {
        let network = testing::random_network(seed);
        let net = EncodedNetwork::new(&network).unwrap();
        let result = reference::explore(
            &net,
            &SearchOptions {
                check_deadlock: true,
                ..SearchOptions::default()
            },
        );
        if let Some(finding) = &result.first {
            testing::check_finding(&net, finding).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            // Breadth-first: the finding is at most one level below the
            // last level fully expanded.
            let steps = finding.trace.as_ref().unwrap().actions.len() as u32;
            assert!(steps <= result.depth + 1, "seed {seed}");
        }
    }
}

/// A large model: the barrier family of size 6 (13^6 = 4,826,809 states).
fn barrier6() -> EncodedNetwork {
    let text = warpcheck::generate::barrier(6).unwrap();
    let network =
        warpcheck::frontend::net::parse(&text, std::path::Path::new("barrier6.net")).unwrap();
    EncodedNetwork::new(&network).unwrap()
}

#[test]
fn a_stop_signal_ends_every_cpu_engine_with_the_figures_so_far() {
    use warpcheck::explore::StopSignal;
    use warpcheck::explore::cpu::{self, CpuOptions};
    let net = barrier6();
    let stop = StopSignal::new();
    stop.request();
    let search = SearchOptions {
        check_deadlock: true,
        stop,
        ..SearchOptions::default()
    };
    let by_reference = reference::explore(&net, &search);
    let by_cpu = cpu::explore(&net, &search, &CpuOptions { threads: 2 });
    for r in [&by_reference, &by_cpu] {
        assert_eq!(r.completion, Completion::Interrupted, "{}", r.engine);
        assert!(r.first.is_none());
        assert!(
            r.states >= 1 && r.states < 4_826_809,
            "{}: {}",
            r.engine,
            r.states
        );
    }
    let past = StopSignal::new().with_deadline(std::time::Instant::now());
    let timed = SearchOptions {
        stop: past,
        ..SearchOptions::default()
    };
    assert_eq!(
        reference::explore(&net, &timed).completion,
        Completion::Interrupted
    );
}

#[test]
fn the_reference_store_stays_within_its_memory_limit() {
    let net = barrier6();
    for limit in [1u64 << 16, 1 << 20, 3 << 20] {
        let search = SearchOptions {
            memory_bytes: Some(limit),
            ..SearchOptions::default()
        };
        let r = reference::explore(&net, &search);
        assert_eq!(r.completion, Completion::TableFull, "{limit}");
        assert!(r.memory_bytes <= limit, "{} > {limit}", r.memory_bytes);
        // Growing by doubling wastes at most half of the limit.
        let per_state = (net.words() * 4 + 8 + 5) as u64;
        assert!(
            r.states * per_state * 4 >= limit,
            "{limit}: {} states",
            r.states
        );
    }
    let tiny = SearchOptions {
        memory_bytes: Some(1),
        ..SearchOptions::default()
    };
    let r = reference::explore(&net, &tiny);
    assert_eq!((r.states, r.completion), (0, Completion::TableFull));
}
