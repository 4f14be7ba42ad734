//! The encoded network on the device: the arrays every explorer kernel
//! reads, uploaded once per search, read through texture objects when the
//! device's linear textures are large enough (the default, see
//! [`ReadOnlyPath`]).

use cudarc::driver::{CudaSlice, sys};

use super::kernel::NetworkParams;
use super::{ReadOnlyPath, rules};
use crate::encode::{EncodedNetwork, OwnerChoice};
use crate::explore::{FindingKind, outcome};
use crate::gpu::{Device, GpuError};

/// Device copies of the encoded network's read-only arrays.
pub(super) struct DeviceNet {
    /// `[word, shift, mask, 0]` per process (one 16-byte load).
    fields: CudaSlice<u32>,
    proc_offsets: CudaSlice<u32>,
    transitions: CudaSlice<u32>,
    /// The successor tables (see [`rules`]).
    item_offsets: CudaSlice<u32>,
    items: CudaSlice<u32>,
    others: CudaSlice<u32>,
    lookup: CudaSlice<u32>,
    /// `[process, state, fatal]` of every error state, in encoding order.
    error_locals: CudaSlice<u32>,
    /// StateOffsets, and the process of each `others` row: read by the
    /// shared-memory combination ([`super::SyncCombination::SharedBuffers`]).
    state_offsets: CudaSlice<u32>,
    other_processes: CudaSlice<u32>,
    /// The action of each rule (labels of the state-space graph).
    pub(super) rule_actions: CudaSlice<u32>,
    errors: u32,
    processes: u32,
    /// Whether the successor tables hold rule indexes.
    rule_indexes: bool,
    /// Whether a rule may have more combinations in one state than 32
    /// bits count.
    wide_combinations: bool,
    /// Texture objects over the first seven arrays of [`NetworkParams`],
    /// when the network is read through textures.
    textures: Option<Textures>,
}

/// The texel width (`u32` channels) each texture array is read with, and
/// its name for messages, in the order of [`NetworkParams`].
const TEXELS: [(u32, &str); 7] = [
    (4, "process fields"),
    (1, "process offsets"),
    (1, "item offsets"),
    (4, "items"),
    (1, "transitions"),
    (4, "rule participants"),
    (2, "rule look-up rows"),
];

/// Texture objects over linear device memory, destroyed with this value.
struct Textures {
    handles: [sys::CUtexObject; 7],
    /// Copies of the arrays, each starting at an address aligned as
    /// textures need (the handles point into them).
    _memory: Vec<CudaSlice<u32>>,
}

impl Drop for Textures {
    fn drop(&mut self) {
        for &handle in self.handles.iter().filter(|&&h| h != 0) {
            // SAFETY: each handle was created once and is destroyed once;
            // the kernels that read it have finished (the stream is
            // synchronised before a search returns).
            let _ = unsafe { sys::cuTexObjectDestroy(handle) };
        }
    }
}

impl DeviceNet {
    /// Uploads `net`'s arrays, with the rule owners `owners` chooses, to be
    /// read through `path` (textures fall back to `__ldg` where an array
    /// is too long for them: see [`DeviceNet::read_path`]).
    pub(super) fn upload(
        device: &Device,
        net: &EncodedNetwork,
        path: ReadOnlyPath,
        owners: OwnerChoice,
    ) -> Result<DeviceNet, GpuError> {
        let fields: Vec<u32> = net
            .layout
            .fields
            .iter()
            .flat_map(|f| [f.word, f.shift, ((1u64 << f.bits) - 1) as u32, 0])
            .collect();
        let tables = rules::build(net, rules::MAX_LOOKUP_ROWS, owners)?;
        let error_locals: Vec<u32> = (0..net.error_locals.len())
            .flat_map(|i| {
                let e = &net.error_locals[i];
                [
                    e.process as u32,
                    e.state,
                    u32::from(outcome::is_fatal(net, &FindingKind::Error(i))),
                ]
            })
            .collect();
        let mut device_net = DeviceNet {
            fields: device.upload(&fields)?,
            proc_offsets: device.upload(&net.proc_offsets)?,
            transitions: device.upload(&net.transitions)?,
            item_offsets: device.upload(&tables.item_offsets)?,
            items: device.upload(&tables.items)?,
            others: device.upload(&tables.others)?,
            lookup: device.upload(&tables.lookup)?,
            error_locals: device.upload(&error_locals)?,
            state_offsets: device.upload(&net.state_offsets)?,
            other_processes: device.upload(&tables.other_processes)?,
            rule_actions: device.upload(&net.rule_actions)?,
            errors: net.error_locals.len() as u32,
            processes: net.processes() as u32,
            rule_indexes: tables.has_rule_indexes(),
            wide_combinations: net.max_combinations() > u64::from(u32::MAX),
            textures: None,
        };
        if path == ReadOnlyPath::Texture {
            device_net.textures = device_net.textures(device)?;
        }
        Ok(device_net)
    }

