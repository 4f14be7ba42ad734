//! A search split into partitions that own the states by the hash of their
//! vectors (`PARTITIONED` in `kernels/explore/search.cu`): one partition
//! per GPU, exchanging successors through NCCL, or several partitions on
//! one GPU, exchanging them by device copies (what tests run on a machine
//! of one GPU: the same kernels and the same host loop).
//!
//! Each level, every partition expands its frontier, stores the successors
//! it owns and writes the others into an outbox region per owner; the host
//! moves the regions into the owners' inboxes in chunks, and the `absorb`
//! kernel stores each chunk there (on a stream of its own, while the next
//! chunk travels), new states joining the owner's next frontier. A
//! partition whose outbox fills beyond half stops taking frontier work: the
//! host exchanges and runs the rest of the level. Levels stay in lockstep,
//! so counts, verdicts and trace lengths are those of one GPU. Predecessor
//! links carry their partition above [`PARTITION_SHIFT`], so traces cross
//! partitions.
//!
//! Tables do not grow here: each partition takes the largest table its
//! share of the memory holds from the start (a growth renumbers slots, and
//! every partition holds links into every other one).

use std::ffi::c_char;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nccl::safe::{Comm, Id};

use super::device_net::DeviceNet;
use super::kernel::{SearchParams, found, stat, stop};
use super::nodes::{NODE_SHARE, NodeTable};
use super::rendezvous;
use super::search::{
    Buffers, Geometry, Launcher, Measured, StateReader, StoredStates, ending_of, exploration_of,
    finding, memory_budget, place_initial,
};
use super::{GpuExploration, GpuOptions, Partitioning, SlotNumbers};
use crate::encode::{EncodedNetwork, hash_words};
use crate::explore::outcome;
use crate::explore::{Finding, Progress, SearchOptions, Storage};
use crate::gpu::{Device, GpuError, LargeSlice};

/// A link's partition sits above this bit (the kernels' `PARTITION_SHIFT`).
pub const PARTITION_SHIFT: u32 = 56;
/// Most partitions: a link's partition takes 7 bits (the top bit of a
/// message's link is its error flag).
pub const MAX_PARTITIONS: usize = 127;
/// A partition's outboxes and inbox take at most this share of its memory.
const EXCHANGE_SHARE: u64 = 8;
/// Messages an outbox region holds at least ...
const MIN_REGION_MESSAGES: u64 = 1 << 16;
/// ... and at most.
const MAX_REGION_MESSAGES: u64 = 1 << 28;
/// What the exchange does, for error messages.
const EXCHANGING: &str = "exchanging successors between partitions";
/// What the owners do with what they received, for error messages.
const STORING: &str = "storing received successors";

/// The partition that owns a vector of hash `hash` (the kernels'
/// `partition_of`): from the hash's low 16 bits, which the table's home
/// bucket leaves alone.
pub fn partition_of(hash: u64, partitions: usize) -> usize {
    (((hash & 0xffff) * partitions as u64) >> 16) as usize
}

/// Words of a message (the kernels' `MESSAGE_WORDS`): the vector of
/// `words` words, the predecessor's link (two words) with `trace`, and the
/// error flag in the top bit of the last word (a word of its own without).
fn message_words(words: usize, trace: bool) -> usize {
    words + 1 + usize::from(trace)
}

/// The outbox region of partition `source` that holds messages for
/// partition `owner` (a partition has no region for itself).
fn region(source: usize, owner: usize) -> usize {
    owner - usize::from(owner > source)
}

/// One partition: its device, tables, counters and exchange buffers.
struct Partition {
    device: Device,
    /// The network's arrays, which `params` addresses (kept alive).
    _device_net: DeviceNet,
    buffers: Buffers,
    nodes: Option<NodeTable>,
    stats: CudaSlice<u64>,
    /// A region of `params.out_capacity` messages per other partition.
    outbox: LargeSlice<u32>,
    /// Messages in each region, then the flag that stops taking work.
    out_counts: CudaSlice<u64>,
    /// Room for a full region from every other partition.
    inbox: LargeSlice<u32>,
    launcher: Launcher,
    absorb: CudaFunction,
    /// The stream `absorb` runs on, beside the device's, so that a chunk
    /// is stored while the next one travels.
    store: Arc<CudaStream>,
    params: SearchParams,
    /// Bytes this partition allocated.
    bytes: u64,
}

impl Partition {
    /// Runs level `level` (or the rest of it) on the partition's device.
    fn expand(&mut self, level: u32) -> Result<(), GpuError> {
        let device = &self.device;
        device
            .stream()
            .memset_zeros(&mut self.out_counts)
            .map_err(GpuError::driver(EXCHANGING))?;
        self.params.first_level = level;
        let mut launch = device.stream().launch_builder(&self.launcher.function);
        launch.arg(&self.params);
        // SAFETY: the block matches the kernel's (checked at compile time),
        // every buffer it addresses lives as long as the partition and is
        // as large as the geometry and the exchange sizes say, and the grid
        // is resident.
        unsafe { launch.launch_cooperative(self.launcher.config) }
            .map_err(GpuError::driver("launching the search kernel"))?;
        Ok(())
    }

    /// Stores `messages` messages of the inbox from message `first` on, on
    /// the store stream once what `arrivals` has queued so far (the copies
    /// that bring them) is done. A block takes a batch of 32 messages a
    /// warp and ends, so that the copies of the next chunk, which wait for
    /// free room on the device, find it at once.
    fn absorb(
        &mut self,
        first: u64,
        messages: u64,
        words: usize,
        arrivals: &CudaStream,
    ) -> Result<(), GpuError> {
        self.store
            .join(arrivals)
            .map_err(GpuError::driver(STORING))?;
        // A plain address, which sets up no waits: the inbox's later chunks
        // arrive on `arrivals` meanwhile, and the round's end waits for
        // both streams.
        let inbox = self.device.address(&self.inbox) + 4 * first * words as u64;
        let mut launch = self.store.launch_builder(&self.absorb);
        launch.arg(&self.params);
        launch.arg(&inbox);
        launch.arg(&messages);
        let batch = u64::from(self.launcher.config.block_dim.0);
        let blocks = u32::try_from(messages.div_ceil(batch))
            .map_err(|_| GpuError::Invalid(format!("{messages} messages to store at once")))?;
        let config = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            ..self.launcher.config
        };
        // SAFETY: as for `expand`; the inbox holds `messages` messages
        // from `first` on, and no copy writes them until the round ends.
        unsafe { launch.launch(config) }.map_err(GpuError::driver(STORING))?;
        Ok(())
    }

    /// The reader of this partition's states.
    fn stored(&self, vector_words: usize) -> StoredStates<'_> {
        StoredStates {
            device: &self.device,
            table: &self.buffers.table,
            geometry: &self.buffers.geometry,
            nodes: self.nodes.as_ref(),
            vector_words,
        }
    }
}

