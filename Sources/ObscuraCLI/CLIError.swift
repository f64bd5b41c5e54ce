/// Errors the command line reports itself, with their exit codes.
struct CLIError: Error, CustomStringConvertible {
    /// Any failure: wrong password, vault error, I/O error.
    static let failureExitCode: Int32 = 1
    /// The vault directory is locked by another process (EX_TEMPFAIL).
    static let inUseExitCode: Int32 = 75
    /// What to do when the directory is held: most often by the gallery, which holds it
    /// for as long as it runs, so that each command would wait for it for ever.
    static let inUseAdvice = """
        if that is `obscura serve`, do this in its gallery, or stop it (Ctrl+C) and run the command \
        again; any other command holding it ends by itself
        """

    let description: String
    var exitCode: Int32 = failureExitCode

    init(_ description: String, exitCode: Int32 = failureExitCode) {
        self.description = description
        self.exitCode = exitCode
    }
}
