import Foundation
import Logging

/// How much the command line logs to standard error: `--verbose` means debug, and
/// `OBSCURA_LOG_LEVEL` (trace, debug, info, notice, warning, error, critical) names a
/// level outright; the default is info, swift-log's own.
///
/// Log messages name operations and counts, never passwords, keys, item names or which
/// slot was written (docs/SECURITY.md, "Key hygiene"); `scripts/harden` greps a verbose
/// run for every secret it used.
enum LogLevel {
    /// The level `arguments` and `environment` ask for.
    static func requested(
        arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Logger.Level {
        if let name = environment["OBSCURA_LOG_LEVEL"]?.lowercased(), let level = Logger.Level(rawValue: name) {
            return level
        }
        // Before parsing, so that loggers made while a command runs see the level; the
        // flag itself is declared in GlobalOptions, and "--" ends the options.
        return arguments.prefix { $0 != "--" }.contains("--verbose") ? .debug : .info
    }

    /// Sends every logger to standard error at the requested level. Call once, first.
    static func bootstrap(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) {
        let level = requested(arguments: arguments, environment: environment)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