    /// Whether the successor tables hold rule indexes (the kernels are
    /// compiled with or without their walk).
    pub(super) fn rule_indexes(&self) -> bool {
        self.rule_indexes
    }

    /// Whether the kernels must count a rule's combinations in 64 bits.
    pub(super) fn wide_combinations(&self) -> bool {
        self.wide_combinations
    }

    /// The path the kernels must be compiled for: `asked`, except
    /// [`ReadOnlyPath::Ldg`] where textures were asked for but could not
    /// be made.
    pub(super) fn read_path(&self, asked: ReadOnlyPath) -> ReadOnlyPath {
        match (asked, &self.textures) {
            (ReadOnlyPath::Texture, None) => ReadOnlyPath::Ldg,
            (path, _) => path,
        }
    }

    /// The arrays the kernels may read through textures, in the order of
    /// [`NetworkParams`] (and of [`TEXELS`]).
    fn texture_arrays(&self) -> [&CudaSlice<u32>; 7] {
        [
            &self.fields,
            &self.proc_offsets,
            &self.item_offsets,
            &self.items,
            &self.transitions,
            &self.others,
            &self.lookup,
        ]
    }

    /// The network's parameter block: texture handles or device addresses.
    pub(super) fn params(&self, device: &Device) -> NetworkParams {
        let handles = match &self.textures {
            Some(textures) => textures.handles,
            None => self.texture_arrays().map(|array| device.address(array)),
        };
        NetworkParams {
            fields: handles[0],
            proc_offsets: handles[1],
            item_offsets: handles[2],
            items: handles[3],
            trans: handles[4],
            others: handles[5],
            lookup: handles[6],
            error_locals: device.address(&self.error_locals),
            state_offsets: device.address(&self.state_offsets),
            other_processes: device.address(&self.other_processes),
            errors: self.errors,
            processes: self.processes,
        }
    }

    /// Texture objects over the first seven network arrays, with the texel
    /// width (u32 channels) that each is read with; `None` when an array
    /// is longer than the device's linear textures allow (the kernels then
    /// read through `__ldg`).
    fn textures(&self, device: &Device) -> Result<Option<Textures>, GpuError> {
        let max_texels = device.attribute(
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH,
        )? as usize;
        let alignment = device
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)?
            .max(4) as u64;
        let arrays = self.texture_arrays();
        device
            .context()
            .bind_to_thread()
            .map_err(GpuError::driver("creating texture objects"))?;
        // Built up in place, so that a failure part way destroys what exists.
        let mut textures = Textures {
            handles: [0; 7],
            _memory: Vec::with_capacity(arrays.len()),
        };
        for (at, (array, (channels, name))) in arrays.into_iter().zip(TEXELS).enumerate() {
            let texels = array.len() / channels as usize;
            if texels > max_texels {
                tracing::info!(
                    "the {name} ({texels} texels) exceed the device's linear texture width \
                     ({max_texels}): reading the network through __ldg instead"
                );
                return Ok(None);
            }
            // A copy placed at the first aligned address of a slightly larger buffer.
            let slack = (alignment / 4) as usize;
            // SAFETY: the part the texture covers is written right below.
            let mut aligned: CudaSlice<u32> = unsafe { device.alloc(array.len() + slack) }?;
            let base = device.address(&aligned);
            let skip = ((alignment - base % alignment) % alignment / 4) as usize;
            device
                .stream()
                .memcpy_dtod(array, &mut aligned.slice_mut(skip..skip + array.len()))
                .map_err(GpuError::driver("copying the network to texture memory"))?;
            let pointer = base + 4 * skip as u64;
            textures._memory.push(aligned);
            // SAFETY: plain C structs; all-zero is a valid start for both.
            let mut resource: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
            resource.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
            resource.res.linear = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 {
                devPtr: pointer,
                format: sys::CUarray_format::CU_AD_FORMAT_UNSIGNED_INT32,
                numChannels: channels,
                sizeInBytes: texels * channels as usize * 4,
            };
            // SAFETY: as above.
            let mut description: sys::CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
            description.flags = sys::CU_TRSF_READ_AS_INTEGER;
            // SAFETY: the descriptors are initialised and the memory stays
            // allocated as long as `self`, which outlives the handles.
            unsafe {
                sys::cuTexObjectCreate(
                    &mut textures.handles[at],
                    &resource,
                    &description,
                    std::ptr::null(),
                )
            }
            .result()
            .map_err(GpuError::driver("creating texture objects"))?;
        }
        Ok(Some(textures))
    }
}
