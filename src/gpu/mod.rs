//! The shared GPU runtime. It knows no algorithm: a [`Device`] opened by
//! ordinal owns the CUDA context, one stream and a cache of compiled
//! kernel modules; [`Build`]s compile real `.cu` files with shared headers
//! (`kernels/common/`) through NVRTC; [`abi`] checks the host/kernel
//! contract; allocation helpers turn out-of-memory into a typed error.
//! Every GPU algorithm takes a `&Device`.

pub mod abi;
mod compile;
mod error;
pub mod kernel_cache;
pub mod scan;
pub mod waves;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DevicePtrMut,
    DeviceRepr, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg, ValidAsZeroBits, sys,
};

pub use abi::ParamBlock;
#[cfg(test)]
pub use compile::assert_kernels_compile;
pub use compile::{
    Build, COMMON_HEADERS, KERNEL_DIR_VARIABLE, KernelFile, KernelResources, KernelSource,
    nvrtc_available,
};
pub use error::GpuError;

/// An opened GPU: context, stream, properties and compiled kernel modules.
/// Cloning is cheap and shares all of them.
#[derive(Clone)]
pub struct Device {
    inner: Arc<Inner>,
}

struct Inner {
    ordinal: usize,
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    compute_capability: (i32, i32),
    multiprocessors: u32,
    total_memory: u64,
    /// The most device memory in use that [`Device::note_memory_use`] saw.
    peak_memory_use: AtomicU64,
    /// Compiled modules by architecture and [`Build`] key.
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description())
    }
}

