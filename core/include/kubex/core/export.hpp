// SPDX-License-Identifier: Apache-2.0
#pragma once

// kubex targets ELF platforms (Linux) with GCC or Clang. Its libraries are built with hidden
// symbols (-fvisibility=hidden -fvisibility-inlines-hidden, cmake/KubexLibrary.cmake), so a
// shared libkubex_*.so exports only what carries KUBEX_API: the public API, not the
// instantiations of Asio, simdjson or the standard library that its code makes.
//
// One macro serves every kubex library. On ELF, "default" visibility means the same when
// building a library and when using it (the dynamic linker binds a name to whichever object
// defines it), so no library needs a macro of its own that switches between export and import,
// as Windows' dllexport/dllimport would.

#if defined(__GNUC__) || defined(__clang__)
/// Exports a class (its members, vtable and typeinfo), a function or a variable from the
/// kubex shared libraries; in a static build it keeps the same visibility.
#define KUBEX_API __attribute__((visibility("default")))
#else
#define KUBEX_API
#endif
