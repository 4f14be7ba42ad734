//! Table insertion: the lock-free `StateTable` against a hashbrown set of
//! vectors (what a sequential search would use), inserting a million
//! distinct 3-word vectors and then looking them all up again; and the
//! table alone filled by 1 and 2 threads at once.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use warpcheck::encode::hash_words;
use warpcheck::engine::parallel::{Lookup, StateTable};

const VECTORS: u32 = 1 << 20;
const WORDS: usize = 3;

/// Distinct vectors of `WORDS` words, as an encoding would produce them.
fn vectors() -> Vec<[u32; WORDS]> {
    (0..VECTORS)
        .map(|i| [i & 0x7FFF_FFFF, i.wrapping_mul(7) & 0xFF, i >> 12])
        .collect()
}

/// A table with room for every vector at a fill of one half.
fn table() -> StateTable {
    StateTable::new(
        WORDS,
        2 * VECTORS as u64 * StateTable::slot_bytes_for(WORDS),
    )
}

fn insert_all(table: &StateTable, vectors: &[[u32; WORDS]]) -> u64 {
    let mut inserted = 0;
    for v in vectors {
        if let Lookup::Inserted(_) = table.find_or_insert(v, hash_words(v), None, || true) {
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
    group.bench_function("state_table_insert_then_find", |b| {
        b.iter_batched(
            table,
            |table| {
                let inserted = insert_all(&table, &vectors);
                assert_eq!(inserted, VECTORS as u64);
                assert_eq!(insert_all(&table, &vectors), 0);
            },
            BatchSize::PerIteration,
        );
    });
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
                        std::thread::scope(|scope| {
                            for part in vectors.chunks(share) {
                                let table = &table;
                                scope.spawn(move || {
                                    insert_all(table, part);
                                    insert_all(table, part)
                                });
                            }
                        });
                    },
                    BatchSize::PerIteration,
                );
            },
        );
    }
    group.finish();
}

criterion_group!(benches, insertion);
criterion_main!(benches);
