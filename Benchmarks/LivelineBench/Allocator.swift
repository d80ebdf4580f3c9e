import CJemalloc
#if canImport(Glibc)
import Glibc
#endif

/// The process allocator. `liveline-bench` links jemalloc: its per-thread caches keep the send
/// path's many short-lived allocations cheap, where glibc's malloc costs about 15% more CPU per push
/// in `liveline-bench client` (servers embedding LivelineAPNS can link it the same way).
enum Allocator {
    /// What serves `malloc` in this process, for benchmark headers.
    static var description: String {
        var version: UnsafePointer<CChar>?
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &version, &size, nil, 0) == 0, let version else { return "glibc malloc" }
        let name = "jemalloc \(String(cString: version).split(separator: "-").first ?? "")"
        return servesMalloc ? name : "glibc malloc (\(name) linked but not interposed)"
    }

    /// Whether the process-wide `malloc` (the first definition the dynamic linker finds) is the
    /// one in the loaded jemalloc library.
    static var servesMalloc: Bool {
        guard let global = dlsym(nil, "malloc"),  // nil: RTLD_DEFAULT, the global lookup
              let library = dlopen("libjemalloc.so.2", RTLD_LAZY | RTLD_NOLOAD) else { return false }
        defer { dlclose(library) }
        return dlsym(library, "malloc") == global
    }
}