/// The partitions this process drives: partitions `first..first +
/// parts.len()` of the search (all of them unless the search is split over
/// several processes).
struct Local {
    first: usize,
    parts: Vec<Partition>,
}

impl Local {
    /// Partition `partition`, if this process drives it.
    fn get(&self, partition: usize) -> Option<&Partition> {
        self.parts.get(partition.checked_sub(self.first)?)
    }

    /// Partition `partition`, if this process drives it.
    fn get_mut(&mut self, partition: usize) -> Option<&mut Partition> {
        self.parts.get_mut(partition.checked_sub(self.first)?)
    }

    /// The partitions this process drives.
    fn indices(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.parts.len()
    }
}

/// Moves each partition's messages to the partitions that own them, and
/// tells every process what the partitions of the others counted.
trait Exchange {
    /// How, in reports.
    fn name(&self) -> &'static str;

    /// Queues, for every piece, the copy of its messages of `words` words
    /// from the region for its owner in its source's outbox into the
    /// owner's inbox, where the source's messages follow those of the
    /// partitions below it (`counts[s][d]`: all messages from `s` to `d`
    /// this round): the sends of the pieces from partitions of `parts`, the
    /// receipts of those to them. The copies into a partition's inbox are
    /// queued on [`Exchange::arrivals`] of that partition.
    fn exchange(
        &mut self,
        parts: &mut Local,
        pieces: &[Piece],
        counts: &[Vec<u64>],
        words: usize,
    ) -> Result<(), GpuError>;

    /// The stream on which messages for partition `owner` (one of
    /// `parts`) arrive.
    fn arrivals(&self, parts: &Local, owner: usize) -> Arc<CudaStream>;

    /// Every partition's row of numbers, given `rows`, those of the
    /// partitions of `parts` in order; the rows are equally long.
    fn gather(&self, parts: &Local, rows: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, GpuError>;

    /// The `length` numbers that partition `root` shares, in every
    /// process; `mine` holds them where `root` is one of `parts`.
    fn share(
        &self,
        parts: &Local,
        root: usize,
        mine: Option<Vec<u64>>,
        length: usize,
    ) -> Result<Vec<u64>, GpuError>;
}

/// [`Exchange::share`] where every partition is driven here: `mine`.
fn shared_here(root: usize, mine: Option<Vec<u64>>) -> Result<Vec<u64>, GpuError> {
    mine.ok_or_else(|| GpuError::Inconsistent {
        during: EXCHANGING,
        detail: format!("partition {root} is not driven by this process"),
    })
}

/// Messages moved at a time between two partitions: the owner stores a
/// chunk while the next one travels. Chunks of 2^20 were slower on two
/// H200s: AutoFlight-PT-06a's search took 2.43 s against 2.34 s, and
/// Parking-PT-208's 8.41 s against 8.27 s
/// (`benches/results/2026-11-29l-h200x2-nccl/`, call 4).
const CHUNK_MESSAGES: u64 = 1 << 22;

/// Some of the messages that `source` sends `owner` in a round: `messages`
/// of them, from message `first` of the region on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    source: usize,
    owner: usize,
    first: u64,
    messages: u64,
}

impl Piece {
    /// Where the piece starts in its owner's inbox (in messages).
    fn inbox_at(&self, counts: &[Vec<u64>]) -> u64 {
        inbox_offset(counts, self.source, self.owner) + self.first
    }
}

/// A round's messages (`counts[s][d]` from `s` to `d`) in chunks of at
/// most [`CHUNK_MESSAGES`] a pair: chunk `c` holds the `c`-th share of
/// every pair's messages.
fn chunks(counts: &[Vec<u64>]) -> Vec<Vec<Piece>> {
    let largest = counts.iter().flatten().copied().max().unwrap_or(0);
    let chunks = largest.div_ceil(CHUNK_MESSAGES);
    (0..chunks)
        .map(|chunk| {
            let mut pieces = Vec::new();
            for (source, row) in counts.iter().enumerate() {
                for (owner, &sent) in row.iter().enumerate() {
                    let share = sent.div_ceil(chunks);
                    let first = chunk * share;
                    if owner != source && first < sent {
                        let messages = share.min(sent - first);
                        pieces.push(Piece {
                            source,
                            owner,
                            first,
                            messages,
                        });
                    }
                }
            }
            pieces
        })
        .collect()
}

/// Where `source`'s messages start in `owner`'s inbox (in messages).
fn inbox_offset(counts: &[Vec<u64>], source: usize, owner: usize) -> u64 {
    (0..source)
        .filter(|&s| s != owner)
        .map(|s| counts[s][owner])
        .sum()
}

/// Partitions of one device: device-to-device copies on its stream.
struct DeviceCopies;

