//! The host/kernel contract: parameter blocks (`#[repr(C)]` structs that a
//! kernel takes by value, mirrored field for field in a CUDA header) whose
//! layout the kernel compiler checks against the host's, and constants
//! (statistics indices, option bits) spelled once on the host and handed
//! to the kernel as `-D` definitions.

use cudarc::driver::DeviceRepr;

/// Where one field of a parameter block lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldLayout {
    /// The field's name, as in the C mirror.
    pub name: &'static str,
    /// Byte offset in the block.
    pub offset: usize,
    /// Bytes.
    pub size: usize,
    /// Alignment in bytes.
    pub align: usize,
}

/// A kernel parameter block: a `#[repr(C)]` struct of integers and device
/// addresses with a C mirror of the same name. Declare one with
/// [`param_block!`](crate::param_block), which implements this trait.
///
/// # Safety
/// The type must be `#[repr(C)]`, hold only plain integers (no references
/// or host pointers), and its C mirror must declare the same fields in the
/// same order, each read as the type the host writes.
/// [`ParamBlock::layout_assertions`] lets the compiler check the block's
/// size and each field's name, size and alignment; with the order, which
/// the compiler cannot see (NVRTC has no `offsetof`), they fix every
/// offset, as both sides lay out C structs alike.
pub unsafe trait ParamBlock: DeviceRepr + Copy {
    /// The name of the C struct.
    const C_NAME: &'static str;

    /// Every field, in declaration order.
    fn fields() -> Vec<FieldLayout>;

    /// C++ `static_assert`s that the C struct has this size and fields of
    /// these names, sizes and alignments.
    fn layout_assertions() -> String {
        let name = Self::C_NAME;
        let size = std::mem::size_of::<Self>();
        let mut checks = format!(
            "static_assert(sizeof({name}) == {size}, \"{name}: the host's block has {size} bytes\");\n"
        );
        for field in Self::fields() {
            let (member, size, align) = (field.name, field.size, field.align);
            checks.push_str(&format!(
                "static_assert(sizeof({name}::{member}) == {size} && \
                 alignof(decltype({name}::{member})) == {align}, \
                 \"{name}.{member}: the host's field has {size} bytes, aligned to {align}\");\n"
            ));
        }
        checks
    }
}

/// Declares a kernel parameter block: a `#[repr(C)]` struct whose fields
/// are named as in its C mirror, with [`ParamBlock`] and cudarc's
/// `DeviceRepr` implemented. Fields must be integers (device addresses as
/// `u64`) or other parameter blocks.
#[macro_export]
macro_rules! param_block {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            $($(#[doc = $field_doc:literal])* pub $field:ident: $type:ty,)*
        }
    ) => {
        $(#[doc = $doc])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name {
            $($(#[doc = $field_doc])* pub $field: $type,)*
        }

        // SAFETY: a #[repr(C)] struct of integers and parameter blocks,
        // valid for any bits; the kernel reads it by value.
        unsafe impl cudarc::driver::DeviceRepr for $name {}

        // SAFETY: as above; `fields` lists every field in order, so the
        // generated assertions check the whole C mirror.
        unsafe impl $crate::gpu::ParamBlock for $name {
            const C_NAME: &'static str = stringify!($name);

            fn fields() -> Vec<$crate::gpu::abi::FieldLayout> {
                vec![$($crate::gpu::abi::FieldLayout {
                    name: stringify!($field),
                    offset: std::mem::offset_of!($name, $field),
                    size: std::mem::size_of::<$type>(),
                    align: std::mem::align_of::<$type>(),
                },)*]
            }
        }
    };
}

/// Declares a module of constants shared with kernels: each becomes a
/// `pub const` here and a `-D<PREFIX><NAME>=<value>` definition in the
/// module's `DEFINES`, so that host and kernel spell them once.
#[macro_export]
macro_rules! kernel_constants {
    (
        $(#[doc = $doc:literal])*
        pub mod $module:ident: $type:ty = $prefix:literal {
            $($(#[doc = $const_doc:literal])* $name:ident = $value:expr;)*
        }
    ) => {
        $(#[doc = $doc])*
        pub mod $module {
            $($(#[doc = $const_doc])* pub const $name: $type = $value;)*

            /// The kernels' `-D` definitions of these constants.
            pub const DEFINES: &[(&str, i64)] =
                &[$((concat!($prefix, stringify!($name)), $value as i64),)*];
        }
    };
}