impl Device {
    /// Opens device `ordinal` (as CUDA numbers the visible devices, after
    /// `CUDA_VISIBLE_DEVICES`). Fails with [`GpuError::Unavailable`] when
    /// the CUDA driver or NVRTC cannot be loaded or no such device exists.
    pub fn open(ordinal: usize) -> Result<Device, GpuError> {
        // SAFETY: only tries to load the shared library.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::Unavailable(
                "the CUDA driver library (libcuda) cannot be loaded".into(),
            ));
        }
        if !nvrtc_available() {
            return Err(GpuError::Unavailable(
                "the NVRTC library (libnvrtc) cannot be loaded".into(),
            ));
        }
        let unavailable = |e: DriverError| GpuError::Unavailable(format!("{e:?}"));
        let count = CudaContext::device_count().map_err(unavailable)?;
        if count < 1 {
            return Err(GpuError::Unavailable("no CUDA device found".into()));
        }
        if ordinal >= count as usize {
            return Err(GpuError::Unavailable(format!(
                "no CUDA device {ordinal}: {count} visible"
            )));
        }
        let context = CudaContext::new(ordinal).map_err(unavailable)?;
        let attribute = |attribute| context.attribute(attribute).map_err(unavailable);
        let multiprocessors =
            attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let inner = Inner {
            ordinal,
            name: context.name().map_err(unavailable)?,
            compute_capability: context.compute_capability().map_err(unavailable)?,
            multiprocessors,
            total_memory: context.total_mem().map_err(unavailable)? as u64,
            stream: context.default_stream(),
            context,
            peak_memory_use: AtomicU64::new(0),
            modules: Mutex::new(HashMap::new()),
        };
        let device = Device {
            inner: Arc::new(inner),
        };
        // The stream-ordered pool's first allocation costs milliseconds
        // (about 9 on the H100 machine): taken here, with the context's
        // creation, rather than inside the first timed step.
        drop(
            device
                .alloc_zeroed::<u64>(1)
                .map_err(|e| GpuError::Unavailable(e.to_string()))?,
        );
        device
            .synchronize()
            .map_err(|e| GpuError::Unavailable(e.to_string()))?;
        Ok(device)
    }

    /// How many devices CUDA makes visible (0 without a driver).
    pub fn count() -> usize {
        // SAFETY: only tries to load the shared library.
        if !unsafe { sys::is_culib_present() } {
            return 0;
        }
        CudaContext::device_count().map_or(0, |count| count.max(0) as usize)
    }

    /// The ordinal the device was opened with.
    pub fn ordinal(&self) -> usize {
        self.inner.ordinal
    }

    /// Name, compute capability, multiprocessors and memory of the device.
    pub fn description(&self) -> String {
        format!(
            "{} ({}, {} SMs, {:.1} GiB)",
            self.inner.name,
            self.arch(),
            self.inner.multiprocessors,
            self.inner.total_memory as f64 / (1u64 << 30) as f64
        )
    }

    /// The architecture NVRTC compiles for, e.g. `sm_90`.
    pub fn arch(&self) -> String {
        let (major, minor) = self.inner.compute_capability;
        format!("sm_{major}{minor}")
    }

    /// Streaming multiprocessors.
    pub fn multiprocessors(&self) -> u32 {
        self.inner.multiprocessors
    }

    /// The CUDA context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.inner.context
    }

    /// The stream every operation of this device runs on, in order.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// A device attribute.
    pub fn attribute(&self, attribute: sys::CUdevice_attribute) -> Result<i32, GpuError> {
        self.inner
            .context
            .attribute(attribute)
            .map_err(GpuError::driver("querying a device attribute"))
    }

    /// Free device memory in bytes. Waits for the stream first: memory
    /// freed on it returns to the device only at a synchronisation (the
    /// stream's allocations come from CUDA's memory pool), so that a search
    /// after another sees the memory the first one gave back.
    pub fn free_memory(&self) -> Result<u64, GpuError> {
        self.synchronize()?;
        self.inner
            .context
            .mem_get_info()
            .map(|(free, _)| free as u64)
            .map_err(GpuError::driver("querying free memory"))
    }

    /// Device memory in use now (by every process: the device's total
    /// less its free memory), also kept as the peak if it is the most seen
    /// so far. Algorithms call it where their allocations are largest, so
    /// that [`Device::peak_memory_use`] reports what a run needed.
    pub fn note_memory_use(&self) -> Result<u64, GpuError> {
        let used = self.inner.total_memory.saturating_sub(self.free_memory()?);
        self.inner
            .peak_memory_use
            .fetch_max(used, Ordering::Relaxed);
        Ok(used)
    }

    /// The most device memory in use at any [`Device::note_memory_use`].
    pub fn peak_memory_use(&self) -> u64 {
        self.inner.peak_memory_use.load(Ordering::Relaxed)
    }

    /// Kernel `name` of `build`, compiled for this device (as
    /// [`Device::module`] gives it).
    pub fn function(&self, build: &Build, name: &str) -> Result<CudaFunction, GpuError> {
        self.module(build)?.function(name)
    }

    /// The module of `build`, compiled for this device (from the module
    /// cache, the disk cache of [`kernel_cache`], or by NVRTC on first
    /// use): an algorithm that launches several kernels of one build looks
    /// the module up once and takes each kernel from it. A module read
    /// from the disk that the driver will not load is compiled again.
    pub fn module(&self, build: &Build) -> Result<KernelModule, GpuError> {
        let arch = self.arch();
        let key = format!("{arch} {}", build.cache_key()?);
        let mut modules = self.inner.modules.lock().unwrap_or_else(|e| e.into_inner());
        let module = match modules.get(&key) {
            Some(module) => module.clone(),
            None => {
                let disk = kernel_cache::KernelCache::from_environment();
                let load = |binary: Vec<u8>| {
                    self.inner
                        .context
                        .load_module(cudarc::nvrtc::Ptx::from_binary(binary))
                        .map_err(GpuError::driver("loading a compiled kernel"))
                };
                let binary = disk.binary(build, &arch)?;
                let module = match (load(binary.bytes), binary.from_cache) {
                    (Ok(module), _) => module,
                    (Err(error), false) => return Err(error),
                    (Err(error), true) => {
                        tracing::debug!(%error, "a cached kernel did not load: compiling it again");
                        let file = disk.file_of(build, &arch)?;
                        load(disk.compile(build, &arch, file.as_deref())?.bytes)?
                    }
                };
                modules.insert(key, module.clone());
                module
            }
        };
        Ok(KernelModule(module))
    }

    /// The error of an allocation of `elements` of `T` that failed with
    /// `error`: [`GpuError::OutOfMemory`], with the free memory, when the
    /// device had too little, else a driver failure.
    fn allocation_error<T>(&self, elements: usize, error: DriverError) -> GpuError {
        if error.0 != sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
            return GpuError::driver("allocating device memory")(error);
        }
        GpuError::OutOfMemory {
            requested: (elements * std::mem::size_of::<T>()) as u64,
            free: self.free_memory().unwrap_or(0),
        }
    }

    /// `len` elements of uninitialised device memory.
    ///
    /// # Safety
    /// The caller must write every element before it is read.
    pub unsafe fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>, GpuError> {
        // SAFETY: passed on to the caller.
        unsafe { self.inner.stream.alloc(len.max(1)) }
            .map_err(|e| self.allocation_error::<T>(len, e))
    }

    /// `len` elements of uninitialised device memory, allocated and freed
    /// synchronously (`cuMemAlloc`, `cuMemFree`) rather than from the
    /// stream-ordered pool that [`Device::alloc`] uses: for tables of
    /// gigabytes, which the pool maps slowly. On an H100, 64 GiB took
    /// 0.26-0.29 s from the pool against 0.003 s synchronously, and a
    /// pooled free 0.13-0.14 s against 0.045 s (`docs/GPU.md`, "Memory").
    ///
    /// # Safety
    /// The caller must write every element before it is read.
    pub unsafe fn alloc_large<T: DeviceRepr>(&self, len: usize) -> Result<LargeSlice<T>, GpuError> {
        let len = len.max(1);
        self.inner
            .context
            .bind_to_thread()
            .map_err(GpuError::driver("binding the GPU context"))?;
        // SAFETY: the memory is handed to one slice, which frees it once
        // (`LargeSlice`'s drop); the caller writes it before reading.
        let slice = unsafe {
            let address = cudarc::driver::result::malloc_sync(len * std::mem::size_of::<T>())
                .map_err(|e| self.allocation_error::<T>(len, e))?;
            self.inner.stream.upgrade_device_ptr(address, len)
        };
        Ok(LargeSlice {
            slice: std::mem::ManuallyDrop::new(slice),
        })
    }

    /// `len` elements (at least one) from [`Device::alloc_large`] for the
    /// work arrays of a kernel sequence whose kernels write every entry
    /// before any kernel reads it: each caller says at the allocation
    /// which kernel writes it.
    pub(crate) fn alloc_written_by_kernels<T: DeviceRepr>(
        &self,
        len: usize,
    ) -> Result<LargeSlice<T>, GpuError> {
        // SAFETY: as the doc says, the caller's kernels write each entry
        // before reading it.
        unsafe { self.alloc_large(len) }
    }

    /// The launch of a grid-stride kernel of `threads`-thread blocks over
    /// `items` work items: a block per `threads` items, at most
    /// `blocks_per_sm` blocks an SM (the loop covers the rest).
    pub fn grid_stride_launch(&self, items: u64, threads: u32, blocks_per_sm: u64) -> LaunchConfig {
        let wanted = items.div_ceil(u64::from(threads)).max(1);
        let blocks = wanted.min(u64::from(self.multiprocessors()) * blocks_per_sm) as u32;
        LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// Launches `kernel` in `config` with the parameter block `params`;
    /// `during` names the work for errors.
    ///
    /// # Safety
    /// The kernel must take a block of this type (its layout checked by
    /// the build), and every address in `params` must point into a live
    /// allocation as large as the kernel reads or writes there.
    pub unsafe fn launch_block<P: ParamBlock>(
        &self,
        kernel: &CudaFunction,
        params: &P,
        config: LaunchConfig,
        during: &'static str,
    ) -> Result<(), GpuError> {
        let mut launch = self.inner.stream.launch_builder(kernel);
        launch.arg(params);
        // SAFETY: as the caller promises.
        unsafe { launch.launch(config) }.map_err(GpuError::driver(during))?;
        Ok(())
    }

    /// `len` elements of device memory from [`Device::alloc_large`], every
    /// byte set to `byte` (for integer elements: every pattern is a value).
    pub fn alloc_large_filled<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
        byte: u8,
    ) -> Result<LargeSlice<T>, GpuError> {
        // SAFETY: every byte is written right below.
        let mut slice = unsafe { self.alloc_large::<T>(len) }?;
        self.fill(&mut *slice, byte)?;
        Ok(slice)
    }

    /// Sets every byte of `slice` to `byte`, in stream order (for integer
    /// elements: every pattern is a value).
    pub fn fill<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        slice: &mut CudaSlice<T>,
        byte: u8,
    ) -> Result<(), GpuError> {
        let bytes = slice.len() * std::mem::size_of::<T>();
        let address = self.address_mut(slice);
        // SAFETY: `address` addresses the slice's `bytes` bytes.
        unsafe {
            cudarc::driver::result::memset_d8_async(
                address,
                byte,
                bytes,
                self.inner.stream.cu_stream(),
            )
        }
        .map_err(GpuError::driver("filling device memory"))
    }

    /// `len` zeroed elements of device memory.
    pub fn alloc_zeroed<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>, GpuError> {
        self.inner
            .stream
            .alloc_zeros(len.max(1))
            .map_err(|e| self.allocation_error::<T>(len, e))
    }

    /// A device copy of `data` (one zero element when `data` is empty: a
    /// zero-byte allocation is not portable).
    pub fn upload<T: DeviceRepr + Default + Clone>(
        &self,
        data: &[T],
    ) -> Result<CudaSlice<T>, GpuError> {
        let padded;
        let data = if data.is_empty() {
            padded = [T::default()];
            &padded[..]
        } else {
            data
        };
        // SAFETY: every element is written by the copy right below.
        let mut slice = unsafe { self.alloc(data.len()) }?;
        self.inner
            .stream
            .memcpy_htod(data, &mut slice)
            .map_err(GpuError::driver("copying to the GPU"))?;
        Ok(slice)
    }

    /// A device copy of `data` in memory from [`Device::alloc_large`], for
    /// arrays of many megabytes uploaded once, which the stream-ordered
    /// pool maps slowly. On the H100 machine the MEC's three arrays of
    /// csma-3-4 (33 MB) took 10.6–16.2 ms through [`Device::upload`] and
    /// 4.3–6.6 ms so; that alone only moved the pool's first-allocation
    /// cost to the next allocation (call F). With that cost taken at
    /// [`Device::open`] as well, the whole decomposition went from
    /// 25.4–30.9 to 19.0–22.2 ms (call G). The two were not measured
    /// apart (`benches/results/2026-11-25b-h100-profile/`).
    pub fn upload_large<T: DeviceRepr>(&self, data: &[T]) -> Result<LargeSlice<T>, GpuError> {
        // SAFETY: every element is written by the copy right below (and
        // the one element of an empty upload is never read).
        let mut slice = unsafe { self.alloc_large(data.len()) }?;
        if !data.is_empty() {
            self.inner
                .stream
                .memcpy_htod(data, &mut *slice)
                .map_err(GpuError::driver("copying to the GPU"))?;
        }
        Ok(slice)
    }

    /// A host copy of `source` (a slice or a view of one).
    pub fn download<T: DeviceRepr + Default + Clone>(
        &self,
        source: &impl DevicePtr<T>,
    ) -> Result<Vec<T>, GpuError> {
        self.inner
            .stream
            .clone_dtoh(source)
            .map_err(GpuError::driver("copying from the GPU"))
    }

    /// A host copy of `source` to be written back later in parts (a
    /// table staged through host memory while a larger one takes its
    /// place): page-locked where the driver grants that much, since such
    /// memory crosses the bus without the driver's bounce buffers, else
    /// pageable (docs/GPU.md, "Growth through host memory").
    pub fn copy_to_host<T: DeviceRepr + Default + Clone + ValidAsZeroBits>(
        &self,
        source: &impl DevicePtr<T>,
    ) -> Result<HostCopy<T>, GpuError> {
        let context = self.inner.stream.context();
        // SAFETY: the copy right below writes every element before any is read.
        match unsafe { context.alloc_pinned_with_flags::<T>(source.len().max(1), 0) } {
            Ok(mut locked) => {
                self.inner
                    .stream
                    .memcpy_dtoh(source, &mut locked)
                    .map_err(GpuError::driver("copying from the GPU"))?;
                Ok(HostCopy::PageLocked(locked))
            }
            Err(refused) => {
                tracing::debug!(
                    "{} of page-locked host memory refused ({refused}); a pageable copy instead",
                    crate::report::human_bytes(source.num_bytes() as u64)
                );
                Ok(HostCopy::Pageable(self.download(source)?))
            }
        }
    }

    /// Copies the elements `range` of `copy` into the start of `target`.
    pub fn write_from<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        copy: &HostCopy<T>,
        range: std::ops::Range<usize>,
        target: &mut impl DevicePtrMut<T>,
    ) -> Result<(), GpuError> {
        let whole = match copy {
            HostCopy::PageLocked(locked) => locked
                .as_slice()
                .map_err(GpuError::driver("copying to the GPU"))?,
            HostCopy::Pageable(pageable) => pageable,
        };
        self.write(&whole[range], target)
    }

    /// Copies `data` into the start of `target`.
    pub fn write<T: DeviceRepr>(
        &self,
        data: &[T],
        target: &mut impl DevicePtrMut<T>,
    ) -> Result<(), GpuError> {
        self.inner
            .stream
            .memcpy_htod(data, target)
            .map_err(GpuError::driver("copying to the GPU"))
    }

    /// Waits until everything queued on the stream has run.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        self.inner
            .stream
            .synchronize()
            .map_err(GpuError::driver("waiting for the GPU"))
    }

    /// The device address of `slice`, for a parameter block. The address
    /// is valid while `slice` lives; every use is ordered on this device's
    /// one stream.
    pub fn address<T>(&self, slice: &impl DevicePtr<T>) -> u64 {
        let (address, _record) = slice.device_ptr(&self.inner.stream);
        address
    }

    /// The device address of `slice`, which a kernel will write.
    pub fn address_mut<T>(&self, slice: &mut impl DevicePtrMut<T>) -> u64 {
        let (address, _record) = slice.device_ptr_mut(&self.inner.stream);
        address
    }
}