impl Exchange for DeviceCopies {
    fn name(&self) -> &'static str {
        "device copies"
    }

    fn arrivals(&self, parts: &Local, _owner: usize) -> Arc<CudaStream> {
        parts.parts[0].device.stream().clone()
    }

    fn exchange(
        &mut self,
        parts: &mut Local,
        pieces: &[Piece],
        counts: &[Vec<u64>],
        words: usize,
    ) -> Result<(), GpuError> {
        let parts = &mut parts.parts;
        let bytes = 4 * words as u64;
        let outboxes: Vec<u64> = parts
            .iter()
            .map(|part| part.device.address(&part.outbox))
            .collect();
        let inboxes: Vec<u64> = parts
            .iter_mut()
            .map(|part| part.device.address_mut(&mut part.inbox))
            .collect();
        let capacities: Vec<u64> = parts.iter().map(|part| part.params.out_capacity).collect();
        let stream = parts[0].device.stream().cu_stream();
        for piece in pieces {
            let (source, owner) = (piece.source, piece.owner);
            let from = outboxes[source]
                + (region(source, owner) as u64 * capacities[source] + piece.first) * bytes;
            let to = inboxes[owner] + piece.inbox_at(counts) * bytes;
            // SAFETY: both ranges lie within their buffers (counts are at
            // most a region's capacity, and the inbox holds a region from
            // every other partition); the one stream orders the copy after
            // the kernels that wrote the outbox, and the store stream
            // waits for it before reading the inbox.
            unsafe {
                cudarc::driver::result::memcpy_dtod_async(
                    to,
                    from,
                    (piece.messages * bytes) as usize,
                    stream,
                )
            }
            .map_err(GpuError::driver(EXCHANGING))?;
        }
        Ok(())
    }

    fn gather(&self, _parts: &Local, rows: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, GpuError> {
        Ok(rows)
    }

    fn share(
        &self,
        _parts: &Local,
        root: usize,
        mine: Option<Vec<u64>>,
        _length: usize,
    ) -> Result<Vec<u64>, GpuError> {
        shared_here(root, mine)
    }
}

/// One partition per GPU: grouped NCCL sends and receives, on a stream of
/// the highest priority on each GPU, so that the next chunk's copies get
/// room on the device before the blocks storing the last one. (Measured
/// only together with the chunking, not apart from it.) One process holds
/// the communicators of all GPUs, or each process of a job (`--ranks`) the
/// one of its GPU.
struct Nccl {
    /// The communicators of the ranks driven here, from rank `first` on.
    comms: Vec<Comm>,
    streams: Vec<Arc<CudaStream>>,
    first: usize,
    /// Ranks in all.
    ranks: usize,
}

