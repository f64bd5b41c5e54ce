/// Why a gazetteer could not be loaded.
public enum GazetteerError: Error, Equatable, Sendable {
    /// The gazetteer file is not beside the executable, where SwiftPM puts the
    /// module's resources.
    case notFound
    /// The bytes are not a gazetteer this version reads (wrong magic, counts that do
    /// not match the length, an index out of range); the text says which check failed.
    case malformed(String)
}
