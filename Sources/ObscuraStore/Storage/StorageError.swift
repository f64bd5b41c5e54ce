#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import ObscuraCrypto

/// Errors from the file system, with the path and the system's reason.
public enum StorageError: ObscuraError, Equatable {
    /// A system call failed on `path` with `errno`.
    case io(String, Int32)

    /// The system's errno for this failure.
    public var code: Int32 {
        switch self { case let .io(_, code): return code }
    }

    public var description: String {
        switch self {
        case let .io(path, code):
            let reason = String(cString: strerror(code))
            switch code {
            case ENOSPC: return "no space left on device while writing \(path)"
            case EACCES, EPERM, EROFS: return "permission denied: \(path) (\(reason))"
            default: return "\(path): \(reason)"
            }
        }
    }
}
