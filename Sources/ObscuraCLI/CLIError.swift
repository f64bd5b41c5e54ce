/// Errors the command line reports itself, with their exit codes.
struct CLIError: Error, CustomStringConvertible {
    /// Any failure: wrong password, vault error, I/O error.
    static let failureExitCode: Int32 = 1
    /// The vault directory is locked by another process (EX_TEMPFAIL).
    static let inUseExitCode: Int32 = 75

    let description: String
    var exitCode: Int32 = failureExitCode

    init(_ description: String, exitCode: Int32 = failureExitCode) {
        self.description = description
        self.exitCode = exitCode
    }
}
