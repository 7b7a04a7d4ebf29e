// The CPU the int8 tests emulate under Debian's qemu-user (qemu-x86_64 -cpu ...): a Haswell, AVX2 and FMA without
// AVX-512 or VNNI, so ONNX Runtime's MLAS takes its AVX2 u8s8 kernels whatever CPU runs the test. Without the
// features QEMU 7.2's TCG cannot give, which it would warn about on stderr one by one.
#pragma once

namespace rooflens::testing {

inline constexpr const char* kEmulatedHaswell = "Haswell,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm";

}  // namespace rooflens::testing
