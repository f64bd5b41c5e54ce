import CObscuraSystem
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Keeps a running Obscura process's memory out of core files and away from debuggers
/// of the same user (docs/SECURITY.md, "Memory"): the process holds keys and decrypted
/// photos, and a crash dump or a `ptrace` attach would hand them over in one piece.
///
/// - Core files: `RLIMIT_CORE` is set to 0, soft and hard, so neither a crash nor a
///   later `setrlimit` makes one.
/// - Linux: `PR_SET_DUMPABLE` 0 also refuses `ptrace` attach and `/proc/PID/mem` to
///   processes of the same user without `CAP_SYS_PTRACE`, and keeps a core-dump handler
///   (systemd-coredump) from receiving the memory. Key buffers are also marked
///   `MADV_DONTDUMP` one by one (``SecureBytes``), for dumps taken by other means.
/// - macOS: `PT_DENY_ATTACH` refuses debuggers.
public enum ProcessHardening {
    /// Applies every setting; executables call it first. Returns whether all of them
    /// took effect.
    @discardableResult
    public static func apply() -> Bool {
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        #if canImport(Glibc)
        let limited = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore) == 0
        let undumpable = obscura_system_set_dumpable(0) == 0
        return limited && undumpable
        #else
        let limited = setrlimit(RLIMIT_CORE, &noCore) == 0
        // PT_DENY_ATTACH (31) from <sys/ptrace.h>; ptrace is not exported to Swift.
        typealias Ptrace = @convention(c) (Int32, pid_t, UnsafeMutableRawPointer?, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "ptrace") else { return false }
        let denied = unsafeBitCast(symbol, to: Ptrace.self)(31, 0, nil, 0) == 0
        return limited && denied
        #endif
    }

    /// Whether core files are off and (Linux) the process is not dumpable (tests).
    package static var isApplied: Bool {
        var limit = rlimit()
        #if canImport(Glibc)
        guard getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 else { return false }
        return limit.rlim_cur == 0 && limit.rlim_max == 0 && obscura_system_get_dumpable() == 0
        #else
        guard getrlimit(RLIMIT_CORE, &limit) == 0 else { return false }
        return limit.rlim_cur == 0 && limit.rlim_max == 0
        #endif
    }
}