/// Device memory copied to the host ([`Device::copy_to_host`]).
pub enum HostCopy<T> {
    /// In page-locked memory, which the GPU reads and writes directly.
    PageLocked(PinnedHostSlice<T>),
    /// In ordinary memory, when the driver refused to lock that much.
    Pageable(Vec<T>),
}

/// A compiled module of one [`Build`] on a device ([`Device::module`]).
pub struct KernelModule(Arc<CudaModule>);

impl KernelModule {
    /// The module's kernel `name`.
    pub fn function(&self, name: &str) -> Result<CudaFunction, GpuError> {
        self.0
            .load_function(name)
            .map_err(GpuError::driver("loading a compiled kernel"))
    }
}

/// Device memory from [`Device::alloc_large`]: a [`CudaSlice`] (it derefs
/// to one) that is freed synchronously, after the stream's work, instead
/// of into the stream-ordered pool.
pub struct LargeSlice<T> {
    slice: std::mem::ManuallyDrop<CudaSlice<T>>,
}

impl<T> std::ops::Deref for LargeSlice<T> {
    type Target = CudaSlice<T>;

    fn deref(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

impl<T> std::ops::DerefMut for LargeSlice<T> {
    fn deref_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }
}

impl<T> cudarc::driver::DeviceSlice<T> for LargeSlice<T> {
    fn len(&self) -> usize {
        self.slice.len()
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.slice.stream()
    }
}

impl<T> DevicePtr<T> for LargeSlice<T> {
    fn device_ptr<'a>(
        &'a self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, cudarc::driver::SyncOnDrop<'a>) {
        self.slice.device_ptr(stream)
    }
}

impl<T> DevicePtrMut<T> for LargeSlice<T> {
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, cudarc::driver::SyncOnDrop<'a>) {
        self.slice.device_ptr_mut(stream)
    }
}

impl<T> Drop for LargeSlice<T> {
    fn drop(&mut self) {
        // SAFETY: the slice is taken once, here, and not used after.
        let slice = unsafe { std::mem::ManuallyDrop::take(&mut self.slice) };
        let stream = slice.stream().clone();
        // The kernels that use the memory finish before it is freed; a
        // failure here has been or will be reported by the stream's next
        // operation.
        let _ = stream.synchronize();
        let address = slice.leak();
        let _ = stream.context().bind_to_thread();
        // SAFETY: `address` came from `cuMemAlloc` in `alloc_large` and
        // nothing else frees it; the stream is idle.
        let _ = unsafe { cudarc::driver::result::free_sync(address) };
    }
}
