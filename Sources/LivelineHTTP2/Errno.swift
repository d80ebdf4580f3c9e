#if canImport(Glibc)
import Glibc
#endif

/// The current `errno` as text.
func errnoString(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}
