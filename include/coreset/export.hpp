// CORESET_API marks what libcoreset exports. The library is compiled with hidden visibility
// (cmake/CoresetLayers.cmake), so only the declarations of include/coreset/*.hpp that carry this
// mark are in its dynamic symbol table: internals cannot be linked against by accident, their
// names can change without an ABI break, and the loader has fewer symbols to resolve. Classes
// carry it too, so that their typeinfo and vtables are shared: a coreset::InputError thrown inside
// the library is caught by `catch (const coreset::Error&)` in the program.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define CORESET_API __attribute__((visibility("default")))
#else
#define CORESET_API
#endif
