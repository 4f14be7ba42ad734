//! Table insertion: the lock-free `StateTable`, filled by 1 and 2 threads
//! at once, against a hashbrown set of vectors (what a sequential search
//! would use), inserting a million distinct 3-word vectors and then looking
//! them all up again; and growing a full table's index to twice its size,
//! rebuilt from the stored vectors.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::sync::atomic::{AtomicU64, Ordering};
use warpcheck::encode::hash_words;

use warpcheck::explore::cpu::{Lookup, MAX_FILL_PER_MILLE, StateTable};

const VECTORS: u32 = 1 << 20;
const WORDS: usize = 3;

/// Distinct vectors of `WORDS` words, as an encoding would produce them.
fn vectors() -> Vec<[u32; WORDS]> {
    (0..VECTORS)
        .map(|i| [i & 0x7FFF_FFFF, i.wrapping_mul(7) & 0xFF, i >> 12])
        .collect()
}

/// Index entries for every vector at the engine's largest fill.
const SLOTS: u64 = (VECTORS as u64 * 1000)
    .div_ceil(MAX_FILL_PER_MILLE)
    .next_power_of_two();

/// A table with room for every vector, with predecessors, as the engine
/// would have it at its fullest.
fn table() -> StateTable {
    StateTable::new(WORDS, SLOTS, 0..VECTORS as u64)
}

/// Looks every vector up, inserting the new ones under ids taken from
/// `next_id` (one id at a time, as the engine does in batches).
fn insert_all(table: &StateTable, vectors: &[[u32; WORDS]], next_id: &AtomicU64) -> u64 {
    let mut inserted = 0;
    let mut reserved = None;
    for v in vectors {
        let lookup = table.find_or_insert(v, hash_words(v), || {
            let id = *reserved.get_or_insert_with(|| next_id.fetch_add(1, Ordering::Relaxed));
            Some(id)
        });
        if let Lookup::Inserted(_) = lookup {
            reserved = None;
            inserted += 1;
        }
    }
    inserted
}

fn insertion(c: &mut Criterion) {
    let vectors = vectors();
    let mut group = c.benchmark_group("table_insert");
    group.throughput(Throughput::Elements(2 * VECTORS as u64));
    group.sample_size(10);
    group.bench_function("hashbrown_insert_then_find", |b| {
        b.iter(|| {
            let mut set = hashbrown::HashSet::new();
            for v in &vectors {
                set.insert(*v);
            }
            for v in &vectors {
                assert!(!set.insert(*v));
            }
            set.len()
        });
    });
    for threads in [1usize, 2] {
        group.bench_function(
            format!("state_table_{threads}_threads_insert_then_find"),
            |b| {
                b.iter_batched(
                    table,
                    |table| {
                        let share = vectors.len().div_ceil(threads);
                        let ids = AtomicU64::new(0);
                        // Each thread inserts its share, then finds it all.
                        let inserted: Vec<(u64, u64)> = std::thread::scope(|scope| {
                            let workers: Vec<_> = vectors
                                .chunks(share)
                                .map(|part| {
                                    let (table, ids) = (&table, &ids);
                                    scope.spawn(move || {
                                        (insert_all(table, part, ids), insert_all(table, part, ids))
                                    })
                                })
                                .collect();
                            workers.into_iter().map(|w| w.join().unwrap()).collect()
                        });
                        assert!(inserted.iter().all(|&(_, again)| again == 0));
                        let total: u64 = inserted.iter().map(|&(first, _)| first).sum();
                        assert_eq!(total, VECTORS as u64);
                    },
                    BatchSize::PerIteration,
                );
            },
        );
    }
    group.finish();
}

/// Replacing a full table's index by one twice as large and putting every
/// stored state into it, by 1 and 2 threads, as a growth of the engine's
/// table does.
fn growth(c: &mut Criterion) {
    let vectors = vectors();
    let full = || {
        let table = table();
        insert_all(&table, &vectors, &AtomicU64::new(0));
        table
    };
    let mut group = c.benchmark_group("table_grow");
    group.throughput(Throughput::Elements(VECTORS as u64));
    group.sample_size(10);
    for threads in [1usize, 2] {
        group.bench_function(format!("reindex_{threads}_threads"), |b| {
            b.iter_batched(
                full,
                |mut table| {
                    table.begin_growth(2 * SLOTS, 0..VECTORS as u64);
                    std::thread::scope(|scope| {
                        let share = VECTORS.div_ceil(threads as u32);
                        for part in 0..threads as u32 {
                            let table = &table;
                            let ids =
                                u64::from(part * share)..u64::from(VECTORS.min((part + 1) * share));
                            scope.spawn(move || table.reindex(ids));
                        }
                    });
                    table
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, insertion, growth);
criterion_main!(benches);