/// Whether the NCCL library (`libnccl.so`) can be loaded: what a search
/// over several GPUs needs.
pub fn nccl_available() -> bool {
    // SAFETY: only tries to load the shared library.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// Fails unless NCCL can be loaded.
fn require_nccl() -> Result<(), GpuError> {
    if nccl_available() {
        Ok(())
    } else {
        Err(GpuError::Unavailable(
            "the NCCL library (libnccl.so) cannot be loaded; put the directory of \
             libnccl.so (a link to libnccl.so.2 will do) on LD_LIBRARY_PATH"
                .into(),
        ))
    }
}

/// A stream of the highest priority on `device`, for NCCL.
fn nccl_stream(device: &Device) -> Result<Arc<CudaStream>, GpuError> {
    let (_, greatest) = cudarc::driver::result::stream::get_priority_range()
        .map_err(GpuError::driver("creating a stream"))?;
    device
        .context()
        .new_stream_with_priority(greatest)
        .map_err(GpuError::driver("creating a stream"))
}

impl Nccl {
    /// A communicator over `devices`' streams, rank `i` on device `i`.
    fn new(devices: &[Device]) -> Result<Nccl, GpuError> {
        require_nccl()?;
        let streams = devices
            .iter()
            .map(nccl_stream)
            .collect::<Result<Vec<_>, _>>()?;
        let comms = Comm::from_devices(streams.clone()).map_err(nccl_error)?;
        let nccl = Nccl {
            comms,
            streams,
            first: 0,
            ranks: devices.len(),
        };
        nccl.connect(devices)?;
        Ok(nccl)
    }

    /// Rank `job.rank` of a job's communicator, on `job.device`, found
    /// through the job's rendezvous file (`model`: the fingerprint that
    /// the ranks compare).
    fn join(job: &RankJob, model: u64) -> Result<Nccl, GpuError> {
        require_nccl()?;
        let stream = nccl_stream(&job.device)?;
        let id = if job.rank == 0 {
            let id = Id::new().map_err(nccl_error)?;
            let invitation = rendezvous::Invitation {
                ranks: job.ranks,
                model,
                id: id.internal().map(|byte| byte as u8),
            };
            rendezvous::publish(&job.rendezvous, &invitation)?;
            id
        } else {
            let invitation =
                rendezvous::await_invitation(&job.rendezvous, job.ranks, model, job.patience)?;
            Id::uninit(invitation.id.map(|byte| byte as c_char))
        };
        job.device
            .context()
            .bind_to_thread()
            .map_err(GpuError::driver("joining the other ranks"))?;
        // Returns once every rank has joined, so that the file has served.
        let joined = Comm::from_rank(stream.clone(), job.rank, job.ranks, id).map_err(nccl_error);
        if job.rank == 0 {
            // The job goes on without it: the next job that is given this
            // path says that it exists.
            if let Err(error) = rendezvous::withdraw(&job.rendezvous) {
                tracing::warn!("{error}");
            }
        }
        let nccl = Nccl {
            comms: vec![joined?],
            streams: vec![stream],
            first: job.rank,
            ranks: job.ranks,
        };
        nccl.connect(std::slice::from_ref(&job.device))?;
        Ok(nccl)
    }

    /// Whether every rank is driven here.
    fn holds_all(&self) -> bool {
        self.comms.len() == self.ranks
    }

    /// Sends a word between every pair of GPUs and waits for it: NCCL
    /// connects a pair at its first send and receive, which took 54 ms on
    /// two H200s (the first level's exchange,
    /// `benches/results/2026-11-29l-h200x2-nccl/autoflight-vv.txt`), so
    /// that it counts as set-up, not search. `devices` are those of the
    /// ranks driven here.
    fn connect(&self, devices: &[Device]) -> Result<(), GpuError> {
        let ranks = self.ranks;
        // Word `r` of rank `r`'s buffer is sent; word `p` receives peer `p`'s.
        let mut words = devices
            .iter()
            .map(|device| device.alloc_zeroed::<u32>(ranks))
            .collect::<Result<Vec<_>, _>>()?;
        cudarc::nccl::result::group_start().map_err(nccl_error)?;
        let mut queued = Ok(());
        for (here, buffer) in words.iter_mut().enumerate() {
            let rank = self.first + here;
            for peer in (0..ranks).filter(|&peer| peer != rank) {
                queued =
                    queued.and(self.comms[here].send(&buffer.slice(rank..rank + 1), peer as i32));
                queued = queued.and(
                    self.comms[here]
                        .recv(&mut buffer.slice_mut(peer..peer + 1), peer as i32)
                        .map(drop),
                );
            }
        }
        // The group ends whatever failed inside it.
        let ended = cudarc::nccl::result::group_end();
        queued.map_err(nccl_error)?;
        ended.map_err(nccl_error)?;
        for stream in &self.streams {
            stream.synchronize().map_err(GpuError::driver(EXCHANGING))?;
        }
        Ok(())
    }
}

/// An NCCL failure as a GPU failure.
fn nccl_error(error: cudarc::nccl::result::NcclError) -> GpuError {
    GpuError::Driver {
        during: EXCHANGING,
        detail: format!("NCCL: {error:?}"),
    }
}

impl Exchange for Nccl {
    fn name(&self) -> &'static str {
        if self.holds_all() {
            "NCCL"
        } else {
            "NCCL between processes"
        }
    }

    fn arrivals(&self, _parts: &Local, owner: usize) -> Arc<CudaStream> {
        self.streams[owner - self.first].clone()
    }

    fn exchange(
        &mut self,
        parts: &mut Local,
        pieces: &[Piece],
        counts: &[Vec<u64>],
        words: usize,
    ) -> Result<(), GpuError> {
        let words = words as u64;
        // The copies follow the kernels that filled the outboxes.
        for (stream, part) in self.streams.iter().zip(parts.parts.iter()) {
            stream
                .join(part.device.stream())
                .map_err(GpuError::driver(EXCHANGING))?;
        }
        cudarc::nccl::result::group_start().map_err(nccl_error)?;
        let mut queued = Ok(());
        for piece in pieces {
            let (source, owner) = (piece.source, piece.owner);
            let length = piece.messages * words;
            if let Some(sender) = parts.get(source) {
                let at = (region(source, owner) as u64 * sender.params.out_capacity + piece.first)
                    * words;
                queued = queued.and(self.comms[source - self.first].send(
                    &sender.outbox.slice(at as usize..(at + length) as usize),
                    owner as i32,
                ));
            }
            if let Some(receiver) = parts.get_mut(owner) {
                let at = piece.inbox_at(counts) * words;
                queued = queued.and(
                    self.comms[owner - self.first]
                        .recv(
                            &mut receiver
                                .inbox
                                .slice_mut(at as usize..(at + length) as usize),
                            source as i32,
                        )
                        .map(drop),
                );
            }
        }
        // The group ends whatever failed inside it.
        let ended = cudarc::nccl::result::group_end();
        queued.map_err(nccl_error)?;
        ended.map_err(nccl_error)?;
        Ok(())
    }

    fn gather(&self, parts: &Local, rows: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, GpuError> {
        if self.holds_all() {
            return Ok(rows);
        }
        // One rank here: its row, gathered from every rank by NCCL.
        let (stream, mine) = (&self.streams[0], &rows[0]);
        let sent = stream
            .clone_htod(mine)
            .map_err(GpuError::driver(EXCHANGING))?;
        let mut all = stream
            .alloc_zeros::<u64>(mine.len() * self.ranks)
            .map_err(GpuError::driver(EXCHANGING))?;
        self.comms[0]
            .all_gather(&sent, &mut all)
            .map_err(nccl_error)?;
        let all = stream
            .clone_dtoh(&all)
            .map_err(GpuError::driver(EXCHANGING))?;
        debug_assert_eq!(parts.parts.len(), 1);
        Ok(all.chunks(mine.len().max(1)).map(<[u64]>::to_vec).collect())
    }

    fn share(
        &self,
        _parts: &Local,
        root: usize,
        mine: Option<Vec<u64>>,
        length: usize,
    ) -> Result<Vec<u64>, GpuError> {
        if self.holds_all() {
            return shared_here(root, mine);
        }
        let stream = &self.streams[0];
        let mut numbers = match &mine {
            Some(mine) => stream.clone_htod(mine),
            None => stream.alloc_zeros::<u64>(length),
        }
        .map_err(GpuError::driver(EXCHANGING))?;
        self.comms[0]
            .broadcast_in_place(&mut numbers, root as i32)
            .map_err(nccl_error)?;
        stream
            .clone_dtoh(&numbers)
            .map_err(GpuError::driver(EXCHANGING))
    }
}

/// Explores `net` split into `partitions` partitions: all on `devices[0]`
/// when `devices` has one device (successors move by device copies), or
/// one on each device of `devices` (through NCCL). The counts, verdicts
/// and trace lengths are those of [`super::explore`]; `--memory`
/// (`search.memory_bytes`) is per device.
pub fn explore_partitioned(
    devices: &[Device],
    partitions: usize,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<GpuExploration, GpuError> {
    if devices.len() != 1 && devices.len() != partitions {
        return Err(GpuError::Invalid(format!(
            "{partitions} partitions need one device or {partitions}, not {}",
            devices.len()
        )));
    }
    split_search(
        Placement::Here {
            devices,
            partitions,
        },
        net,
        search,
        options,
    )
}

/// One process of a search split over several processes (a job of
/// `ranks` ranks, on one host or several): rank `rank` drives partition
/// `rank` on `device`. Every rank is started with the same model and
/// options; they find each other through the file `rendezvous` (see
/// `rendezvous.rs`) and exchange successors, counts and trace states
/// through NCCL.
#[derive(Debug, Clone)]
pub struct RankJob {
    /// The GPU of this rank.
    pub device: Device,
    /// This process's rank, below `ranks`.
    pub rank: usize,
    /// Processes in the job, one partition each.
    pub ranks: usize,
    /// A path that every rank can read and rank 0 can create (on a shared
    /// file system where the ranks run on several hosts), which does not
    /// exist when the job starts.
    pub rendezvous: PathBuf,
    /// How long a rank other than 0 waits for rank 0's file.
    pub patience: Duration,
}

/// Runs rank `job.rank`'s share of a search split over `job.ranks`
/// processes ([`RankJob`]). Every rank returns the whole search's counts,
/// verdict and trace, those of [`super::explore`]; `--memory`
/// (`search.memory_bytes`) is this rank's. A rank that fails leaves the
/// others waiting in NCCL: the launcher (`mpirun`, `srun`) ends them.
pub fn explore_rank(
    job: &RankJob,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<GpuExploration, GpuError> {
    if job.rank >= job.ranks {
        return Err(GpuError::Invalid(format!(
            "rank {} of a job of {} ranks: ranks are numbered from 0",
            job.rank, job.ranks
        )));
    }
    split_search(Placement::Rank(job), net, search, options)
}

/// Where the partitions of a split search run.
enum Placement<'a> {
    /// Every partition in this process.
    Here {
        devices: &'a [Device],
        partitions: usize,
    },
    /// One partition in each process of a job.
    Rank(&'a RankJob),
}

impl Placement<'_> {
    /// Partitions in all.
    fn partitions(&self) -> usize {
        match self {
            Placement::Here { partitions, .. } => *partitions,
            Placement::Rank(job) => job.ranks,
        }
    }

    /// The devices of this process.
    fn devices(&self) -> &[Device] {
        match self {
            Placement::Here { devices, .. } => devices,
            Placement::Rank(job) => std::slice::from_ref(&job.device),
        }
    }

    /// The first partition this process drives, and how many.
    fn local(&self) -> (usize, usize) {
        match self {
            Placement::Here { partitions, .. } => (0, *partitions),
            Placement::Rank(job) => (job.rank, 1),
        }
    }

    /// GPUs the search runs on, all processes together.
    fn gpus(&self) -> usize {
        match self {
            Placement::Here { devices, .. } => devices.len(),
            Placement::Rank(job) => job.ranks,
        }
    }
}

/// A fingerprint of the search every rank of a job must run alike: the
/// network's arrays and the options that decide when levels stop.
fn job_fingerprint(net: &EncodedNetwork, search: &SearchOptions) -> u64 {
    let max_states = search.max_states.unwrap_or(u64::MAX);
    let mut words = vec![
        net.words() as u32,
        u32::from(search.no_trace),
        u32::from(search.check_deadlock),
        u32::from(search.keep_going),
        max_states as u32,
        (max_states >> 32) as u32,
    ];
    for array in [
        &net.proc_offsets,
        &net.state_offsets,
        &net.transitions,
        &net.rule_participant_offsets,
        &net.rule_participants,
        &net.rule_actions,
        &net.initial,
    ] {
        words.push(array.len() as u32);
        words.extend_from_slice(array);
    }
    hash_words(&words)
}

/// The search of [`explore_partitioned`] and [`explore_rank`].
fn split_search(
    placement: Placement,
    net: &EncodedNetwork,
    search: &SearchOptions,
    options: &GpuOptions,
) -> Result<GpuExploration, GpuError> {
    let partitions = placement.partitions();
    if !(2..=MAX_PARTITIONS).contains(&partitions) {
        return Err(GpuError::Invalid(format!(
            "a partitioned search takes 2 to {MAX_PARTITIONS} partitions, not {partitions}"
        )));
    }
    if !options.work_claiming {
        return Err(GpuError::Invalid(
            "a partitioned search needs work claiming (a level that stops to exchange \
             goes on where its cursor stands)"
                .into(),
        ));
    }
    let devices = placement.devices();
    let started = Instant::now();
    if let Some(exploration) =
        outcome::initial_error(net, search, super::engine_name(&devices[0]), started)
    {
        return Ok(GpuExploration::without_search(exploration));
    }
    let tree = match search.storage {
        Storage::Tree => true,
        Storage::Plain => false,
        Storage::Auto => net.words() >= super::AUTO_TREE_WORDS,
    };
    let options = &super::for_storage(options, tree, true);
    let mut exchange: Box<dyn Exchange> = match placement {
        Placement::Here { devices, .. } if devices.len() == 1 => Box::new(DeviceCopies),
        Placement::Here { devices, .. } => Box::new(Nccl::new(devices)?),
        Placement::Rank(job) => Box::new(Nccl::join(job, job_fingerprint(net, search))?),
    };
    // Each device's memory, split among its partitions before any takes
    // its share.
    let (first, here) = placement.local();
    let share = (here / devices.len()) as u64;
    let budgets = devices
        .iter()
        .map(|device| Ok(memory_budget(device, search)? / share))
        .collect::<Result<Vec<u64>, GpuError>>()?;
    let parts = (first..first + here)
        .map(|p| {
            let at = p % devices.len();
            let (device, budget) = (&devices[at], budgets[at]);
            Partition::allocate(device, p, partitions, budget, net, search, options, tree)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut local = Local { first, parts };
    let owner = partition_of(hash_words(&net.initial), partitions);
    let initial_nodes = match local.get_mut(owner) {
        Some(part) => {
            let (device, kernel) = (part.device.clone(), part.launcher.kernel);
            place_initial(
                &device,
                &kernel,
                &mut part.buffers,
                &part.params,
                &net.initial,
            )?
            .1
        }
        None => 0,
    };
    for (p, part) in local.indices().zip(local.parts.iter_mut()) {
        let mut stats = [0u64; stat::WORDS];
        stats[stat::FOUND] = u64::MAX;
        stats[stat::FOUND_FATAL] = u64::MAX;
        if p == owner {
            stats[stat::STATES] = 1;
            stats[stat::LEN] = 1;
            stats[stat::NODES] = initial_nodes;
        }
        part.device.write(&stats, &mut part.stats)?;
        part.device.synchronize()?;
        part.device.note_memory_use()?;
    }
    let setup = started.elapsed();
    let search_start = Instant::now();
    let words = message_words(net.words(), !search.no_trace);
    let max_states = search.max_states.unwrap_or(u64::MAX);
    let mut traffic = Partitioning {
        devices: placement.gpus(),
        exchange: exchange.name(),
        states: Vec::new(),
        messages: 0,
        bytes: 0,
        expanding: Duration::ZERO,
        moving: Duration::ZERO,
        storing: Duration::ZERO,
        rounds: 0,
        outbox_messages: local.parts[0].params.out_capacity,
        outbox_full: false,
    };
    let mut launches = 0u64;
    let mut level = 0u32;
    let mut depth = 0u32;
    let mut states_before = 1u64;
    let (per_partition, finished, interrupted) = loop {
        // Level `level`, in as many rounds as the outboxes need.
        let per_partition = loop {
            let expand_start = Instant::now();
            for part in local.parts.iter_mut() {
                part.expand(level)?;
                launches += 1;
            }
            // Each partition's messages for every region (at most a
            // region's capacity), then its flag that the level goes on.
            let sent = local
                .parts
                .iter()
                .map(|part| {
                    let mut sent = part
                        .device
                        .download(&part.out_counts)
                        .map_err(|e| running(e, "running the search kernel"))?;
                    for count in &mut sent[..partitions - 1] {
                        *count = (*count).min(part.params.out_capacity);
                    }
                    Ok(sent)
                })
                .collect::<Result<Vec<_>, GpuError>>()?;
            let sent = exchange.gather(&local, sent)?;
            let yielded = sent.iter().any(|row| row[partitions - 1] != 0);
            let counts: Vec<Vec<u64>> = (0..partitions)
                .map(|source| {
                    (0..partitions)
                        .map(|owner| {
                            if owner == source {
                                0
                            } else {
                                sent[source][region(source, owner)]
                            }
                        })
                        .collect()
                })
                .collect();
            let exchange_start = Instant::now();
            // Chunk by chunk: each owner stores a chunk (on its store
            // stream) while the next one travels (on `arrivals`).
            for pieces in chunks(&counts) {
                exchange.exchange(&mut local, &pieces, &counts, words)?;
                let driven = local.indices();
                for piece in pieces.iter().filter(|p| driven.contains(&p.owner)) {
                    let at = piece.inbox_at(&counts);
                    let arrivals = exchange.arrivals(&local, piece.owner);
                    if let Some(part) = local.get_mut(piece.owner) {
                        part.absorb(at, piece.messages, words, &arrivals)?;
                        launches += 1;
                    }
                }
            }
            for owner in local.indices() {
                exchange
                    .arrivals(&local, owner)
                    .synchronize()
                    .map_err(GpuError::driver(EXCHANGING))?;
            }
            let store_start = Instant::now();
            for part in &local.parts {
                part.store
                    .synchronize()
                    .map_err(GpuError::driver(STORING))?;
            }
            // Each partition's counters, then (at [`INTERRUPTED`]) whether
            // its process was told to stop (--timeout, Ctrl-C), so that all
            // stop alike.
            let interrupted = u64::from(search.stop.is_set());
            let rows = local
                .parts
                .iter()
                .map(|part| {
                    let mut row = part
                        .device
                        .download(&part.stats)
                        .map_err(|e| running(e, STORING))?;
                    row.push(interrupted);
                    Ok(row)
                })
                .collect::<Result<Vec<_>, GpuError>>()?;
            let per_partition = exchange.gather(&local, rows)?;
            let messages: u64 = counts.iter().flatten().sum();
            let (expanded, copied, stored) = (
                exchange_start - expand_start,
                store_start - exchange_start,
                store_start.elapsed(),
            );
            tracing::debug!(
                "level {level}: expanded in {:.3} ms, {messages} successors moved in {:.3} ms \
                 (stored as they arrived), the last stored {:.3} ms later{}",
                expanded.as_secs_f64() * 1e3,
                copied.as_secs_f64() * 1e3,
                stored.as_secs_f64() * 1e3,
                if yielded { " (the level goes on)" } else { "" }
            );
            traffic.messages += messages;
            traffic.bytes += messages * 4 * words as u64;
            traffic.expanding += expanded;
            traffic.moving += copied;
            traffic.storing += stored;
            traffic.rounds += 1;
            let stopped = per_partition.iter().any(|stats| stats[stat::STOP] != 0);
            if !yielded || stopped {
                break per_partition;
            }
        };
        let merged = merge(&per_partition);
        let next = (level as usize + 1) % 3;
        let frontier: u64 = per_partition
            .iter()
            .map(|stats| stats[stat::LEN + next])
            .sum();
        // The depth: the last level that stored states.
        if merged[stat::STATES] > states_before {
            depth = level + 1;
        }
        states_before = merged[stat::STATES];
        level += 1;
        if let Some(progress) = &search.progress {
            progress(&Progress {
                states: merged[stat::STATES],
                transitions: merged[stat::TRANSITIONS],
                depth,
                elapsed: search_start.elapsed(),
            });
        }
        let stopped = per_partition.iter().any(|stats| stats[stat::STOP] != 0);
        if stopped || frontier == 0 || merged[stat::STATES] >= max_states {
            break (per_partition, frontier == 0, false);
        }
        if per_partition.iter().any(|stats| stats[INTERRUPTED] != 0) {
            break (per_partition, false, true);
        }
    };
    let mut counters = merge(&per_partition);
    counters[stat::DEPTH] = u64::from(depth);
    // Each partition's slots, bytes allocated, table bytes and node
    // capacity.
    let sizes = exchange.gather(
        &local,
        local
            .parts
            .iter()
            .map(|part| {
                vec![
                    part.buffers.geometry.slots(),
                    part.bytes,
                    part.buffers.geometry.table_bytes(),
                    part.nodes.as_ref().map_or(0, NodeTable::capacity),
                ]
            })
            .collect(),
    )?;
    let total = |column: usize| -> u64 { sizes.iter().map(|row| row[column]).sum() };
    let (slots, bytes, table_bytes, node_capacity) = (total(0), total(1), total(2), total(3));
    let reader = Partitions {
        local: &local,
        exchange: exchange.as_ref(),
        vector_words: net.words(),
        partitions,
        capacity: slots,
    };
    let first = first_finding(&reader, &per_partition, net, !search.no_trace)?;
    let stopped: Vec<u64> = per_partition
        .iter()
        .map(|stats| stats[stat::STOP])
        .collect();
    let ending = ending_of(net, search, first.as_ref(), &stopped, finished, interrupted);
    traffic.states = per_partition
        .iter()
        .map(|stats| stats[stat::STATES])
        .collect();
    traffic.outbox_full = stopped.contains(&stop::EXCHANGE_FULL);
    let geometry = local.parts[0].buffers.geometry;
    let (exploration, redundancy) = exploration_of(
        &counters,
        first,
        ending,
        tree,
        &geometry,
        Measured {
            elapsed: search_start.elapsed(),
            memory_bytes: bytes,
            engine: format!(
                "{}; {partitions} partitions on {} GPU(s), exchanging by {}",
                local.parts[0].launcher.engine,
                placement.gpus(),
                exchange.name()
            ),
        },
    );
    let states = exploration.states;
    Ok(GpuExploration {
        exploration,
        table_bytes,
        budget: bytes,
        slot_bits: if geometry.wide { 64 } else { 32 },
        capped_by_numbers: geometry.capped_by_numbers,
        growths: 0,
        staged_growths: 0,
        rerun_levels: 0,
        growth_time: Duration::ZERO,
        table_fill: states as f64 / slots as f64,
        capacity: slots,
        capacity_without_traces: slots,
        nodes: counters[stat::NODES],
        node_capacity,
        node_generations: usize::from(tree),
        nodes_full: stopped.contains(&stop::NODES_FULL),
        compact_roots: geometry.compact,
        plain_attempt: None,
        redundancy,
        launches,
        setup,
        partitioning: Some(Box::new(traffic)),
    })
}

impl Partition {
    /// Partition `partition` of `partitions` on `device`, within `budget`
    /// bytes: its tables, exchange buffers and kernels.
    #[allow(clippy::too_many_arguments)]
    fn allocate(
        device: &Device,
        partition: usize,
        partitions: usize,
        budget: u64,
        net: &EncodedNetwork,
        search: &SearchOptions,
        options: &GpuOptions,
        tree: bool,
    ) -> Result<Partition, GpuError> {
        let trace = !search.no_trace;
        let words = net.words();
        let message_bytes = 4 * message_words(words, trace) as u64;
        let regions = (partitions - 1) as u64;
        let capacity = options.outbox_messages.unwrap_or_else(|| {
            (budget / EXCHANGE_SHARE / (2 * regions * message_bytes))
                .clamp(MIN_REGION_MESSAGES, MAX_REGION_MESSAGES)
        });
        if capacity < 2 {
            return Err(GpuError::Invalid(format!(
                "outbox regions of {capacity} messages cannot work"
            )));
        }
        let exchange_bytes = 2 * regions * capacity * message_bytes;
        // The tables of a partition do not grow: its node table takes its
        // whole share from the start, in one generation.
        let nodes = if tree {
            Some(NodeTable::allocate(
                device,
                budget / NODE_SHARE,
                budget / NODE_SHARE,
            )?)
        } else {
            None
        };
        let node_bytes = nodes.as_ref().map_or(0, NodeTable::bytes);
        let table_budget = budget
            .checked_sub(exchange_bytes + node_bytes)
            .ok_or_else(|| {
                GpuError::Invalid(format!(
                    "{budget} bytes of GPU memory a partition cannot hold its exchange buffers \
                     ({exchange_bytes} bytes): give more --memory"
                ))
            })?;
        // Links across partitions carry the partition in their high bits.
        let numbers = if trace {
            SlotNumbers::Wide
        } else {
            options.slot_numbers
        };
        let key_words = if tree { 2 } else { words };
        // Compact roots keep 40-bit links, which leave no room for the
        // partition that links name in their top bits: with traces, root
        // pairs.
        let compact = tree && options.compact_roots && !trace;
        let largest = Geometry::largest(
            key_words,
            trace,
            options.frontier,
            table_budget,
            numbers,
            compact,
        )?;
        let device_net = DeviceNet::upload(device, net, options.readonly_path, options.owners)?;
        let launcher = Launcher::new(
            device,
            net,
            &device_net,
            options,
            &largest,
            trace,
            tree,
            true,
        )?;
        let absorb = device.function(&launcher.kernel.build(), "absorb")?;
        let store = device
            .stream()
            .fork()
            .map_err(GpuError::driver("creating a stream"))?;
        let mut buffers = Buffers::allocate(device, largest)?;
        let message_words = (regions * capacity * message_bytes / 4) as usize;
        // SAFETY: only the messages the kernels counted are read (copied
        // and absorbed).
        let mut outbox = unsafe { device.alloc_large::<u32>(message_words) }?;
        // SAFETY: as for the outbox.
        let inbox = unsafe { device.alloc_large::<u32>(message_words) }?;
        let mut out_counts = device.alloc_zeroed::<u64>(partitions)?;
        let mut stats = device.alloc_zeroed::<u64>(stat::WORDS)?;
        let geometry = buffers.geometry;
        let mut params = SearchParams {
            net: device_net.params(device),
            table: device.address_mut(&mut buffers.table),
            buckets: geometry.buckets,
            queue0: device.address_mut(&mut buffers.queues[0]),
            queue1: device.address_mut(&mut buffers.queues[1]),
            queue2: match buffers.queues.get_mut(2) {
                Some(bitmap) => device.address_mut(bitmap),
                None => 0,
            },
            queue_capacity: geometry.queue_capacity(),
            stats: device.address_mut(&mut stats),
            max_states: u64::MAX,
            grow_at: u64::MAX,
            node_grow_at: u64::MAX,
            levels: 1,
            check_deadlock: u32::from(search.check_deadlock),
            keep_going: u32::from(search.keep_going),
            outbox: device.address_mut(&mut outbox),
            out_counts: device.address_mut(&mut out_counts),
            out_capacity: capacity,
            out_soft: capacity / 2,
            partition: partition as u32,
            partitions: partitions as u32,
            ..SearchParams::default()
        };
        if let Some(nodes) = &nodes {
            (params.nodes, params.node_generations) = nodes.addresses(device);
        }
        Ok(Partition {
            device: device.clone(),
            _device_net: device_net,
            bytes: geometry.bytes() + node_bytes + exchange_bytes,
            buffers,
            nodes,
            stats,
            outbox,
            out_counts,
            inbox,
            launcher,
            absorb,
            store,
            params,
        })
    }
}

/// A failure found when reading back after `during`.
fn running(error: GpuError, during: &'static str) -> GpuError {
    match error {
        GpuError::Driver { detail, .. } => GpuError::Driver { during, detail },
        other => other,
    }
}

/// The partitions' counters as one search's: sums of what they count.
fn merge(per_partition: &[Vec<u64>]) -> Vec<u64> {
    let mut merged = vec![0u64; stat::WORDS];
    for stats in per_partition {
        for counter in [
            stat::STATES,
            stat::TRANSITIONS,
            stat::DEADLOCKS,
            stat::ERRORS,
            stat::MONITOR_BLOCKED,
            stat::EXPANDED,
            stat::NODES,
        ] {
            merged[counter] += stats[counter];
        }
    }
    merged
}

/// The finding to report: the first partition's that ends even a `--all`
/// search, else the first partition's first finding; its trace crosses
/// partitions.
fn first_finding(
    reader: &Partitions,
    per_partition: &[Vec<u64>],
    net: &EncodedNetwork,
    trace: bool,
) -> Result<Option<Finding>, GpuError> {
    let pick = |counter: usize| {
        per_partition
            .iter()
            .enumerate()
            .find(|(_, stats)| stats[counter] != u64::MAX)
            .map(|(p, stats)| (p, stats[counter]))
    };
    let Some((partition, found)) = pick(stat::FOUND_FATAL).or_else(|| pick(stat::FOUND)) else {
        return Ok(None);
    };
    let shift = super::search::FOUND_KIND_SHIFT;
    let slot = found & ((1 << shift) - 1);
    let link = ((partition as u64) << PARTITION_SHIFT) | slot;
    finding(reader, net, link, found >> shift == found::DEADLOCK, trace).map(Some)
}

/// Reads states across partitions by links that name their partition:
/// the process that drives a link's partition reads it and shares it with
/// the others, which all read the same links in the same order.
struct Partitions<'a> {
    local: &'a Local,
    exchange: &'a dyn Exchange,
    vector_words: usize,
    /// Partitions of all processes.
    partitions: usize,
    /// Slots of all partitions.
    capacity: u64,
}

/// The column of a partition's gathered row, after its counters, that
/// says whether its process was told to stop.
const INTERRUPTED: usize = stat::WORDS;

/// A shared state's first number where it has no predecessor.
const NO_PREDECESSOR: u64 = u64::MAX;

impl StateReader for Partitions<'_> {
    fn read(&self, link: u64, trace: bool) -> Result<(Vec<u32>, Option<u64>), GpuError> {
        let partition = (link >> PARTITION_SHIFT) as usize;
        let slot = link & ((1 << PARTITION_SHIFT) - 1);
        // Every process sees the same links: all stop here alike, rather
        // than wait for a partition that no process drives.
        if partition >= self.partitions {
            return Err(GpuError::Inconsistent {
                during: "rebuilding a trace",
                detail: format!("a link names partition {partition} of {}", self.partitions),
            });
        }
        let mine = match self.local.get(partition) {
            Some(part) => {
                let (vector, predecessor) = part.stored(self.vector_words).read(slot, trace)?;
                let mut numbers = vec![predecessor.unwrap_or(NO_PREDECESSOR)];
                numbers.extend(vector.iter().map(|&word| u64::from(word)));
                Some(numbers)
            }
            None => None,
        };
        let inconsistent = |detail: String| GpuError::Inconsistent {
            during: "rebuilding a trace",
            detail,
        };
        let numbers = self
            .exchange
            .share(self.local, partition, mine, 1 + self.vector_words)?;
        let predecessor = Some(numbers[0]).filter(|&link| link != NO_PREDECESSOR);
        let vector = numbers[1..]
            .iter()
            .map(|&word| u32::try_from(word))
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|_| inconsistent("a shared vector word exceeds 32 bits".into()))?;
        Ok((vector, predecessor))
    }

    fn capacity(&self) -> u64 {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_split_hashes_evenly() {
        for partitions in [2, 3, 8] {
            let mut counts = vec![0u64; partitions];
            for i in 0..60_000u32 {
                counts[partition_of(hash_words(&[i, i ^ 0x5555]), partitions)] += 1;
            }
            let mean = 60_000 / partitions as u64;
            for count in counts {
                assert!(
                    count.abs_diff(mean) < mean / 20,
                    "{partitions}: {count} vs {mean}"
                );
            }
        }
    }

    #[test]
    fn chunks_cover_every_pair_once_in_order() {
        let counts = vec![
            vec![0, 2 * CHUNK_MESSAGES + 7, 5],
            vec![1, 0, 0],
            vec![CHUNK_MESSAGES, 0, 0],
        ];
        let split = chunks(&counts);
        assert_eq!(split.len(), 3);
        for (source, row) in counts.iter().enumerate() {
            for (owner, &sent) in row.iter().enumerate() {
                let pieces: Vec<Piece> = split
                    .iter()
                    .flatten()
                    .filter(|piece| (piece.source, piece.owner) == (source, owner))
                    .copied()
                    .collect();
                let mut next = 0;
                for piece in &pieces {
                    assert_eq!(piece.first, next, "{piece:?}");
                    assert!(piece.messages > 0 && piece.messages <= CHUNK_MESSAGES);
                    next += piece.messages;
                }
                assert_eq!(next, if source == owner { 0 } else { sent });
            }
        }
        assert!(chunks(&[vec![0, 0], vec![0, 0]]).is_empty());
    }

    #[test]
    fn messages_from_each_source_follow_those_of_lower_sources() {
        // counts[s][d]: messages from s to d.
        let counts = vec![vec![0, 5, 7], vec![2, 0, 3], vec![4, 6, 0]];
        assert_eq!(inbox_offset(&counts, 0, 1), 0);
        assert_eq!(inbox_offset(&counts, 2, 1), 5);
        assert_eq!(inbox_offset(&counts, 1, 0), 0);
        assert_eq!(inbox_offset(&counts, 2, 0), 2);
        assert_eq!(inbox_offset(&counts, 1, 2), 7);
        assert_eq!(region(0, 2), 1);
        assert_eq!(region(2, 0), 0);
        assert_eq!(region(1, 0), 0);
    }
}
